// The fused dense_nn kernels of a hidden layer (include/ringblas/nn.hpp), fp32, row-major:
// - bias_relu_dropout: H = dropout(max(H + b, 0)) in place, one element per thread (4 with float4
//   loads when the row length allows), grid-stride; no shared memory. The generator runs only for
//   positive values (a zero stays zero either way).
// - linear_backward: G = dropout(D·Wᵀ) ⊙ (Y > 0) and per-block column sums of G. A warp computes
//   Policy::fused_rows rows at once, its lanes striding over the columns two at a time (coalesced
//   G and Y, whose loads are all issued before the first store);
//   D's rows sit in registers (KMax of them, zero-padded), Wᵀ in shared memory (KMax x m floats,
//   each value read once for fused_rows rows), plus one row of column sums per warp (m floats).
//   KMax = 0: the product is already in G (cuBLAS), the kernel applies the masks only. Each block
//   writes its column sums to partial[blockIdx.x] (no atomics: column_partials_kernel adds the
//   blocks in a fixed order).
// The dropout mask is backend/core/nn_counter_rng.hpp's, as in dropout_kernel and the cpu loops.
#pragma once
#include <cstdint>

#include "backend/cuda/dense_nn/dropout_mask.cuh"
#include "backend/cuda/dense_nn/policy.hpp"

namespace ringblas::cuda::dense_nn {

__device__ inline float bias_relu_drop(float h, float b, const DropoutMask& m, std::uint64_t e) {
  const float r = fmaxf(h + b, 0.0f);
  return r > 0.0f ? m(r, e) : 0.0f;
}

__global__ void bias_relu_dropout_kernel(float* h, const float* b, std::size_t n, std::int64_t cols,
                                         DropoutMask m) {
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < n;
       e += std::size_t(gridDim.x) * blockDim.x)
    h[e] = bias_relu_drop(h[e], b[e % std::size_t(cols)], m, e);
}

/// The same four elements a thread (cols % 4 == 0, h 16-byte aligned: a float4 stays in a row).
__global__ void bias_relu_dropout4_kernel(float4* h, const float* b, std::size_t n4,
                                          std::int64_t cols, DropoutMask m) {
  for (std::size_t q = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; q < n4;
       q += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t e = 4 * q;
    const std::size_t j = e % std::size_t(cols);
    float4 v = h[q];
    v.x = bias_relu_drop(v.x, b[j], m, e);
    v.y = bias_relu_drop(v.y, b[j + 1], m, e + 1);
    v.z = bias_relu_drop(v.z, b[j + 2], m, e + 2);
    v.w = bias_relu_drop(v.w, b[j + 3], m, e + 3);
    h[q] = v;
  }
}

/// g: n x m (the output; with KMax == 0 it holds D·Wᵀ already), d: n x k, w: m x k, y: n x m or
/// nullptr, partial: gridDim.x x m column sums or nullptr. Dynamic shared memory: KMax·m floats
/// (Wᵀ, zero-padded rows t >= k) then fused_warps·m floats when partial is set.
template <int KMax>
__global__ void linear_backward_kernel(float* __restrict__ g, float* __restrict__ partial,
                                       const float* __restrict__ d, const float* __restrict__ w,
                                       const float* __restrict__ y, std::int64_t n, int m, int k,
                                       DropoutMask mask) {
  // Rows a warp takes at once: fewer with 32 D columns a row (registers).
  constexpr int R = KMax > 16 ? Policy::fused_rows / 2 : Policy::fused_rows;
  constexpr int J = 2;  // columns a lane takes per step: all R·J loads of Y issued together
  extern __shared__ float smem[];
  float* wt = smem;
  float* sums = smem + KMax * m;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int e = threadIdx.x; e < KMax * m; e += blockDim.x) {
    const int t = e / m, j = e % m;
    wt[e] = t < k ? w[std::int64_t(j) * k + t] : 0.0f;
  }
  if (partial)
    for (int e = threadIdx.x; e < Policy::fused_warps * m; e += blockDim.x) sums[e] = 0.0f;
  __syncthreads();
  float* my_sums = sums + warp * m;
  const std::int64_t step = std::int64_t(gridDim.x) * Policy::fused_warps * R;
  for (std::int64_t i0 = (std::int64_t(blockIdx.x) * Policy::fused_warps + warp) * R; i0 < n;
       i0 += step) {
    float dv[R][KMax > 0 ? KMax : 1];
    if constexpr (KMax > 0) {
#pragma unroll
      for (int r = 0; r < R; ++r)
#pragma unroll
        for (int t = 0; t < KMax; ++t)
          dv[r][t] = (t < k && i0 + r < n) ? d[(i0 + r) * k + t] : 0.0f;
    }
    for (int jb = 0; jb < m; jb += 32 * J) {
      // Loads first (Y, or G's product for KMax == 0), then the products, masks and stores.
      float in[J][R];
#pragma unroll
      for (int q = 0; q < J; ++q) {
        const int j = jb + q * 32 + lane;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const bool ok = j < m && i0 + r < n;
          const std::int64_t e = (i0 + r) * m + j;
          if constexpr (KMax > 0)
            in[q][r] = ok && y ? y[e] : 1.0f;
          else
            in[q][r] = ok ? g[e] : 0.0f;
        }
      }
      float yv[J][R];
      if constexpr (KMax == 0) {
#pragma unroll
        for (int q = 0; q < J; ++q)
#pragma unroll
          for (int r = 0; r < R; ++r) {
            const int j = jb + q * 32 + lane;
            const std::int64_t e = (i0 + r) * m + j;
            yv[q][r] = y && j < m && i0 + r < n ? y[e] : 1.0f;
          }
      }
#pragma unroll
      for (int q = 0; q < J; ++q) {
        const int j = jb + q * 32 + lane;
        if (j >= m) break;
        float acc[R];
#pragma unroll
        for (int r = 0; r < R; ++r) acc[r] = KMax > 0 ? 0.0f : in[q][r];
        if constexpr (KMax > 0) {
#pragma unroll
          for (int t = 0; t < KMax; ++t) {
            const float wv = wt[t * m + j];
#pragma unroll
            for (int r = 0; r < R; ++r) acc[r] = fmaf(dv[r][t], wv, acc[r]);
          }
        }
        float col = 0.0f;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const std::int64_t i = i0 + r;
          if (i >= n) break;
          const std::int64_t e = i * m + j;
          const float yr = KMax > 0 ? in[q][r] : yv[q][r];
          const float v = !(yr > 0.0f) ? 0.0f : mask(acc[r], std::uint64_t(e));
          g[e] = v;
          col += v;
        }
        if (partial) my_sums[j] += col;
      }
    }
  }
  if (!partial) return;
  __syncthreads();
  for (int j = threadIdx.x; j < m; j += blockDim.x) {
    float s = 0.0f;
    for (int q = 0; q < Policy::fused_warps; ++q) s += sums[q * m + j];
    partial[std::int64_t(blockIdx.x) * m + j] = s;
  }
}

/// dense_layer_backward in one pass over X (n x m; x_dropped: X is already dropped, see nn.hpp):
/// thread a owns column a of X (blockIdx.y chunks of blockDim.x columns) with W's row a and its
/// KMax sums of dW(a, :) in registers; rows in tiles of T, the tile's rows of D staged in shared
/// memory (read as broadcasts). Per element: one draw of the mask, which drops X for dW and the
/// gradient for G. Each block writes its dW and column-sum partials (dw_partial[b][a][0..k),
/// s_partial[b][a]); column_partials_kernel adds the blocks.
template <int KMax>
__global__ void layer_backward_kernel(float* __restrict__ g, float* __restrict__ dw_partial,
                                      float* __restrict__ s_partial, const float* __restrict__ x,
                                      const float* __restrict__ d, const float* __restrict__ w,
                                      std::int64_t n, int m, int k, bool relu, bool x_dropped,
                                      DropoutMask mask) {
  constexpr int T = Policy::layer_tile;
  __shared__ float ds[T][KMax];
  const int a = blockIdx.y * blockDim.x + threadIdx.x;
  float wr[KMax], acc[KMax];
#pragma unroll
  for (int c = 0; c < KMax; ++c) {
    wr[c] = a < m && c < k ? w[std::int64_t(a) * k + c] : 0.0f;
    acc[c] = 0.0f;
  }
  const float scale = mask.drop ? mask.scale : 1.0f;
  float colsum = 0.0f;
  for (std::int64_t r0 = std::int64_t(blockIdx.x) * T; r0 < n; r0 += std::int64_t(gridDim.x) * T) {
    __syncthreads();  // the previous tile's readers are done
    for (int e = threadIdx.x; e < T * KMax; e += blockDim.x) {
      const int r = e / KMax, c = e % KMax;
      ds[r][c] = r0 + r < n && c < k ? d[(r0 + r) * k + c] : 0.0f;
    }
    __syncthreads();
    if (a >= m) continue;
    const int rows = n - r0 < T ? int(n - r0) : T;
    // U rows' loads of X issued together before any of their stores (memory-level parallelism:
    // one load in flight a thread left this pass latency-bound, 1.3 ms for 2 GB on an H100).
    constexpr int U = Policy::layer_unroll;
    for (int r = 0; r < rows; r += U) {
      float xs[U];
#pragma unroll
      for (int u = 0; u < U; ++u) xs[u] = r + u < rows ? x[(r0 + r + u) * m + a] : 0.0f;
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (r + u >= rows) break;
        const std::int64_t e = (r0 + r + u) * m + a;
        const float xv = xs[u];
        // x_dropped: X is dropped already; with relu its zeros carry the mask (no draw), without
        // it (a MaxK layer's output, whose zeros may be values) the mask is drawn for G.
        const bool keep =
            (x_dropped && relu) || !mask.drop ||
            ringblas::detail::keyed_uniform(mask.key, std::uint64_t(e)) >= mask.threshold;
        const float dropped = x_dropped ? xv : keep ? xv * scale : 0.0f;
        float dot = 0.0f;
#pragma unroll
        for (int c = 0; c < KMax; ++c) {
          const float dc = ds[r + u][c];
          acc[c] = fmaf(dropped, dc, acc[c]);
          dot = fmaf(dc, wr[c], dot);
        }
        const float gv = keep && (!relu || xv > 0.0f) ? dot * scale : 0.0f;
        g[e] = gv;
        colsum += gv;
      }
    }
  }
  if (a >= m) return;
  float* out = dw_partial + (std::int64_t(blockIdx.x) * m + a) * k;
#pragma unroll
  for (int c = 0; c < KMax; ++c)
    if (c < k) out[c] = acc[c];
  if (s_partial) s_partial[std::int64_t(blockIdx.x) * m + a] = colsum;
}

/// out(j) = Σ_b partial(b, j) over `blocks` rows, in order (one thread per column).
__global__ void column_partials_kernel(float* out, const float* partial, int blocks, int m) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  float s = 0.0f;
  for (int b = 0; b < blocks; ++b) s += partial[std::int64_t(b) * m + j];
  out[j] = s;
}

}  // namespace ringblas::cuda::dense_nn
