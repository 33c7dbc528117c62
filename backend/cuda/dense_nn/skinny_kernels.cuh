// The skinny GEMM kernels of dense_nn (skinny_gemm.hpp), fp32 row-major, each with an optional
// dropout of A applied as it is read (DropoutMask; drop false for a plain product):
// - skinny_nn_kernel: C = alpha · A · B, B (k x n, n <= NMax) in shared memory with an odd row
//   stride (a warp's lanes read k = lane + 32t of one column without bank conflicts). A warp
//   takes R rows at a time: lane l reads A(i, l + 32t) (coalesced), accumulates NMax partial
//   sums per row, and the warp reduces them with a butterfly that leaves each column's total in
//   one lane (NMax - 1 + log2(32/NMax) shuffles per row). Shared memory k·stride floats.
// - skinny_tn_kernel: partial(b) = Aᵀ · B over the rows block b visits (tiles of skinny_tn_tile
//   rows, grid-stride); thread j owns column j of A (blockIdx.y chunks of blockDim.x columns)
//   and NMax sums; the tile's rows of B are staged in shared memory (read as broadcasts).
//   skinny_tn_reduce_kernel adds the blocks' partials in a fixed order (no atomics).
#pragma once
#include <cstdint>

#include "backend/cuda/dense_nn/dropout_mask.cuh"
#include "backend/cuda/dense_nn/policy.hpp"

namespace ringblas::cuda::dense_nn {

/// One butterfly step: lanes pair up across offset o = Half·(32/NMax); the upper lane keeps and
/// receives the upper Half values, the lower lane the lower ones (v[0..Half) then hold the
/// pair's sums); then the next step on those Half values.
template <int NMax, int Half>
__device__ __forceinline__ void reduce_halves(float (&v)[NMax], int lane, int& col) {
  if constexpr (Half >= 1) {
    constexpr int o = Half * (32 / NMax);
    const bool upper = lane & o;
#pragma unroll
    for (int t = 0; t < Half; ++t) {
      const float send = upper ? v[t] : v[t + Half];
      const float keep = upper ? v[t + Half] : v[t];
      v[t] = keep + __shfl_xor_sync(0xffffffffu, send, o);
    }
    if (upper) col += Half;
    reduce_halves<NMax, Half / 2>(v, lane, col);
  }
}

/// Sum over the warp of v[col] for the column col this lane ends up owning (returned in col);
/// every lane's v is clobbered. Lanes with lane % (32 / NMax) == 0 own distinct columns.
template <int NMax>
__device__ __forceinline__ float warp_reduce_scatter(float (&v)[NMax], int lane, int& col) {
  static_assert(NMax == 16 || NMax == 32, "NMax is 16 or 32");
  col = 0;
  reduce_halves<NMax, NMax / 2>(v, lane, col);
  if constexpr (NMax == 16) v[0] += __shfl_xor_sync(0xffffffffu, v[0], 1);  // 2l, 2l+1 agree
  return v[0];
}

template <int NMax, int R>
__global__ void skinny_nn_kernel(float* __restrict__ c, const float* __restrict__ a,
                                 const float* __restrict__ b, std::int64_t m, int k, int n,
                                 int stride, float alpha, DropoutMask mask) {
  extern __shared__ float bs[];  // k x stride
  for (int e = threadIdx.x; e < k * n; e += blockDim.x) bs[(e / n) * stride + e % n] = b[e];
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t step = std::int64_t(gridDim.x) * Policy::skinny_warps * R;
  for (std::int64_t i0 = (std::int64_t(blockIdx.x) * Policy::skinny_warps + warp) * R; i0 < m;
       i0 += step) {
    float acc[R][NMax];
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
      for (int q = 0; q < NMax; ++q) acc[r][q] = 0.0f;
#pragma unroll 2
    for (int kk = lane; kk < k; kk += 32) {  // unrolled: several rows' loads in flight
      float av[R];
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const std::int64_t e = (i0 + r) * k + kk;
        av[r] = i0 + r < m ? mask(a[e], std::uint64_t(e)) : 0.0f;
      }
      const float* brow = bs + kk * stride;
#pragma unroll
      for (int q = 0; q < NMax; ++q) {
        const float bv = q < n ? brow[q] : 0.0f;
#pragma unroll
        for (int r = 0; r < R; ++r) acc[r][q] = fmaf(av[r], bv, acc[r][q]);
      }
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      int col = 0;
      const float sum = warp_reduce_scatter<NMax>(acc[r], lane, col);
      if (lane % (32 / NMax) == 0 && col < n && i0 + r < m) c[(i0 + r) * n + col] = alpha * sum;
    }
  }
}

template <int NMax>
__global__ void skinny_tn_kernel(float* __restrict__ partial, const float* __restrict__ a,
                                 const float* __restrict__ b, std::int64_t m, int k, int n,
                                 DropoutMask mask) {
  constexpr int T = Policy::skinny_tn_tile;
  __shared__ float bs[T][NMax];
  const int j = blockIdx.y * blockDim.x + threadIdx.x;
  float acc[NMax];
#pragma unroll
  for (int q = 0; q < NMax; ++q) acc[q] = 0.0f;
  for (std::int64_t r0 = std::int64_t(blockIdx.x) * T; r0 < m; r0 += std::int64_t(gridDim.x) * T) {
    __syncthreads();  // the previous tile's readers are done
    for (int e = threadIdx.x; e < T * NMax; e += blockDim.x) {
      const int r = e / NMax, q = e % NMax;
      bs[r][q] = (r0 + r < m && q < n) ? b[(r0 + r) * n + q] : 0.0f;
    }
    __syncthreads();
    if (j >= k) continue;
    const int rows = m - r0 < T ? int(m - r0) : T;
#pragma unroll 8
    for (int r = 0; r < rows; ++r) {
      const std::int64_t e = (r0 + r) * k + j;
      const float av = mask(a[e], std::uint64_t(e));
#pragma unroll
      for (int q = 0; q < NMax; ++q) acc[q] = fmaf(av, bs[r][q], acc[q]);
    }
  }
  if (j >= k) return;
  float* out = partial + (std::int64_t(blockIdx.x) * k + j) * n;
#pragma unroll
  for (int q = 0; q < NMax; ++q)
    if (q < n) out[q] = acc[q];
}

/// c(e) = alpha · Σ_b partial(b, e), e < count = k·n, blocks in order.
__global__ void skinny_tn_reduce_kernel(float* c, const float* partial, int blocks,
                                        std::int64_t count, float alpha) {
  const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= count) return;
  float s = 0.0f;
  for (int q = 0; q < blocks; ++q) s += partial[std::int64_t(q) * count + e];
  c[e] = alpha * s;
}

}  // namespace ringblas::cuda::dense_nn
