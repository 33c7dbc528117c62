// apply (value maps) and select (predicates) on the device, one thread per entry.
//
// map: z = f(a, i, j) writes the values only; the structure is A's (reused when A is a
// temporary, else copied). Row indices, where the operator reads them, come from a binary search
// of the row pointers. select: keep flags, an exclusive scan (CUB) of the flags gives each kept
// entry's output position and, read at the row starts, the new row pointers; a scatter
// compacts. compact() is shared with top-k. No shared memory; rows stay sorted.
#include <string>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/elementwise/agent.cuh"
#include "backend/cuda/elementwise/compact.cuh"
#include "backend/cuda/elementwise/elementwise.hpp"
#include "backend/cuda/elementwise/launch.cuh"
#include "ringblas/error.hpp"

namespace ringblas::cuda::elementwise {
namespace {

template <class V, class I>
__global__ void k_map(MapArgs<V> a, bool needs_row, I nrows, std::size_t nnz, const I* rp,
                      const I* ci, const V* x, V* z) {
  const std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= nnz) return;
  const std::int64_t i = needs_row ? std::int64_t(row_of(rp, nrows, I(p))) : 0;
  z[p] = map_value(a, x[p], i, std::int64_t(ci[p]));
}

template <class V, class I>
Matrix map_typed(const Matrix& A, Matrix& hold, const MapOp& f, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  MapArgs<V> args{int(f.kind), f.unary, f.binary, V{}, f.index_op, f.thunk};
  if (f.kind == MapOp::Kind::bind_first || f.kind == MapOp::Kind::bind_second)
    args.bound = visit_type(f.bound.type(),
                            [&](auto from) { return sr::cast<V>(f.bound.as<decltype(from)>()); });
  const std::size_t nnz = std::size_t(A.nnz()), n = std::size_t(A.nrows());
  Buffer rp, ci;
  if (&A == &hold) {
    rp = std::move(hold.row_ptr());
    ci = std::move(hold.col_idx());
  } else {
    rp = Buffer(sizeof(I) * (n + 1), Location::device, &ctx);
    ci = Buffer(sizeof(I) * nnz, Location::device, &ctx);
    RINGBLAS_CUDA_TRY(
        cudaMemcpyAsync(rp.data(), A.row_ptr().data(), rp.size(), cudaMemcpyDeviceToDevice, s));
    if (nnz)
      RINGBLAS_CUDA_TRY(
          cudaMemcpyAsync(ci.data(), A.col_idx().data(), ci.size(), cudaMemcpyDeviceToDevice, s));
  }
  // In place when A's values are ours (each thread reads its entry before writing it).
  Buffer vals =
      &A == &hold ? std::move(hold.values()) : Buffer(sizeof(V) * nnz, Location::device, &ctx);
  const V* x = &A == &hold ? vals.as<V>() : A.values().as<V>();
  if (nnz > 0) {
    k_map<V, I><<<blocks_for(nnz), Policy::block, 0, s>>>(args, map_needs_row(args), I(n), nnz,
                                                          rp.as<I>(), ci.as<I>(), x, vals.as<V>());
    RINGBLAS_CHECK_LAUNCH("k_map", s, ctx.debug_sync);
  }
  return Matrix::from_buffers(Index(n), A.ncols(), A.type(), index_type_of<I>::value, Index(nnz),
                              std::move(rp), std::move(ci), std::move(vals));
}

template <class V, class I>
__global__ void k_select_flags(SelectArgs<V> a, bool needs_row, I nrows, std::size_t nnz,
                               const I* rp, const I* ci, const V* x, I* flags) {
  const std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= nnz) return;
  const std::int64_t i = needs_row ? std::int64_t(row_of(rp, nrows, I(p))) : 0;
  flags[p] = select_keeps(a, x[p], i, std::int64_t(ci[p])) ? I(1) : I(0);
}

template <class V, class I>
Matrix select_typed(const Matrix& A, SelectOpCode op, const Scalar& thunk, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  SelectArgs<V> args{op, thunk.as<std::int64_t>(), V{}};
  // Value predicates compare in A's type, the thunk cast to it with GraphBLAS's rules.
  args.thunk =
      visit_type(thunk.type(), [&](auto from) { return sr::cast<V>(thunk.as<decltype(from)>()); });
  const std::size_t nnz = std::size_t(A.nnz());
  device_array<I> pos(nnz + 1, ctx);
  if (nnz > 0) {
    k_select_flags<V, I><<<blocks_for(nnz), Policy::block, 0, s>>>(
        args, select_is_positional(op), I(A.nrows()), nnz, A.row_ptr().as<I>(), A.col_idx().as<I>(),
        A.values().as<V>(), pos.data());
    RINGBLAS_CHECK_LAUNCH("k_select_flags", s, ctx.debug_sync);
  }
  return compact<V, I>(A, pos, ctx);
}

}  // namespace

Matrix map(const Matrix& a, Matrix& hold, const MapOp& f, const Context& ctx) {
  if (a.location() != Location::device)
    throw InvalidValue("cuda elementwise::map: the operand must be on the device");
  return visit_type(a.type(), [&](auto v) {
    return visit_index_type(a.index_type(), [&](auto i) {
      return map_typed<decltype(v), decltype(i)>(a, hold, f, ctx);
    });
  });
}

Matrix select(const Matrix& A, SelectOpCode op, const Scalar& thunk, const Context& ctx) {
  if (op == SelectOpCode::row_topk || op == SelectOpCode::col_topk)
    throw InvalidValue("cuda elementwise::select: top-k goes through row_topk");
  if (A.location() != Location::device)
    throw InvalidValue("cuda elementwise::select: the operand must be on the device");
  return visit_type(A.type(), [&](auto v) {
    return visit_index_type(A.index_type(), [&](auto i) {
      return select_typed<decltype(v), decltype(i)>(A, op, thunk, ctx);
    });
  });
}

}  // namespace ringblas::cuda::elementwise
