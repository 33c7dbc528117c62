// spmm_subwarp kernels and launchers (included only by the generated instantiation units of
// backend/cuda/manifest.def).
// - spmm_csr_kernel: C = A ⊕.⊗ B, A in CSR; thread mapping: a sub-warp of 2^log_sw threads per
//   (row, column chunk), each thread V consecutive columns (RowAgent). Shared memory: none.
//   Output: every element of C written exactly once (no atomics; the identity for empty rows).
// - the nnz-split kernel for skewed row lengths: spmm_nnzsplit_impl.cuh (included below).
// - spmm_coo_kernel: one sub-warp per nonzero (entries in any order, duplicates allowed: each
//   contributes its product), combined into C with the monoid's atomic after C is filled with
//   the identity; the epilogue, if any, runs as a separate pass. Shared memory: none.
// Follows Nagasaka, Nukada, Kojima, Matsuoka, "Batched Sparse Matrix Multiplication for
// Accelerating Graph Convolutional Networks", CCGrid 2019 (sub-warp size = next power of two of
// n_B up to 32; bit operations for the lane and row).
#pragma once
#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/monoid_atomics.cuh"
#include "backend/cuda/spmm_subwarp/spmm_agent.cuh"

namespace ringblas::cuda::detail {

template <class S, int V>
__global__ void __launch_bounds__(SpmmPolicy::block_threads)
    spmm_csr_kernel(SpmmProblem p, DenseView<typename S::value_type> d,
                    Epi<typename S::value_type> ep, int log_sw, int chunk_cols) {
  using T = typename S::value_type;
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const int row = static_cast<int>(t >> log_sw);
  const int lane = static_cast<int>(t & ((1 << log_sw) - 1));
  const int col0 = blockIdx.y * chunk_cols + lane * V;
  if (row >= p.m || col0 >= p.n) return;
  RowAgent<S, V>::run(row, col0, p.row_ptr, p.col_idx, static_cast<const T*>(p.a_values), d, ep);
}

template <class T>
__global__ void fill_dense_kernel(T* c, long long rs, long long cs, int m, int n, T value) {
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (t >= static_cast<long long>(m) * n) return;
  const long long i = t / n, j = t % n;
  c[i * rs + j * cs] = value;
}

template <class T>
__global__ void epilogue_dense_kernel(T* c, long long rs, long long cs, int m, int n, Epi<T> ep) {
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (t >= static_cast<long long>(m) * n) return;
  const long long i = t / n, j = t % n;
  c[i * rs + j * cs] = ep(c[i * rs + j * cs], static_cast<int>(j));
}

template <class S>
__global__ void __launch_bounds__(SpmmPolicy::block_threads)
    spmm_coo_kernel(SpmmProblem p, DenseView<typename S::value_type> d, int log_sw, int chunk_cols) {
  using T = typename S::value_type;
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long e = t >> log_sw;
  const int lane = static_cast<int>(t & ((1 << log_sw) - 1));
  const int col = blockIdx.y * chunk_cols + lane;
  if (e >= p.nnz || col >= p.n) return;
  const int row = p.row_idx ? p.row_idx[e] : row_of_entry(p.row_ptr, p.m, static_cast<int>(e));
  const int k = p.col_idx[e];
  T a{}, b{};
  if constexpr (S::reads_a) a = static_cast<const T*>(p.a_values)[e];
  if constexpr (S::reads_b) b = d.b[k * d.b_rs + col * d.b_cs];
  atomic_combine<typename S::add_monoid>(d.c + row * d.c_rs + col * d.c_cs, S::mul(a, b, row, k, k, col));
}

inline unsigned grid_for(long long threads) {
  return static_cast<unsigned>((threads + SpmmPolicy::block_threads - 1) / SpmmPolicy::block_threads);
}

template <class S> DenseView<typename S::value_type> dense_view(const SpmmProblem& p) {
  using T = typename S::value_type;
  return DenseView<T>{static_cast<const T*>(p.b), p.b_rs, p.b_cs, static_cast<T*>(p.c), p.c_rs, p.c_cs};
}

template <class S>
void spmm_csr_launch(const SpmmProblem& p, const SubwarpShape& shape, void* stream, bool sync) {
  using T = typename S::value_type;
  if (p.m == 0 || p.n == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  const dim3 grid(grid_for(static_cast<long long>(p.m) << shape.log_sw), shape.chunks);
  const Epi<T> ep(p.epilogue);
  if constexpr (vec_width<T>() > 1) {
    if (shape.vec > 1) {
      spmm_csr_kernel<S, vec_width<T>()><<<grid, SpmmPolicy::block_threads, 0, s>>>(
          p, dense_view<S>(p), ep, shape.log_sw, shape.chunk_cols);
      RINGBLAS_CHECK_LAUNCH("spmm_csr_kernel<vec>", s, sync);
      return;
    }
  }
  spmm_csr_kernel<S, 1><<<grid, SpmmPolicy::block_threads, 0, s>>>(p, dense_view<S>(p), ep, shape.log_sw,
                                                                    shape.chunk_cols);
  RINGBLAS_CHECK_LAUNCH("spmm_csr_kernel", s, sync);
}

template <class S>
void spmm_coo_launch(const SpmmProblem& p, const SubwarpShape& shape, void* stream, bool sync) {
  using T = typename S::value_type;
  if (p.m == 0 || p.n == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  const auto d = dense_view<S>(p);
  const long long mn = static_cast<long long>(p.m) * p.n;
  fill_dense_kernel<T><<<grid_for(mn), SpmmPolicy::block_threads, 0, s>>>(d.c, d.c_rs, d.c_cs, p.m, p.n,
                                                                         S::identity());
  RINGBLAS_CHECK_LAUNCH("fill_dense_kernel", s, sync);
  if (p.nnz > 0) {
    const dim3 grid(grid_for(p.nnz << shape.log_sw), shape.chunks);
    spmm_coo_kernel<S><<<grid, SpmmPolicy::block_threads, 0, s>>>(p, d, shape.log_sw, shape.chunk_cols);
    RINGBLAS_CHECK_LAUNCH("spmm_coo_kernel", s, sync);
  }
  const EpilogueArgs& e = p.epilogue;
  if (e.bias || e.relu || e.clamp) {
    epilogue_dense_kernel<T><<<grid_for(mn), SpmmPolicy::block_threads, 0, s>>>(d.c, d.c_rs, d.c_cs, p.m,
                                                                              p.n, Epi<T>(e));
    RINGBLAS_CHECK_LAUNCH("epilogue_dense_kernel", s, sync);
  }
}

}  // namespace ringblas::cuda::detail

#include "backend/cuda/spmm_subwarp/spmm_nnzsplit_impl.cuh"

#define RINGBLAS_INSTANTIATE_SPMM_SUBWARP(SR)                                                  \
  template void ringblas::cuda::detail::spmm_csr_launch<SR>(                                   \
      const ringblas::cuda::detail::SpmmProblem&, const ringblas::cuda::detail::SubwarpShape&, \
      void*, bool);                                                                            \
  template void ringblas::cuda::detail::spmm_nnzsplit_launch<SR>(                              \
      const ringblas::cuda::detail::SpmmProblem&, const ringblas::cuda::detail::SubwarpShape&, \
      int, bool, void*, bool, const ringblas::cuda::detail::NnzsplitOptions&);                 \
  template void ringblas::cuda::detail::spmm_coo_launch<SR>(                                   \
      const ringblas::cuda::detail::SpmmProblem&, const ringblas::cuda::detail::SubwarpShape&, \
      void*, bool);
