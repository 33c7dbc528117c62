// Launchers of the reduce family: the per-type reductions, columns by monoid atomics or through
// the shared transpose, and the switch of the paths they take (paths_now()).
#include <algorithm>
#include <cstdint>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/common/device_props.hpp"
#include "backend/cuda/common/host_read.hpp"
#include "backend/cuda/common/vector_plumbing.hpp"
#include "backend/cuda/reduce/kernels.cuh"
#include "backend/cuda/reduce/reduction.hpp"
#include "backend/cuda/reduce/typed.hpp"
#include "semirings/visit.hpp"

namespace ringblas::cuda::reduction {
bool identity_seed_is_neutral(MonoidCode m, Type t) {
  if (m == MonoidCode::any) return false;
  const bool logical = m == MonoidCode::lor || m == MonoidCode::land || m == MonoidCode::lxor;
  return !(logical && t != Type::boolean);
}

void rows(const Matrix& A, MonoidCode monoid, void* t, unsigned char* present, Context& ctx,
          row_tally tally, row_kernel kernel) {
  // One kernel for every monoid and row length: it folds each row from its first entry's side as
  // GraphBLAS does (any keeps an entry, a lone entry of a logical monoid stays itself), which a
  // fold seeded with the identity (CUB's segmented reduce) would not.
  const bool aligned = reinterpret_cast<std::uintptr_t>(A.values().data()) % 16 == 0;
  const row_kernel k = aligned ? kernel : row_kernel::subwarp;
  visit_type(A.type(), [&](auto z) {
    using T = decltype(z);
    typed<T>::rows_short(monoid, A, static_cast<T*>(t), present, tally, k, ctx);
  });
}

Vector rows_to_vector(const Matrix& A, MonoidCode monoid, row_kernel kernel, Context& ctx) {
  const Index n = A.nrows();
  const std::size_t n1 = std::size_t(n > 0 ? n : 1);
  const Type type = A.type();
  Buffer t(n1 * type_size(type), Location::device, &ctx), present(n1, Location::device, &ctx),
      index(n1 * sizeof(std::int64_t), Location::device, &ctx);
  device_array<unsigned long long> empty(1, ctx);
  empty.fill_zero(ctx);
  rows(A, monoid, t.data(), present.as<unsigned char>(), ctx,
       {empty.data(), index.as<std::int64_t>()}, kernel);
  // The host wait of this path: the empty-row count decides the output's form.
  const unsigned long long empty_rows = read_value(empty.data(), ctx);
  ctx.transfers.device_to_host += 1;
  ctx.transfers.bytes_device_to_host += sizeof(empty_rows);
  if (empty_rows == 0) return Vector::from_buffers(n, type, n, std::move(index), std::move(t));
  return detail::compact_flagged(n, type, t.data(), present.as<unsigned char>(),
                                 static_cast<long long>(n) - static_cast<long long>(empty_rows),
                                 ctx);
}

paths& paths_now() {
  static paths now;
  return now;
}

void cols(const Matrix& A, MonoidCode monoid, void* t, unsigned char* present, column_method method,
          Context& ctx) {
  // Atomics fold into identity-seeded slots: monoids for which that seed is not neutral go
  // through the transpose and the row kernel.
  if (method == column_method::transpose || !identity_seed_is_neutral(monoid, A.type())) {
    rows(transpose(A, ctx), monoid, t, present, ctx);
    return;
  }
  const Index n = A.ncols();
  // ranges: columns whose partial sums and flags fill half of L2 a pass; one pass where all fit
  // (then the plain atomics, which read A coalesced and need no cursors).
  const std::size_t col_bytes = type_size(A.type()) + 1;
  const Index range =
      method == column_method::ranges64 ? 64
      : method == column_method::ranges
          ? std::max<Index>(1, Index(device_props(ctx.device).l2_bytes / 2 / col_bytes))
          : n;
  RINGBLAS_CUDA_TRY(cudaMemsetAsync(present, 0, std::size_t(n), stream_of(ctx)));
  visit_type(A.type(), [&](auto z) {
    using T = decltype(z);
    typed<T>::fill_identity(monoid, n, static_cast<T*>(t), ctx);
    if (range < n)
      typed<T>::cols_ranges(monoid, A, static_cast<T*>(t), present, range, ctx);
    else
      typed<T>::cols_atomic(monoid, A, static_cast<T*>(t), present, ctx);
  });
}

Scalar all(MonoidCode monoid, Type type, const void* values, Index n, Context& ctx) {
  return visit_type(type, [&](auto z) {
    using T = decltype(z);
    if (n == 0)
      return Scalar(sr::visit_monoid<T>(monoid, [](auto m) { return decltype(m)::identity(); }));
    device_array<T> out(1, ctx);
    // any: the first value (a fold from the identity would keep the identity). Other monoids
    // fold from the identity, as SuiteSparse's GrB_reduce to a scalar does (lor of a lone -2 is
    // 1 there, while a row of one entry reduces to the entry itself).
    const T* from = static_cast<const T*>(values);
    if (monoid != MonoidCode::any) {
      typed<T>::all(monoid, static_cast<const T*>(values), n, out.data(), ctx);
      from = out.data();
    }
    const T r = read_value(from, ctx);
    ctx.transfers.device_to_host += 1;
    ctx.transfers.bytes_device_to_host += sizeof(T);
    return Scalar(r);
  });
}

}  // namespace ringblas::cuda::reduction
