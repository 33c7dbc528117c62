// Compaction of a CSR matrix by per-entry keep flags (select and top-k): an exclusive scan (CUB)
// of the flags gives each kept entry's output position, and read at the row starts the output
// row pointers; one thread per entry scatters. Rows stay in column order.
#pragma once
#include <cstddef>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/elementwise/launch.cuh"
#include "ringblas/matrix.hpp"

namespace ringblas::cuda::elementwise {

template <class V, class I>
__global__ void k_compact_scatter(std::size_t nnz, const I* pos, const I* ci, const V* x, I* o_ci,
                                  V* o_v) {
  const std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= nnz) return;
  const I q = pos[p];
  if (pos[p + 1] != q) {
    o_ci[q] = ci[p];
    o_v[q] = x[p];
  }
}

template <class I>
__global__ void k_compact_row_ptr(std::size_t nrows, const I* rp, const I* pos, I* out_rp) {
  const std::size_t r = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r <= nrows) out_rp[r] = pos[rp[r]];
}

/// The entries p of A (device) with flag pos[p] = 1 (pos has nnz + 1 slots; overwritten).
template <class V, class I>
Matrix compact(const Matrix& A, device_array<I>& pos, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const std::size_t nnz = std::size_t(A.nnz()), n = std::size_t(A.nrows());
  RINGBLAS_CUDA_TRY(cudaMemsetAsync(pos.data() + nnz, 0, sizeof(I), s));
  const I kept = exclusive_scan_total(pos.data(), nnz + 1, ctx);
  device_array<I> rp(n + 1, ctx), ci(std::size_t(kept), ctx);
  device_array<V> vals(std::size_t(kept), ctx);
  k_compact_row_ptr<I>
      <<<blocks_for(n + 1), Policy::block, 0, s>>>(n, A.row_ptr().as<I>(), pos.data(), rp.data());
  RINGBLAS_CHECK_LAUNCH("k_compact_row_ptr", s, ctx.debug_sync);
  if (kept > 0) {
    k_compact_scatter<V, I><<<blocks_for(nnz), Policy::block, 0, s>>>(
        nnz, pos.data(), A.col_idx().as<I>(), A.values().as<V>(), ci.data(), vals.data());
    RINGBLAS_CHECK_LAUNCH("k_compact_scatter", s, ctx.debug_sync);
  }
  return Matrix::from_buffers(Index(n), A.ncols(), A.type(), index_type_of<I>::value, Index(kept),
                              rp.release(), ci.release(), vals.release());
}

}  // namespace ringblas::cuda::elementwise
