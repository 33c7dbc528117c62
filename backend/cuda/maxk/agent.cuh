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
  // Padding slots (column >= h) get key 0, which no candidate (>= 1) counts; a real key 0 (the
  // NaN with every bit set) is found by the selection below, which checks the column.
  unsigned pk[P];
#pragma unroll
  for (int r = 0; r < P; ++r) pk[r] = r * 32 + lane < h ? key[r] : 0u;
  unsigned t = 0;
  if (k < h) {
    for (int bit = 31; bit >= 0; --bit) {
      const unsigned cand = t | (1u << bit);
      unsigned n = 0;
#pragma unroll
      for (int r = 0; r < P; ++r) n += pk[r] >= cand ? 1u : 0u;
      const int count = int(__reduce_add_sync(kFull, n));
      if (count >= k) t = cand;
      // Exactly k keys >= cand: they are the selection (the keys == t below are all taken), the
      // lower bits need not be resolved. Random rows stop after about log2(h / k) + 2 bits.
      if (count == k) break;
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

/// Up to 32 edges [chunk, chunk + m) of a row, one per lane (column j, value a), for the lanes
/// to broadcast by shuffles.
struct EdgeChunk {
  int m, j;
  float a;
  __device__ __forceinline__ EdgeChunk(const int* col, const float* av, int chunk, int end,
                                       int lane)
      : m(min(32, end - chunk)),
        j(lane < m ? col[chunk + lane] : 0),
        a(lane < m ? av[chunk + lane] : 0.0f) {}
};

/// Edge slots of the forward: for k < 32 the warp takes several edges per step, each slot of k
/// lanes with its own shared-memory row (so no two lanes ever add to one address in a step);
/// at most Policy::forward_slots. One slot for k >= 32. Host and device use it (shared memory).
__host__ __device__ constexpr int forward_slots(int k) {
  return k >= 32 ? 1 : (32 / k < Policy::forward_slots ? 32 / k : Policy::forward_slots);
}

/// Forward, row i: Σ_j A(i,j) X(j,:) with X in CBSR, accumulated in the warp's shared-memory
/// rows (MaxK-GNN's sparse output buffer; buf holds forward_slots(k) rows of h floats, zeroed).
/// Lane = slot * k + t takes entry t of the slot's edge (t, t + 32, ... for k > 32): the k
/// columns of one CBSR row are distinct and each slot owns its row of buf, so every add is a
/// plain read-modify-write with no conflict inside a step (shared float atomics are a CAS loop:
/// bench_maxk measured 20 us per unit of k with them); __syncwarp orders consecutive steps. A's
/// edges are loaded 32 at a time, one per lane, and broadcast by shuffles; Policy::unroll steps
/// of X's gathers are issued before their adds so that several loads are in flight per lane.
__device__ __forceinline__ void warp_forward_row(const int* col, const float* av, int begin,
                                                 int end, const float* xv, const std::uint8_t* xi,
                                                 int k, int h, float* buf, int lane) {
  constexpr int U = Policy::unroll;
  const int slots = forward_slots(k);
  const int slot = k >= 32 ? 0 : lane / k;
  const int t0 = k >= 32 ? lane : lane % k;
  const bool active = slot < slots;
  float* mine = buf + (active ? slot : 0) * h;
  for (int chunk = begin; chunk < end; chunk += 32) {
    const EdgeChunk ec(col, av, chunk, end, lane);
    const int m = ec.m, my_j = ec.j;
    const float my_a = ec.a;
    if (k <= 32) {
      for (int s = 0; s < m; s += U * slots) {
        float pv[U];
        int pc[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int e = s + u * slots + slot;
          const int j = __shfl_sync(kFull, my_j, e & 31);
          const float a = __shfl_sync(kFull, my_a, e & 31);
          pc[u] = -1;
          if (active && e < m) {
            const long long q = (long long)j * k + t0;
            pv[u] = a * xv[q];
            pc[u] = xi[q];
          }
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
          if (pc[u] >= 0) mine[pc[u]] += pv[u];
          __syncwarp();
        }
      }
    } else {
      constexpr int Q = 256 / 32;  // k <= 256: at most 8 entries per lane and edge
      for (int e = 0; e < m; ++e) {
        const int j = __shfl_sync(kFull, my_j, e);
        const float a = __shfl_sync(kFull, my_a, e);
        const long long row = (long long)j * k;
        float pv[Q];
        int pc[Q];
#pragma unroll
        for (int q = 0; q < Q; ++q) {
          const int t = t0 + q * 32;
          pc[q] = -1;
          if (t < k) {
            pv[q] = a * xv[row + t];
            pc[q] = xi[row + t];
          }
        }
#pragma unroll
        for (int q = 0; q < Q; ++q)
          if (pc[q] >= 0) buf[pc[q]] += pv[q];  // distinct columns: no conflict
        __syncwarp();
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
    const EdgeChunk ec(col, av, chunk, end, lane);
    const int m = ec.m, my_j = ec.j;
    const float my_a = ec.a;
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
