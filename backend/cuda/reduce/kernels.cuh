// Thin kernels of the reduce family. Thread mapping: one thread per output position
// (identity fill), a group of W lanes per row (policy::row_subwarp, or a warp for long rows: each
// lane folds a strided part of the row, then cub::WarpReduce; CUB's temporary storage for the
// group reduction is the only shared memory), or one thread per A entry in a grid-stride
// loop (column atomics). Column atomics use backend/cuda/common/monoid_atomics.cuh, so float sums
// come in an unspecified order and `any` keeps one of the offered values.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/warp/warp_reduce.cuh>

#include "backend/cuda/common/monoid_atomics.cuh"
#include "ringblas/codes.hpp"
#include "ringblas/types.hpp"

namespace ringblas::cuda::reduction {

template <class T>
__global__ void k_fill(Index n, T value, T* out) {
  const Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

/// out[r] = ⊕ of row r (identity when empty), present[r] = row r non-empty; W lanes per row.
template <class Monoid, class T, class I, int W, int Block>
__global__ void __launch_bounds__(Block)
    k_rows_subwarp(Index n, const I* rp, const T* v, T* out, unsigned char* present) {
  using warp_reduce = cub::WarpReduce<T, W>;
  __shared__ typename warp_reduce::TempStorage tmp[Block / W];
  const int group = threadIdx.x / W, lane = threadIdx.x % W;
  const Index r = (Index(blockIdx.x) * Block + threadIdx.x) / W;
  if (r >= n) return;  // whole sub-warps leave together
  const I b = rp[r], e = rp[r + 1];
  if constexpr (Monoid::code == MonoidCode::any) {
    // any keeps the first value (a fold from the identity would keep the identity).
    if (lane == 0) {
      out[r] = e > b ? v[b] : Monoid::identity();
      present[r] = e > b ? 1 : 0;
    }
    return;
  }
  T x = Monoid::identity();
  // Unrolled so that several loads of the row are in flight before the first fold uses one.
#pragma unroll 4
  for (I p = b + lane; p < e; p += W) x = Monoid{}(x, v[p]);
  x = warp_reduce(tmp[group]).Reduce(x, Monoid{});
  if (lane == 0) {
    // A row of one entry reduces to that entry, unfolded (GraphBLAS; lor on 5.0 stays 5.0).
    out[r] = e - b == 1 ? v[b] : x;
    present[r] = e > b ? 1 : 0;
  }
}

/// t[ci[p]] = t[ci[p]] ⊕ v[p] for every entry p, and present[ci[p]] = 1.
template <class Monoid, class T, class I>
__global__ void k_cols_atomic(std::int64_t nnz, const I* ci, const T* v, T* t,
                              unsigned char* present) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
#pragma unroll 4
  for (std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < nnz; p += stride) {
    const I j = ci[p];
    detail::atomic_combine<Monoid>(&t[j], v[p]);
    // Read before writing: a column's later entries find the flag set and store nothing (one
    // byte store per column instead of one per entry; concurrent first stores all write 1).
    if (!present[j]) present[j] = 1;
  }
}

}  // namespace ringblas::cuda::reduction
