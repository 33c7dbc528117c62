// spmm_batched kernels and launchers (included only by the generated instantiation units of
// backend/cuda/manifest.def): one launch computes C[b] = A[b] ⊕.⊗ B[b] for a whole batch of
// small matrices of different sizes.
// - spmm_batched_csr_kernel: the row-per-sub-warp mapping of spmm_subwarp (RowAgent) over a flat
//   grid of row blocks: item b owns blocks [block_offsets[b], block_offsets[b+1]), found by a
//   binary search, so no block idles on an item smaller than the largest (the paper launches
//   max m_A blocks per item instead). Column chunks on grid y. Shared memory: none.
// - spmm_batched_coo_kernel: the paper's COO kernel: one block per (item, column block), one
//   sub-warp per nonzero, products combined with the monoid's shared-memory atomic into a
//   m_b x col_block tile initialized to the identity (which replaces a zero-fill launch), then
//   written to C with the epilogue. Shared memory: max_m * col_block values; col_block is chosen
//   once for the batch from its largest item (the paper's cache blocking).
// Output: every element of every C[b] written exactly once per launch.
// Follows Nagasaka et al., CCGrid 2019.
#pragma once
#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/monoid_atomics.cuh"
#include "backend/cuda/spmm_subwarp/spmm_agent.cuh"

namespace ringblas::cuda::detail {

template <class S, int V>
__global__ void __launch_bounds__(SpmmPolicy::block_threads)
    spmm_batched_csr_kernel(BatchedProblem p, Epi<typename S::value_type> ep, int log_sw,
                            int chunk_cols) {
  using T = typename S::value_type;
  const int block = static_cast<int>(blockIdx.x);
  int lo = 0, hi = p.batch - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (p.block_offsets[mid] <= block) lo = mid;
    else hi = mid - 1;
  }
  const BatchItem it = p.items[lo];
  const int t = (block - p.block_offsets[lo]) * SpmmPolicy::block_threads + threadIdx.x;
  const int row = t >> log_sw;
  const int col0 = blockIdx.y * chunk_cols + (t & ((1 << log_sw) - 1)) * V;
  if (row >= it.m || col0 >= p.n) return;
  const DenseView<T> d{static_cast<const T*>(it.b), it.b_rs, it.b_cs, static_cast<T*>(it.c), it.c_rs, it.c_cs};
  RowAgent<S, V>::run(row, col0, it.row_ptr, it.col_idx, static_cast<const T*>(it.a_values), d, ep);
}

template <class S>
__global__ void __launch_bounds__(SpmmPolicy::block_threads)
    spmm_batched_coo_kernel(BatchedProblem p, Epi<typename S::value_type> ep, int col_block, int log_sw) {
  using T = typename S::value_type;
  extern __shared__ __align__(16) unsigned char tile_bytes[];
  T* tile = reinterpret_cast<T*>(tile_bytes);
  const BatchItem it = p.items[blockIdx.x];
  const int c0 = blockIdx.y * col_block;
  const int nc = min(col_block, p.n - c0);
  if (nc <= 0 || it.m == 0) return;  // uniform across the block: no barrier is skipped by some
  const int cells = it.m * nc;
  for (int x = threadIdx.x; x < cells; x += blockDim.x) tile[x] = S::identity();
  __syncthreads();
  const int sw = 1 << log_sw;
  const int lane = threadIdx.x & (sw - 1);
  const int groups = blockDim.x >> log_sw;
  const T* av = static_cast<const T*>(it.a_values);
  const T* b = static_cast<const T*>(it.b);
  for (int e = threadIdx.x >> log_sw; e < it.nnz; e += groups) {
    const int row = row_of_entry(it.row_ptr, it.m, e);
    const int k = it.col_idx[e];
    T a{};
    if constexpr (S::reads_a) a = av[e];
    for (int j = lane; j < nc; j += sw) {
      T bv{};
      if constexpr (S::reads_b) bv = b[k * it.b_rs + (c0 + j) * it.b_cs];
      atomic_combine<typename S::add_monoid>(tile + row * nc + j, S::mul(a, bv, row, k, k, c0 + j));
    }
  }
  __syncthreads();
  T* c = static_cast<T*>(it.c);
  for (int x = threadIdx.x; x < cells; x += blockDim.x) {
    const int r = x / nc, j = x - r * nc;
    c[r * it.c_rs + (c0 + j) * it.c_cs] = ep(tile[x], c0 + j);
  }
}

template <class S>
void spmm_batched_csr_launch(const BatchedProblem& p, const SubwarpShape& shape, void* stream, bool sync) {
  using T = typename S::value_type;
  if (p.total_blocks == 0 || p.n == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  const dim3 grid(static_cast<unsigned>(p.total_blocks), shape.chunks);
  const Epi<T> ep(p.epilogue);
  if constexpr (vec_width<T>() > 1) {
    if (shape.vec > 1) {
      spmm_batched_csr_kernel<S, vec_width<T>()><<<grid, SpmmPolicy::block_threads, 0, s>>>(
          p, ep, shape.log_sw, shape.chunk_cols);
      RINGBLAS_CHECK_LAUNCH("spmm_batched_csr_kernel<vec>", s, sync);
      return;
    }
  }
  spmm_batched_csr_kernel<S, 1><<<grid, SpmmPolicy::block_threads, 0, s>>>(p, ep, shape.log_sw,
                                                                          shape.chunk_cols);
  RINGBLAS_CHECK_LAUNCH("spmm_batched_csr_kernel", s, sync);
}

template <class S>
void spmm_batched_coo_launch(const BatchedProblem& p, int col_block, void* stream, bool sync) {
  using T = typename S::value_type;
  if (p.batch == 0 || p.n == 0 || p.max_m == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  int log_sw = 0;
  while ((1 << log_sw) < col_block && (1 << log_sw) < SpmmPolicy::max_subwarp) ++log_sw;
  const dim3 grid(static_cast<unsigned>(p.batch), static_cast<unsigned>((p.n + col_block - 1) / col_block));
  // Rounded up: 1-byte values are updated through the 4-byte word that holds them.
  const std::size_t smem = (static_cast<std::size_t>(p.max_m) * col_block * sizeof(T) + 15) / 16 * 16;
  spmm_batched_coo_kernel<S><<<grid, SpmmPolicy::block_threads, smem, s>>>(p, Epi<T>(p.epilogue), col_block,
                                                                          log_sw);
  RINGBLAS_CHECK_LAUNCH("spmm_batched_coo_kernel", s, sync);
}

}  // namespace ringblas::cuda::detail

#define RINGBLAS_INSTANTIATE_SPMM_BATCHED(SR)                                                      \
  template void ringblas::cuda::detail::spmm_batched_csr_launch<SR>(                               \
      const ringblas::cuda::detail::BatchedProblem&, const ringblas::cuda::detail::SubwarpShape&, \
      void*, bool);                                                                                \
  template void ringblas::cuda::detail::spmm_batched_coo_launch<SR>(                               \
      const ringblas::cuda::detail::BatchedProblem&, int, void*, bool);
