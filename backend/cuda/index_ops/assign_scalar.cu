// cuda executor of the assign of a scalar to a vector (GrB_Vector_assign_Scalar, GrB_ALL) in the
// case a graph algorithm's update takes, w<q> = s with w full (BFS's depth(q) = k + 1): every
// position already has an entry and keeps it, so the result is w with s (or w(i) accum s)
// written at the positions the mask admits -- one kernel over the mask's entries, in place. The
// general composition (a row view of the mask, apply, a union over all of w) reads and writes
// O(size) bytes per call. can_implement_assign (can_implement.cpp) names the cases it takes.
#include <cstdint>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/row_merge.cuh"
#include "backend/cuda/cuda_backend.hpp"
#include "semirings/cast.hpp"

namespace ringblas::cuda {
namespace {

/// w[i] = s, or w[i] accum s, at each mask entry i admitted (a valued mask: nonzero, read as M;
/// mvals null: structural). Mask indices are distinct, so no two threads write one position.
template <class W, class M>
__global__ void assign_scalar_kernel(const std::int64_t* midx, const M* mvals, long long nnz, W s,
                                     int accum, W* w) {
  const long long e = blockIdx.x * 256ll + threadIdx.x;
  if (e >= nnz || (mvals && mvals[e] == M(0))) return;
  const std::int64_t i = midx[e];
  w[i] = accum >= 0 ? binary_op_at<W>(BinaryOpCode(accum), w[i], s, 0, 0, 0, 0) : s;
}

}  // namespace

void assign(Vector& w, const Vector* mask, Accum accum, const Scalar& s, const Descriptor& desc,
            Context& ctx) {
  if (auto why = can_implement_assign(w, mask, accum, desc))
    throw NotImplemented("cuda assign (scalar): " + *why);
  if (ctx.trace)
    ctx.trace_line("assign (scalar): cuda scatter of " + std::to_string(mask->nnz()) +
                   " mask entries into a full w of " + std::to_string(w.size()));
  const long long nnz = mask->nnz();
  if (nnz == 0) return;
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  const unsigned blocks = static_cast<unsigned>((nnz + 255) / 256);
  const int acc = accum ? static_cast<int>(*accum) : -1;
  visit_type(w.type(), [&](auto wz) {
    using W = decltype(wz);
    // s typecast to w's type on the host with GraphBLAS's rules (sr::cast: saturating, NaN to
    // 0), passed by value.
    const W sw = visit_type(s.type(), [&](auto sz) { return sr::cast<W>(s.as<decltype(sz)>()); });
    if (desc.mask_structure) {
      assign_scalar_kernel<W, W><<<blocks, 256, 0, stream>>>(
          mask->indices().as<std::int64_t>(), nullptr, nnz, sw, acc, w.values().as<W>());
    } else {
      visit_type(mask->type(), [&](auto mz) {
        using M = decltype(mz);
        assign_scalar_kernel<W, M><<<blocks, 256, 0, stream>>>(mask->indices().as<std::int64_t>(),
                                                               mask->values().as<M>(), nnz, sw, acc,
                                                               w.values().as<W>());
      });
    }
    RINGBLAS_CHECK_LAUNCH("assign_scalar_kernel", stream, ctx.debug_sync);
  });
}

}  // namespace ringblas::cuda
