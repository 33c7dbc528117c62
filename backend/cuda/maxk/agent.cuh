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
/// largest key T is found by bisection (warp-wide counts of keys >= candidate); the row's
/// selection is every key > T and the first (k - #greater) keys == T by column. Writes the
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
  unsigned pk[P], lane_max = 0;
  bool any = false;
#pragma unroll
  for (int r = 0; r < P; ++r) {
    const bool valid = r * 32 + lane < h;
    pk[r] = valid ? key[r] : 0u;
    if (valid) lane_max = max(lane_max, key[r]), any = true;
  }
  unsigned t = 0;
  if (k < h) {
    // T is the largest t with #{keys >= t} >= k. Bisection of [lo, hi] keeping #(>= lo) >= k
    // and #(> hi) < k: hi = the largest key; lo = 0, or, when k is at most the number of lanes
    // holding keys, the smallest of those lanes' largest keys (each such lane has a key >= it).
    // About log2(range / gap at the k-th key) counts: 8 on random rows of 256 at k = 32, where a
    // bit-by-bit search from the top took about 14, most of them on the sign and exponent bits.
    // Bounds in 32 bits (the upper middle never passes hi): with 64-bit bounds the k = 64 row
    // ran 17% slower than the bit search on an H100.
    const unsigned lanes = __popc(__ballot_sync(kFull, any));
    unsigned hi = __reduce_max_sync(kFull, lane_max);
    unsigned lo =
        unsigned(k) <= lanes ? __reduce_min_sync(kFull, any ? lane_max : 0xffffffffu) : 0u;
    while (lo < hi) {
      const unsigned mid = lo + (hi - lo) / 2 + ((hi - lo) & 1u);  // in (lo, hi]: >= 1
      unsigned n = 0;
#pragma unroll
      for (int r = 0; r < P; ++r) n += pk[r] >= mid ? 1u : 0u;  // padding (0) never counts
      const int count = int(__reduce_add_sync(kFull, n));
      if (count >= k) {
        lo = mid;
        // Exactly k keys >= mid: they are the selection (the keys == mid below are all taken).
        if (count == k) break;
      } else {
        hi = mid - 1;
      }
    }
    t = lo;
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

/// V consecutive CBSR entries (t = V*u .. V*u+V-1 of a row) loaded at once: values as one 4-, 8-
/// or 16-byte load, their V 8-bit columns as one 1-, 2- or 4-byte load kept packed (col(r)
/// unpacks): fewer load instructions and registers than V scalar loads. Needs k % V == 0.
template <int V>
struct VecLoad;  // the load types of V values and of their V 8-bit columns
template <>
struct VecLoad<1> {
  using Values = float;
  using Columns = unsigned char;
};
template <>
struct VecLoad<2> {
  using Values = float2;
  using Columns = unsigned short;
};
template <>
struct VecLoad<4> {
  using Values = float4;
  using Columns = unsigned int;
};
template <int V>
struct Vec {
  float v[V];
  unsigned c;
  __device__ __forceinline__ void load(const float* pv, const std::uint8_t* pc, long long q) {
    const typename VecLoad<V>::Values x =
        __ldg(reinterpret_cast<const typename VecLoad<V>::Values*>(pv) + q);
    const float* f = reinterpret_cast<const float*>(&x);
#pragma unroll
    for (int r = 0; r < V; ++r) v[r] = f[r];
    load_columns(pc, q);
  }
  __device__ __forceinline__ void load_columns(const std::uint8_t* pc, long long q) {
    c = __ldg(reinterpret_cast<const typename VecLoad<V>::Columns*>(pc) + q);
  }
  __device__ __forceinline__ int col(int r) const { return int((c >> (8 * r)) & 0xffu); }
};

/// Where column c of a row of h <= 256 floats lives in shared memory: at (c % 8) * g + c / 8,
/// g = ceil(h / 8), so that the 8 consecutive columns 8b .. 8b+7 share bank b (h = 256). A
/// CBSR row's columns are sorted, so the entries of one load instruction (ranks V apart, or the
/// whole row) fall into different groups of 8 far more often than into different banks of the
/// plain layout: 2.2 against 3.4 shared-memory wavefronts per 32 random entries at k = 64, V = 4
/// (a simulation of random rows; 2.8 against 3.4 at k = 32, V = 2). Lane L < g reads or writes
/// address m * g + L (conflict-free), which is column 8L + m: a lane owns 8 consecutive columns
/// of the global row (two 16-byte accesses when h % 8 == 0).
struct RowLayout {
  int g;
  __host__ __device__ explicit RowLayout(int h) : g((h + 7) / 8) {}
  __host__ __device__ int size() const { return 8 * g; }
  __device__ __forceinline__ int at(int c) const { return (c & 7) * g + (c >> 3); }
};

/// Lane L's 8 columns 8L .. 8L+7 of a dense row (RowLayout's ownership): `row` points at column
/// 8L of a row of h floats; two 16-byte stores when h % 8 == 0, else the columns below h. The
/// stores are streaming (evict-first): a dense output row is not read again by the kernel, and
/// L2 keeps the gathered operands instead.
__device__ __forceinline__ void store_row8(float* row, const float (&x)[8], int h, int c0) {
  if (h % 8 == 0) {
    __stcs(reinterpret_cast<float4*>(row), make_float4(x[0], x[1], x[2], x[3]));
    __stcs(reinterpret_cast<float4*>(row) + 1, make_float4(x[4], x[5], x[6], x[7]));
  } else {
#pragma unroll
    for (int m = 0; m < 8; ++m)
      if (c0 + m < h) __stcs(row + m, x[m]);
  }
}

/// The same for a load (streaming: each dense row is read once).
__device__ __forceinline__ void load_row8(const float* row, float (&x)[8], int h, int c0) {
  if (h % 8 == 0) {
    const float4 lo = __ldcs(reinterpret_cast<const float4*>(row));
    const float4 hi = __ldcs(reinterpret_cast<const float4*>(row) + 1);
    x[0] = lo.x, x[1] = lo.y, x[2] = lo.z, x[3] = lo.w;
    x[4] = hi.x, x[5] = hi.y, x[6] = hi.z, x[7] = hi.w;
  } else {
#pragma unroll
    for (int m = 0; m < 8; ++m) x[m] = c0 + m < h ? __ldcs(row + m) : 0.0f;
  }
}

/// Load width of the forward for k: the widest V in {4, 2, 1} dividing k that still gives each
/// edge at least 16 (V = 4) or 8 (V = 2) lanes, i.e. at most 2 or 4 edges (and shared-memory
/// slots) per step. Host and device use it (template choice, shared memory).
__host__ __device__ constexpr int forward_vector(int k) {
  return (k % 4 == 0 && k >= 64) ? 4 : (k % 2 == 0 && k >= 16) ? 2 : 1;
}

/// How a warp's lanes cover the CBSR entries of a chunk of edges, in units of V entries: with
/// kv = k / V units per row, kv <= 32 gives min(32 / kv, cap) edges per step (lane = slot * kv +
/// unit, lanes past the last slot idle); kv > 32 one edge per step, units lane, lane + 32, ...
struct LaneMap {
  int kv, per, slot, u0;
  bool active;
  __device__ __forceinline__ LaneMap(int k, int v, int lane, int cap) {
    kv = k / v;
    per = kv <= 32 ? min(32 / kv, cap) : 1;
    slot = kv <= 32 ? lane / kv : 0;
    u0 = kv <= 32 ? lane % kv : lane;
    active = slot < per;
  }
};

/// Edge slots of the forward for k with V entries per lane and at most `cap` edges per step:
/// each edge of a step has its own shared-memory row, so that no two lanes ever add to one
/// address in a step. Host and device use it (shared memory).
__host__ __device__ constexpr int forward_slots(int k, int v, int cap) {
  return k / v > 32 ? 1 : 32 / (k / v) < cap ? 32 / (k / v) : cap;
}
__host__ __device__ constexpr int forward_slots(int k) {
  return forward_slots(k, forward_vector(k), Policy::forward_slots);
}

/// Steps of gathers the forward issues before their adds, by default: Policy::unroll_floats / V
/// (V = 2 or 4) or Policy::unroll (V = 1). Host and device use it (template choice).
__host__ __device__ constexpr int forward_unroll(int v) {
  return v == 1 ? Policy::unroll : Policy::unroll_floats / v;
}

/// Up to 32 edges [chunk, chunk + m) of a row, one per lane (column j, value a), for the lanes
/// to broadcast by shuffles. m <= 0 past the row's end (no loads). Streaming loads: A's entries
/// are read once per call.
struct EdgeChunk {
  int m, j;
  float a;
  __device__ __forceinline__ EdgeChunk(const int* col, const float* av, int chunk, int end,
                                       int lane)
      : m(min(32, end - chunk)),
        j(lane < m ? __ldcs(col + chunk + lane) : 0),
        a(lane < m ? __ldcs(av + chunk + lane) : 0.0f) {}
};

/// Forward, row i: Σ_j A(i,j) X(j,:) with X in CBSR, accumulated in the warp's shared-memory
/// rows (MaxK-GNN's sparse output buffer; buf holds forward_slots(k) rows in RowLayout, zeroed).
/// Lane = slot * kv + u takes entries V*u .. V*u+V-1 of its slot's edge: the k columns of one
/// CBSR row are distinct and each slot owns its row of buf, so every add is a plain
/// read-modify-write with no conflict inside a step (shared float atomics are a CAS loop:
/// bench_maxk measured 20 us per unit of k with them); __syncwarp orders consecutive steps. A's
/// edges are loaded 32 at a time, one per lane (the next 32 while this chunk runs), and broadcast
/// by shuffles; Policy::unroll steps of X's gathers are issued before their adds so that several
/// loads are in flight per lane (U of them; forward_unroll). Wide (k / V > 32: one edge per step)
/// is a template argument so that each kernel holds the registers of its own loop only.
template <int V, bool Wide, int U>
__device__ __forceinline__ void warp_forward_row(const int* col, const float* av, int begin,
                                                 int end, const float* xv, const std::uint8_t* xi,
                                                 int k, int slots, const RowLayout& lay, float* buf,
                                                 int lane) {
  const LaneMap lm(k, V, lane, slots);
  float* mine = buf + (lm.active ? lm.slot : 0) * lay.size();
  EdgeChunk ec(col, av, begin, end, lane);
  for (int chunk = begin; chunk < end; chunk += 32) {
    const EdgeChunk next(col, av, chunk + 32, end, lane);
    const int m = ec.m, my_j = ec.j;
    const float my_a = ec.a;
    if constexpr (!Wide) {
      for (int s = 0; s < m; s += U * lm.per) {
        Vec<V> g[U];
        float a[U];
        bool ok[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int e = s + u * lm.per + lm.slot;
          const int j = __shfl_sync(kFull, my_j, e & 31);
          a[u] = __shfl_sync(kFull, my_a, e & 31);
          ok[u] = lm.active && e < m;
          if (ok[u]) g[u].load(xv, xi, (long long)j * lm.kv + lm.u0);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
          if (ok[u]) {
#pragma unroll
            for (int r = 0; r < V; ++r) {
              float* p = mine + lay.at(g[u].col(r));
              *p = fmaf(a[u], g[u].v[r], *p);
            }
          }
          __syncwarp();
        }
      }
    } else {
      constexpr int Q = (256 / V + 31) / 32;  // k <= 256: units per lane and edge
      for (int e = 0; e < m; ++e) {
        const int j = __shfl_sync(kFull, my_j, e);
        const float a = __shfl_sync(kFull, my_a, e);
        const long long row = (long long)j * lm.kv;
        Vec<V> g[Q];
#pragma unroll
        for (int q = 0; q < Q; ++q)
          if (lm.u0 + q * 32 < lm.kv) g[q].load(xv, xi, row + lm.u0 + q * 32);
#pragma unroll
        for (int q = 0; q < Q; ++q)
          if (lm.u0 + q * 32 < lm.kv) {
#pragma unroll
            for (int r = 0; r < V; ++r) {
              float* p = buf + lay.at(g[q].col(r));  // distinct columns: no conflict
              *p = fmaf(a, g[q].v[r], *p);
            }
          }
        __syncwarp();
      }
    }
    ec = next;
  }
}

__device__ __forceinline__ void add_to(float* p, const float (&v)[1]) { atomicAdd(p, v[0]); }
__device__ __forceinline__ void add_to(float* p, const float (&v)[2]) {
  atomicAdd(reinterpret_cast<float2*>(p), make_float2(v[0], v[1]));
}
__device__ __forceinline__ void add_to(float* p, const float (&v)[4]) {
  atomicAdd(reinterpret_cast<float4*>(p), make_float4(v[0], v[1], v[2], v[3]));
}

/// Backward, row i of A (outer product): with buf = B(i, :) in shared memory (RowLayout), every
/// edge A(i,j) adds A(i,j) * B(i, idx_j[t]) to C(j, t) for the k positions of row j of C, by
/// global atomics (vector atomics when V > 1): summed over i this is (Aᵀ ⊕.⊗ B)(j, idx_j[t]),
/// sampled at C's pattern (MaxK-GNN's SSpMM). Lanes map to (edge slot, unit) as in
/// warp_forward_row, with every lane busy (no slots to cap); Wide = k / V > 32 as there.
template <int V, bool Wide>
__device__ __forceinline__ void warp_backward_row(const int* col, const float* av, int begin,
                                                  int end, const std::uint8_t* ci, int k,
                                                  const RowLayout& lay, const float* buf, float* cv,
                                                  int lane) {
  constexpr int U = Policy::unroll;
  const LaneMap lm(k, V, lane, 32);
  EdgeChunk ec(col, av, begin, end, lane);
  for (int chunk = begin; chunk < end; chunk += 32) {
    const EdgeChunk next(col, av, chunk + 32, end, lane);
    const int m = ec.m, my_j = ec.j;
    const float my_a = ec.a;
    if constexpr (!Wide) {
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
            for (int r = 0; r < V; ++r) g[u].v[r] = a * buf[lay.at(g[u].col(r))];
          }
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (q[u] >= 0) add_to(cv + q[u] * V, g[u].v);
      }
    } else {
      // k / V > 32 units per row: slices of 32 units (lane = unit within the slice), and in each
      // slice U edges per step, so that U loads per lane are in flight as in the loop above.
      for (int base = 0; base < lm.kv; base += 32) {
        const int unit = base + lane;
        for (int s = 0; s < m; s += U) {
          Vec<V> g[U];
          long long q[U];
#pragma unroll
          for (int u = 0; u < U; ++u) {
            const int e = s + u;
            const int j = __shfl_sync(kFull, my_j, e & 31);
            const float a = __shfl_sync(kFull, my_a, e & 31);
            q[u] = -1;
            if (unit < lm.kv && e < m) {
              q[u] = (long long)j * lm.kv + unit;
              g[u].load_columns(ci, q[u]);
#pragma unroll
              for (int r = 0; r < V; ++r) g[u].v[r] = a * buf[lay.at(g[u].col(r))];
            }
          }
#pragma unroll
          for (int u = 0; u < U; ++u)
            if (q[u] >= 0) add_to(cv + q[u] * V, g[u].v);
        }
      }
    }
    ec = next;
  }
}

}  // namespace ringblas::cuda::maxk
