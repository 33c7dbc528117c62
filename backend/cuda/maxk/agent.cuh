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

/// V consecutive CBSR entries (t = V*u .. V*u+V-1 of a row) loaded at once: V = 4 when k is a
/// multiple of 4 (16-byte value loads, 4-byte index loads, float4 atomics), else 1.
template <int V>
struct Vec;
template <>
struct Vec<1> {
  float v[1];
  int c[1];
  __device__ __forceinline__ void load_values(const float* p, long long q) { v[0] = p[q]; }
  __device__ __forceinline__ void load_columns(const std::uint8_t* p, long long q) { c[0] = p[q]; }
};
template <>
struct Vec<4> {
  float v[4];
  int c[4];
  __device__ __forceinline__ void load_values(const float* p, long long q) {
    const float4 x = reinterpret_cast<const float4*>(p)[q];
    v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
  }
  __device__ __forceinline__ void load_columns(const std::uint8_t* p, long long q) {
    const uchar4 x = reinterpret_cast<const uchar4*>(p)[q];
    c[0] = x.x, c[1] = x.y, c[2] = x.z, c[3] = x.w;
  }
};

/// How a warp's lanes cover the CBSR entries of a chunk of edges, in units of V entries: with
/// kv = k / V units per row, kv <= 32 gives 32 / kv edges per step (lane = slot * kv + unit);
/// kv > 32 one edge per step, units lane, lane + 32, ...
struct LaneMap {
  int kv, per, slot, u0;
  bool active;
  __device__ __forceinline__ LaneMap(int k, int v, int lane) {
    kv = k / v;
    per = kv <= 32 ? 32 / kv : 1;
    slot = kv <= 32 ? lane / kv : 0;
    u0 = kv <= 32 ? lane % kv : lane;
    active = slot < per;
  }
};

/// Forward, row i: buf[0..h) = Σ_j A(i,j) X(j,:) with X in CBSR, accumulated in the warp's
/// shared-memory row by shared atomics (MaxK-GNN's sparse output buffer). A's edges are loaded
/// 32 at a time, one per lane, and broadcast by shuffles; Policy::unroll steps of gathers are
/// issued before their atomics so that several loads of X's random rows are in flight per lane.
template <int V>
__device__ __forceinline__ void warp_forward_row(const int* col, const float* av, int begin,
                                                 int end, const float* xv, const std::uint8_t* xi,
                                                 int k, float* buf, int lane) {
  constexpr int U = Policy::unroll;
  const LaneMap lm(k, V, lane);
  for (int chunk = begin; chunk < end; chunk += 32) {
    const int m = min(32, end - chunk);
    const int my_j = lane < m ? col[chunk + lane] : 0;
    const float my_a = lane < m ? av[chunk + lane] : 0.0f;
    if (lm.kv <= 32) {
      for (int s = 0; s < m; s += U * lm.per) {
        Vec<V> x[U];
        float a[U];
        bool ok[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int e = s + u * lm.per + lm.slot;
          const int j = __shfl_sync(kFull, my_j, e & 31);
          a[u] = __shfl_sync(kFull, my_a, e & 31);
          ok[u] = lm.active && e < m;
          if (ok[u]) {
            const long long q = (long long)j * lm.kv + lm.u0;
            x[u].load_values(xv, q);
            x[u].load_columns(xi, q);
          }
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (ok[u])
#pragma unroll
            for (int r = 0; r < V; ++r) atomicAdd(&buf[x[u].c[r]], a[u] * x[u].v[r]);
      }
    } else {
      for (int e = 0; e < m; ++e) {
        const int j = __shfl_sync(kFull, my_j, e);
        const float a = __shfl_sync(kFull, my_a, e);
        const long long row = (long long)j * lm.kv;
        for (int u = lm.u0; u < lm.kv; u += 32) {
          Vec<V> x;
          x.load_values(xv, row + u);
          x.load_columns(xi, row + u);
#pragma unroll
          for (int r = 0; r < V; ++r) atomicAdd(&buf[x.c[r]], a * x.v[r]);
        }
      }
    }
  }
}

__device__ __forceinline__ void add_to(float* p, const Vec<1>& g) { atomicAdd(p, g.v[0]); }
__device__ __forceinline__ void add_to(float* p, const Vec<4>& g) {
  atomicAdd(reinterpret_cast<float4*>(p), make_float4(g.v[0], g.v[1], g.v[2], g.v[3]));
}

/// Backward, row i of A (outer product): with buf = B(i, :) in shared memory, every edge A(i,j)
/// adds A(i,j) * B(i, idx_j[t]) to C(j, t) for the k positions of row j of C, by global atomics
/// (float4 atomics when V = 4): summed over i this is (Aᵀ ⊕.⊗ B)(j, idx_j[t]), sampled at C's
/// pattern (MaxK-GNN's SSpMM). Lanes map to (edge slot, unit) as in warp_forward_row.
template <int V>
__device__ __forceinline__ void warp_backward_row(const int* col, const float* av, int begin,
                                                  int end, const std::uint8_t* ci, int k,
                                                  const float* buf, float* cv, int lane) {
  constexpr int U = Policy::unroll;
  const LaneMap lm(k, V, lane);
  for (int chunk = begin; chunk < end; chunk += 32) {
    const int m = min(32, end - chunk);
    const int my_j = lane < m ? col[chunk + lane] : 0;
    const float my_a = lane < m ? av[chunk + lane] : 0.0f;
    if (lm.kv <= 32) {
      for (int s = 0; s < m; s += U * lm.per) {
        Vec<V> g[U];
        long long q[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int e = s + u * lm.per + lm.slot;
          const int j = __shfl_sync(kFull, my_j, e & 31);
          const float a = __shfl_sync(kFull, my_a, e & 31);
          q[u] = -1;
          if (lm.active && e < m) {
            q[u] = (long long)j * lm.kv + lm.u0;
            g[u].load_columns(ci, q[u]);
#pragma unroll
            for (int r = 0; r < V; ++r) g[u].v[r] = a * buf[g[u].c[r]];
          }
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (q[u] >= 0) add_to(cv + q[u] * V, g[u]);
      }
    } else {
      for (int e = 0; e < m; ++e) {
        const int j = __shfl_sync(kFull, my_j, e);
        const float a = __shfl_sync(kFull, my_a, e);
        const long long row = (long long)j * lm.kv;
        for (int u = lm.u0; u < lm.kv; u += 32) {
          Vec<V> g;
          g.load_columns(ci, row + u);
#pragma unroll
          for (int r = 0; r < V; ++r) g.v[r] = a * buf[g.c[r]];
          add_to(cv + (row + u) * V, g);
        }
      }
    }
  }
}

}  // namespace ringblas::cuda::maxk
