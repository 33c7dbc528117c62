// Warp-level device code of the maxk family (MaxK-GNN, Peng et al., ASPLOS 2024). One warp owns
// one row; nothing here knows the public API. Included by topk.cu, forward.cu and backward.cu.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/maxk/policy.hpp"

namespace ringblas::cuda::maxk {

constexpr unsigned kFull = 0xffffffffu;

/// Order-preserving map of a float to an unsigned key (IEEE-754 totalOrder): larger key, larger
/// value; -0 < +0; NaNs at the ends by sign. The host path uses the same map (cpu_maxk.cpp).
__device__ __forceinline__ unsigned order_key(float v) {
  const unsigned b = __float_as_uint(v);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

__device__ __forceinline__ unsigned lanes_below(int lane) { return (1u << lane) - 1u; }

/// Top-k of one row of h <= 256 values held 8 per lane (column r*32 + lane in slot r): the k-th
/// largest key T is found bit by bit from the top (32 warp-wide counts of keys >= candidate); the
/// row's selection is every key > T and the first (k - #greater) keys == T by column. Writes the
/// selection in increasing column order to vals/idx (k each).
__device__ __forceinline__ void warp_topk(const float* row, int h, int k, int lane, float* vals,
                                          std::uint8_t* idx) {
  constexpr int P = Policy::topk_per_lane;
  float v[P];
  unsigned key[P];
#pragma unroll
  for (int r = 0; r < P; ++r) {
    const int c = r * 32 + lane;
    v[r] = c < h ? row[c] : 0.0f;
    key[r] = order_key(v[r]);
  }
  unsigned t = 0;
  if (k < h) {
    for (int bit = 31; bit >= 0; --bit) {
      const unsigned cand = t | (1u << bit);
      unsigned n = 0;
#pragma unroll
      for (int r = 0; r < P; ++r) n += (r * 32 + lane < h && key[r] >= cand) ? 1u : 0u;
      if (int(__reduce_add_sync(kFull, n)) >= k) t = cand;
    }
  }
  // Keys > t are all taken; of the keys == t the ones at the smallest columns fill the rest.
  unsigned gt = 0;
#pragma unroll
  for (int r = 0; r < P; ++r) gt += (r * 32 + lane < h && key[r] > t) ? 1u : 0u;
  const int need_eq = k - int(__reduce_add_sync(kFull, gt));
  int base = 0, eq_seen = 0;
  const unsigned below = lanes_below(lane);
#pragma unroll
  for (int r = 0; r < P; ++r) {
    const int c = r * 32 + lane;
    const bool valid = c < h;
    const bool eq = valid && key[r] == t;
    const unsigned eq_mask = __ballot_sync(kFull, eq);
    const bool sel = (valid && key[r] > t) || (eq && eq_seen + __popc(eq_mask & below) < need_eq);
    const unsigned sel_mask = __ballot_sync(kFull, sel);
    if (sel) {
      const int pos = base + __popc(sel_mask & below);
      vals[pos] = v[r];
      idx[pos] = std::uint8_t(c);
    }
    base += __popc(sel_mask);
    eq_seen += __popc(eq_mask);
  }
}

/// Forward, row i: buf[0..h) = Σ_j A(i,j) X(j,:) with X in CBSR, accumulated in the warp's
/// shared-memory row by shared atomics (MaxK-GNN's sparse output buffer). A's edges are loaded
/// 32 at a time, one per lane, and broadcast by shuffles. For k <= 32 the warp takes 32/k edges
/// per step (lane = edge slot * k + t); for k > 32 one edge per step, t = lane, lane+32, ...
/// Unrolled so that Policy::unroll gathers of X are in flight before their atomics.
__device__ __forceinline__ void warp_forward_row(const int* col, const float* av, int begin,
                                                 int end, const float* xv,
                                                 const std::uint8_t* xi, int k, float* buf,
                                                 int lane) {
  constexpr int U = Policy::unroll;
  const int per = k <= 32 ? 32 / k : 1;  // edges per step
  const int slot = k <= 32 ? lane / k : 0;
  const int t0 = k <= 32 ? lane % k : lane;
  const bool active = slot < per;
  for (int chunk = begin; chunk < end; chunk += 32) {
    const int m = min(32, end - chunk);
    const int my_j = lane < m ? col[chunk + lane] : 0;
    const float my_a = lane < m ? av[chunk + lane] : 0.0f;
    if (k <= 32) {
      for (int s = 0; s < m; s += U * per) {
        float pv[U];
        int pi[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int e = s + u * per + slot;
          const int j = __shfl_sync(kFull, my_j, e & 31);
          const float a = __shfl_sync(kFull, my_a, e & 31);
          pi[u] = -1;
          if (active && e < m) {
            const long long q = (long long)j * k + t0;
            pv[u] = a * xv[q];
            pi[u] = xi[q];
          }
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (pi[u] >= 0) atomicAdd(&buf[pi[u]], pv[u]);
      }
    } else {
      constexpr int Q = 256 / 32;  // k <= 256: at most 8 entries per lane
      for (int e = 0; e < m; ++e) {
        const int j = __shfl_sync(kFull, my_j, e);
        const float a = __shfl_sync(kFull, my_a, e);
        const long long row = (long long)j * k;
        float pv[Q];
        int pi[Q];
#pragma unroll
        for (int q = 0; q < Q; ++q) {
          const int t = t0 + q * 32;
          pi[q] = -1;
          if (t < k) {
            pv[q] = a * xv[row + t];
            pi[q] = xi[row + t];
          }
        }
#pragma unroll
        for (int q = 0; q < Q; ++q)
          if (pi[q] >= 0) atomicAdd(&buf[pi[q]], pv[q]);
      }
    }
  }
}

/// Backward, row i of A (outer product): with buf = B(i, :) in shared memory, every edge A(i,j)
/// adds A(i,j) * B(i, idx_j[t]) to C(j, t) for the k positions of row j of C, by global atomics:
/// summed over i this is (Aᵀ ⊕.⊗ B)(j, idx_j[t]), sampled at C's pattern (MaxK-GNN's SSpMM).
/// Lanes map to (edge slot, t) as in warp_forward_row.
__device__ __forceinline__ void warp_backward_row(const int* col, const float* av, int begin,
                                                  int end, const std::uint8_t* ci, int k,
                                                  const float* buf, float* cv, int lane) {
  constexpr int U = Policy::unroll;
  const int per = k <= 32 ? 32 / k : 1;
  const int slot = k <= 32 ? lane / k : 0;
  const int t0 = k <= 32 ? lane % k : lane;
  const bool active = slot < per;
  for (int chunk = begin; chunk < end; chunk += 32) {
    const int m = min(32, end - chunk);
    const int my_j = lane < m ? col[chunk + lane] : 0;
    const float my_a = lane < m ? av[chunk + lane] : 0.0f;
    for (int s = 0; s < m; s += (k <= 32 ? U * per : 1)) {
      if (k <= 32) {
        float pv[U];
        long long pq[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int e = s + u * per + slot;
          const int j = __shfl_sync(kFull, my_j, e & 31);
          const float a = __shfl_sync(kFull, my_a, e & 31);
          pq[u] = -1;
          if (active && e < m) {
            pq[u] = (long long)j * k + t0;
            pv[u] = a * buf[ci[pq[u]]];
          }
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (pq[u] >= 0) atomicAdd(&cv[pq[u]], pv[u]);
      } else {
        const int j = __shfl_sync(kFull, my_j, s);
        const float a = __shfl_sync(kFull, my_a, s);
        const long long row = (long long)j * k;
        for (int t = t0; t < k; t += 32) atomicAdd(&cv[row + t], a * buf[ci[row + t]]);
      }
    }
  }
}

}  // namespace ringblas::cuda::maxk
