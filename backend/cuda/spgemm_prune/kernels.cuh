// spgemm_prune kernels: C = prune(A ⊕.⊗ B) row by row (mxm_prune_rows' rule,
// backend/core/row_prune_rule.hpp), the product row never stored whole in C.
// Mapping: k_classify (a warp per row) counts products and splits the rows: those with at most
// 32 products go to k_expand_prune_warp (a warp per row, everything in registers); for the others
// persistent blocks of policy::threads threads take rows from a global counter. A row's
// columns [lo, hi] (from its B rows' first and last columns) are accumulated window by window in
// a shared-memory direct table (slot = column - window start; values plus a presence byte;
// policy::window slots = 72 KiB in fp64), each B row entered at the window by binary search
// (spgemm_hash's for_each_product_in). Each window is compacted in column order into the block's
// two row buffers in global memory (ncols slots each: all entries, and those >= threshold), with
// one scan, measuring max, Σx², and the count and mass of entries >= threshold on the way. The
// rule then needs at most a k-th largest value, found by a radix select (8-bit digits of the
// order-preserving key) over the entries >= threshold (all entries when recovering from E), and
// the survivors (all >= one bar) are written at an offset reserved from a global cursor: rows come
// out sorted, in any order; k_gather puts them into CSR. A row that does not fit the reserved
// capacity is counted but not written; the launcher then reruns with the exact size.
// Output invariants: rows sorted by column, no duplicates.
#pragma once
#include <cuda_runtime.h>

#include <climits>
#include <cmath>
#include <cstdint>

#include "backend/core/row_prune_rule.hpp"
#include "backend/cuda/common/monoid_atomics.cuh"
#include "backend/cuda/spgemm_hash/agent.cuh"
#include "backend/cuda/spgemm_prune/policy.hpp"

namespace ringblas::cuda::spgemm_prune {

using detail::acc_t;
using detail::atomic_combine;
using spgemm_hash::csr_ref;

/// Global counters of one launch.
enum counter : int {
  c_cursor,     ///< output entries reserved so far
  c_expanded,   ///< nnz of the unpruned rows
  c_selected,   ///< rows where selection applied
  c_recovered,  ///< rows recovered
  c_next_row,   ///< the block kernel's next position in its row list
  c_reserve,    ///< the first reservation (k_classify)
  c_small,      ///< rows in the warp kernel's list
  c_large,      ///< rows in the block kernel's list
  c_unsorted,   ///< rows accumulated in the sparse accumulator (written out of column order)
  c_count
};

template <class T>
struct prune_args {
  csr_ref<int> A, B;
  ringblas::detail::prune_rule rule;
  T cut;
  int* list_k;  ///< per block: ncols column slots (the row buffer)
  T* list_v;
  int* cand_k;  ///< per block: ncols slots for the row's entries >= threshold
  T* cand_v;
  std::int64_t list_stride;
  int* out_k;  ///< survivors, rows at reserved offsets
  T* out_v;
  std::int64_t capacity;
  unsigned long long* counters;  ///< counter enum
  std::int64_t* row_begin;       ///< per row: offset in out_k/out_v
  int* row_nnz;                  ///< per row: survivors (nrows + 1 slots; the last stays 0)
  T* row_max;
  T* row_sumsq;
  std::int64_t nrows;
  acc_t<T>* spa_vals;  ///< per block: ncols slots at the monoid's identity (nullptr: no wide rows)
  int* spa_seen;       ///< per block: ncols flags, 0
  const int* small_rows;  ///< rows with at most 32 products (k_expand_prune_warp)
  const int* large_rows;  ///< the others (k_expand_prune)
};

/// Order-preserving unsigned keys of floating-point values (larger value, larger key); float and
/// double only: the family's manifest rows are floating-point.
template <class T>
struct order_key;
template <>
struct order_key<double> {
  using K = unsigned long long;
  static constexpr int bits = 64;
  __device__ static K of(double x) {
    const K u = K(__double_as_longlong(x));
    return (u >> 63) ? ~u : (u | (K(1) << 63));
  }
  __device__ static double value(K k) {
    const K u = (k >> 63) ? (k & ~(K(1) << 63)) : ~k;
    return __longlong_as_double((long long)u);
  }
};
template <>
struct order_key<float> {
  using K = unsigned;
  static constexpr int bits = 32;
  __device__ static K of(float x) {
    const K u = __float_as_uint(x);
    return (u >> 31) ? ~u : (u | (K(1) << 31));
  }
  __device__ static float value(K k) {
    const K u = (k >> 31) ? (k & ~(K(1) << 31)) : ~k;
    return __uint_as_float(u);
  }
};

/// Block-wide reduction with op; every thread gets the result. `scratch`: 32 slots of 8 bytes.
template <class V, class Op>
__device__ __forceinline__ V block_reduce(V v, Op op, V identity, unsigned long long* scratch) {
  V* s = reinterpret_cast<V*>(scratch);
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
  for (int d = 16; d > 0; d >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, d));
  if (lane == 0) s[wid] = v;
  __syncthreads();
  if (wid == 0) {
    V w = lane < nw ? s[lane] : identity;
    for (int d = 16; d > 0; d >>= 1) w = op(w, __shfl_xor_sync(0xffffffffu, w, d));
    if (lane == 0) s[0] = w;
  }
  __syncthreads();
  const V out = s[0];
  __syncthreads();
  return out;
}

struct max_of {
  template <class V>
  __device__ V operator()(V a, V b) const {
    return a > b ? a : b;
  }
};
struct sum_of {
  template <class V>
  __device__ V operator()(V a, V b) const {
    return a + b;
  }
};

/// Shared state of the radix select.
struct select_shared {
  int hist[256];
  int digit;
  long long k;
};

/// The k-th largest (k >= 1, at most the number of candidates) of v[0..n), candidates being the
/// values >= cut when only_p, else all: radix select on order_key, digit_bits per pass, the
/// histogram in shared memory and the digit found by warp 0.
template <class T>
__device__ T kth_largest(const T* v, int n, long long k, bool only_p, T cut, select_shared& sh) {
  using OK = order_key<T>;
  using K = typename OK::K;
  constexpr int D = policy::digit_bits, B = 1 << D;
  static_assert(B == 256, "select_shared holds 256 bins");
  K prefix = 0, mask = 0;
  for (int shift = OK::bits - D; shift >= 0; shift -= D) {
    for (int b = threadIdx.x; b < B; b += blockDim.x) sh.hist[b] = 0;
    if (threadIdx.x == 0) sh.k = k;
    __syncthreads();
    for (int e = threadIdx.x; e < n; e += blockDim.x) {
      const T x = v[e];
      if (only_p && !(x >= cut)) continue;
      const K u = OK::of(x);
      if ((u & mask) == prefix) atomicAdd(&sh.hist[int((u >> shift) & K(B - 1))], 1);
    }
    __syncthreads();
    if (threadIdx.x < 32) {
      // Lane l holds bins B-1-8l .. B-8-8l (descending values): its sum, scanned over lanes.
      const int lane = threadIdx.x;
      int c[8], sum = 0;
#pragma unroll
      for (int i = 0; i < 8; ++i) sum += (c[i] = sh.hist[B - 1 - 8 * lane - i]);
      int incl = sum;
      for (int d = 1; d < 32; d <<= 1) {
        const int y = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d) incl += y;
      }
      const long long want = k;
      long long acc = incl - sum;
      if (acc < want && want <= incl) {
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          if (acc + c[i] >= want) {
            sh.digit = B - 1 - 8 * lane - i;
            sh.k = want - acc;
            break;
          }
          acc += c[i];
        }
      }
    }
    __syncthreads();
    prefix |= K(sh.digit) << shift;
    mask |= K(B - 1) << shift;
    k = sh.k;
    __syncthreads();
  }
  return OK::value(prefix);
}

/// One row's outcome of mxm_prune_rows' rule: every branch keeps the entries >= bar of one list,
/// all entries when all_of_e (recovering from E), else those >= cut; loop: the row becomes its
/// diagonal entry.
template <class T>
struct row_bar {
  T bar;
  bool all_of_e = false, loop = false;
  int selected = 0, recovered = 0;
};

/// The rule's decision for a row with n_all entries, np of them >= cut of mass rmass, decided
/// alike by the block and the warp kernel (the branches from backend/core/row_prune_rule.hpp).
/// kth_all(k) / kth_p(k): the k-th largest of all entries / of those >= cut; above(vs, ns, ms):
/// the count and mass of the entries >= vs. Every thread of the row's group calls it (the
/// callables synchronise the group; the conditions are uniform over it).
template <class T, class KthAll, class KthP, class Above>
__device__ __forceinline__ row_bar<T> decide_row(const ringblas::detail::prune_rule& rule,
                                                 int n_all, int np, T rmass, T cut, KthAll kth_all,
                                                 KthP kth_p, Above above) {
  row_bar<T> d{cut};
  switch (ringblas::detail::first_branch(rule, np, double(rmass))) {
    case ringblas::detail::prune_branch::keep:
      break;
    case ringblas::detail::prune_branch::loop:
      d.loop = true;
      break;
    case ringblas::detail::prune_branch::recover_all:
      d.recovered = 1;
      d.all_of_e = true;
      d.bar = n_all > rule.recover ? kth_all(rule.recover) : T(-HUGE_VAL);
      break;
    case ringblas::detail::prune_branch::select: {
      d.selected = 1;
      const T vs = kth_p(rule.select);
      int ns = 0;
      T ms = T(0);
      above(vs, ns, ms);
      d.bar = vs;
      if (ringblas::detail::recover_after_select(rule, ns, double(ms))) {
        d.recovered = 1;
        d.bar = np > rule.recover ? kth_p(rule.recover) : cut;
      }
      break;
    }
  }
  return d;
}

/// Records a row's statistics and counters and reserves its `kept` output slots (one thread of
/// the row's group); returns the offset reserved.
template <class T>
__device__ __forceinline__ unsigned long long record_row(const prune_args<T>& a, std::int64_t row,
                                                         int kept, int n_all, T rmax, T rsq,
                                                         const row_bar<T>& d) {
  const unsigned long long base = atomicAdd(&a.counters[c_cursor], (unsigned long long)kept);
  a.row_begin[row] = (std::int64_t)base;
  a.row_nnz[row] = kept;
  a.row_max[row] = n_all > 0 ? rmax : T(0);
  a.row_sumsq[row] = rsq;
  if (n_all) atomicAdd(&a.counters[c_expanded], (unsigned long long)n_all);
  if (d.selected) atomicAdd(&a.counters[c_selected], 1ull);
  if (d.recovered) atomicAdd(&a.counters[c_recovered], 1ull);
  return base;
}

template <class S>
__global__ void __launch_bounds__(policy::threads)
    k_expand_prune(prune_args<typename S::value_type> a) {
  using T = typename S::value_type;
  using Acc = acc_t<T>;
  constexpr int W = policy::window;
  extern __shared__ __align__(16) unsigned char smem[];
  Acc* vals = reinterpret_cast<Acc*>(smem);
  unsigned char* seen = reinterpret_cast<unsigned char*>(vals + W);
  __shared__ int warp_sums[32];
  __shared__ unsigned long long red[32];
  __shared__ select_shared sel;
  __shared__ long long sh_row, sh_base;
  __shared__ int sh_lo, sh_hi;
  __shared__ unsigned long long sh_products;
  const int tid = threadIdx.x, nt = blockDim.x;
  int* lk = a.list_k + std::int64_t(blockIdx.x) * a.list_stride;
  T* lv = a.list_v + std::int64_t(blockIdx.x) * a.list_stride;
  int* ck = a.cand_k + std::int64_t(blockIdx.x) * a.list_stride;
  T* cv = a.cand_v + std::int64_t(blockIdx.x) * a.list_stride;
  const ringblas::detail::prune_rule& rule = a.rule;
  const T cut = a.cut;
  __shared__ int sh_touched;
  Acc* sv = a.spa_vals ? a.spa_vals + std::int64_t(blockIdx.x) * a.list_stride : nullptr;
  int* sg = a.spa_seen ? a.spa_seen + std::int64_t(blockIdx.x) * a.list_stride : nullptr;
  if (sv) {
    for (std::int64_t s = tid; s < a.list_stride; s += nt) {
      sv[s] = Acc(S::identity());
      sg[s] = 0;
    }
  }
  while (true) {
    if (tid == 0) {
      sh_touched = 0;
      sh_row = (long long)atomicAdd(&a.counters[c_next_row], 1ull);
      sh_lo = INT_MAX;
      sh_hi = -1;
      sh_products = 0;
    }
    __syncthreads();
    if (sh_row >= (long long)a.counters[c_large]) break;
    const long long row = a.large_rows[sh_row];
    // The columns the row can reach and its number of products.
    const int ab = a.A.rp[row], ae = a.A.rp[row + 1];
    {
      int lo = INT_MAX, hi = -1;
      unsigned long long prod = 0;
      for (int p = ab + tid; p < ae; p += nt) {
        const int k = a.A.ci[p], b0 = a.B.rp[k], b1 = a.B.rp[k + 1];
        if (b1 > b0) {
          lo = min(lo, a.B.ci[b0]);
          hi = max(hi, a.B.ci[b1 - 1]);
          prod += (unsigned long long)(b1 - b0);
        }
      }
      if (hi >= 0) {
        atomicMin(&sh_lo, lo);
        atomicMax(&sh_hi, hi);
        atomicAdd(&sh_products, prod);
      }
    }
    __syncthreads();
    const int lo = sh_lo, hi = sh_hi;
    const int g = spgemm_hash::lanes_per_entry(std::int64_t(sh_products), std::int64_t(ae - ab));
    // Expansion (a sparse accumulator for very wide rows, else window by window), compacted into
    // the row buffers with the row's measures.
    int n_all = 0, n_p = 0;
    bool any = false;
    T tmax = T(0), tsq = T(0), tmass = T(0);
    int tnp = 0;
    // This thread's share of the row's max, Σx², and count and mass of the entries >= cut.
    const auto measure = [&](T x) {
      tmax = any ? (x > tmax ? x : tmax) : x;
      any = true;
      tsq += x * x;
      if (x >= cut) {
        ++tnp;
        tmass += x;
      }
    };
    if (sv && (long long)hi - lo + 1 > policy::spa_min_span) {
      // Sparse accumulator: a slot per column in global memory, the touched columns listed in
      // lk (then compacted in place: every listed column is present), slots reset as read.
      spgemm_hash::for_each_product(
          a.A, a.B, spgemm_hash::mask_ref<int>{}, row, tid, nt, g, [&](int p, int k, int q, int j) {
            T x{}, y{};
            if constexpr (S::reads_a) x = static_cast<const T*>(a.A.v)[p];
            if constexpr (S::reads_b) y = static_cast<const T*>(a.B.v)[q];
            // A plain read first: most products hit a column already listed (the flags were
            // reset before the block's last barrier, so a 1 read here is this row's).
            if (sg[j] == 0 && atomicExch(&sg[j], 1) == 0) lk[atomicAdd(&sh_touched, 1)] = j;
            atomic_combine<typename S::add_monoid, T>(&sv[j], S::mul(x, y, row, k, k, j));
          });
      __syncthreads();
      const int touched = sh_touched;
      for (int c = 0; c < touched; c += nt) {
        const int e = c + tid;
        const bool present = e < touched;
        const int j = present ? lk[e] : 0;
        T x = T(0);
        if (present) {
          x = T(sv[j]);
          sv[j] = Acc(S::identity());
          sg[j] = 0;
          measure(x);
        }
        const bool in_p = present && x >= cut;
        int total;
        const int o = spgemm_hash::block_exclusive_scan(in_p ? 1 : 0, warp_sums, total);
        if (present) lv[e] = x;  // lk[e] already holds j
        if (in_p) {
          ck[n_p + o] = j;
          cv[n_p + o] = x;
        }
        n_p += total;
      }
      n_all = touched;
      if (tid == 0) atomicAdd(&a.counters[c_unsorted], 1ull);
    } else {
      for (long long wlo = lo; wlo <= hi; wlo += W) {
        const long long rest = (long long)hi + 1 - wlo;
        const int size = rest < W ? int(rest) : W;
        for (int s = tid; s < size; s += nt) {
          vals[s] = Acc(S::identity());
          seen[s] = 0;
        }
        __syncthreads();
        spgemm_hash::for_each_product_in(
            a.A, a.B, spgemm_hash::mask_ref<int>{}, row, tid, nt, g, int(wlo), int(wlo + size),
            [&](int p, int k, int q, int j) {
              T x{}, y{};
              if constexpr (S::reads_a) x = static_cast<const T*>(a.A.v)[p];
              if constexpr (S::reads_b) y = static_cast<const T*>(a.B.v)[q];
              const int s = j - int(wlo);
              seen[s] = 1;
              atomic_combine<typename S::add_monoid, T>(&vals[s], S::mul(x, y, row, k, k, j));
            });
        __syncthreads();
        for (int c = 0; c < size; c += nt) {
          const int s = c + tid;
          const bool present = s < size && seen[s];
          const T x = present ? T(vals[s]) : T(0);
          if (present) measure(x);
          // One scan for both lists: all entries in the low 16 bits, those >= cut above (a
          // chunk has at most 1024 of each).
          const bool in_p = present && x >= cut;
          int total;
          const int o = spgemm_hash::block_exclusive_scan((present ? 1 : 0) | (in_p ? 1 << 16 : 0),
                                                          warp_sums, total);
          if (present) {
            lk[n_all + (o & 0xffff)] = int(wlo) + s;
            lv[n_all + (o & 0xffff)] = x;
          }
          if (in_p) {
            ck[n_p + (o >> 16)] = int(wlo) + s;
            cv[n_p + (o >> 16)] = x;
          }
          n_all += total & 0xffff;
          n_p += total >> 16;
        }
      }
    }
    // Threads without entries offer -inf to the max.
    const T none = T(-HUGE_VAL);
    const T rmax = block_reduce(any ? tmax : none, max_of{}, none, red);
    const T rsq = block_reduce(tsq, sum_of{}, T(0), red);
    const T rmass = block_reduce(tmass, sum_of{}, T(0), red);
    const int np = block_reduce(tnp, sum_of{}, 0, red);
    // The rule (cand holds the n_p = np entries >= cut).
    const row_bar<T> d = decide_row(
        rule, n_all, np, rmass, cut,
        [&](long long k) { return kth_largest(lv, n_all, k, false, cut, sel); },
        [&](long long k) { return kth_largest(cv, n_p, k, false, cut, sel); },
        [&](T vs, int& ns, T& ms) {
          int tns = 0;
          T tms = T(0);
          for (int e = tid; e < n_p; e += nt) {
            const T x = cv[e];
            if (x >= vs) ++tns, tms += x;
          }
          ns = block_reduce(tns, sum_of{}, 0, red);
          ms = block_reduce(tms, sum_of{}, T(0), red);
        });
    const bool all_of_e = d.all_of_e, loop = d.loop;
    const T bar = d.bar;
    const int* src_k = all_of_e ? lk : ck;
    const T* src_v = all_of_e ? lv : cv;
    const int n_src = all_of_e ? n_all : n_p;
    int tkept = 0;
    if (!loop)
      for (int e = tid; e < n_src; e += nt) tkept += src_v[e] >= bar ? 1 : 0;
    const int kept = loop ? 1 : block_reduce(tkept, sum_of{}, 0, red);
    if (tid == 0) sh_base = (long long)record_row(a, row, kept, n_all, rmax, rsq, d);
    __syncthreads();
    const long long base = sh_base;
    if (base + kept <= a.capacity) {
      if (loop) {
        if (tid == 0) {
          a.out_k[base] = int(rule.diagonal_offset + row);
          a.out_v[base] = T(1);
        }
      } else {
        int done = 0;
        for (int c = 0; c < n_src; c += nt) {
          const int e = c + tid;
          const T x = e < n_src ? src_v[e] : T(0);
          const bool keep = e < n_src && x >= bar;
          int total;
          const int o = spgemm_hash::block_exclusive_scan(keep ? 1 : 0, warp_sums, total);
          if (keep) {
            a.out_k[base + done + o] = src_k[e];
            a.out_v[base + done + o] = x;
          }
          done += total;
        }
      }
    }
    __syncthreads();
  }
}

/// Per row (a warp each): its products; counters[c_reserve] += min(products, cap) (the first
/// reservation); the row joins the warp kernel's list (at most 32 products) or the block
/// kernel's.
__global__ void k_classify(csr_ref<int> A, csr_ref<int> B, long long cap,
                           unsigned long long* counters, int* small_rows, int* large_rows) {
  const std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (row >= A.nrows) return;
  long long prod = 0;
  for (int p = A.rp[row] + lane; p < A.rp[row + 1]; p += 32) {
    const int k = A.ci[p];
    prod += B.rp[k + 1] - B.rp[k];
  }
  for (int d = 16; d > 0; d >>= 1) prod += __shfl_xor_sync(0xffffffffu, prod, d);
  if (lane == 0) {
    atomicAdd(&counters[c_reserve], (unsigned long long)(prod < cap ? prod : cap));
    if (prod <= 32)
      small_rows[atomicAdd(&counters[c_small], 1ull)] = int(row);
    else
      large_rows[atomicAdd(&counters[c_large], 1ull)] = int(row);
  }
}

/// Warp-wide sum / max / count helpers of the warp kernel.
template <class V>
__device__ __forceinline__ V warp_sum(V v) {
  for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}
template <class V>
__device__ __forceinline__ V warp_max(V v) {
  for (int d = 16; d > 0; d >>= 1) {
    const V o = __shfl_xor_sync(0xffffffffu, v, d);
    v = o > v ? o : v;
  }
  return v;
}

/// The k-th largest value among the lanes where `cand` holds (k >= 1, at most their number):
/// the largest candidate x with at least k candidates >= x.
template <class T>
__device__ __forceinline__ T warp_kth_largest(T x, bool cand, long long k) {
  int ge = 0;
  for (int s = 0; s < 32; ++s) {
    const T y = __shfl_sync(0xffffffffu, x, s);
    const bool c = __shfl_sync(0xffffffffu, int(cand), s) != 0;
    ge += (c && y >= x) ? 1 : 0;
  }
  const T none = T(-HUGE_VAL);
  return warp_max((cand && ge >= k) ? x : none);
}

/// Rows with at most 32 products, a warp per row: the products gathered in shared memory (one
/// per lane), equal columns combined (__match_any_sync, in lane order), then the same rule as the
/// block kernel on at most 32 entries in registers; survivors written in column order.
template <class S>
__global__ void __launch_bounds__(256) k_expand_prune_warp(prune_args<typename S::value_type> a) {
  using T = typename S::value_type;
  __shared__ int pk[8][32];
  __shared__ T pv[8][32];
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const std::int64_t r = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  if (r >= (std::int64_t)a.counters[c_small]) return;
  const int row = a.small_rows[r];
  const ringblas::detail::prune_rule& rule = a.rule;
  const T cut = a.cut;
  // Products, one per lane: each A entry's B row goes to the offset its warp scan gives.
  int total = 0;
  for (int p0 = a.A.rp[row]; p0 < a.A.rp[row + 1]; p0 += 32) {
    const int p = p0 + lane;
    int k = 0, len = 0;
    if (p < a.A.rp[row + 1]) {
      k = a.A.ci[p];
      len = a.B.rp[k + 1] - a.B.rp[k];
    }
    int incl = len;
    for (int d = 1; d < 32; d <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, incl, d);
      if (lane >= d) incl += y;
    }
    for (int q = 0; q < len; ++q) {
      const int at = total + incl - len + q;
      const int bq = a.B.rp[k] + q;
      T x{}, y{};
      if constexpr (S::reads_a) x = static_cast<const T*>(a.A.v)[p];
      if constexpr (S::reads_b) y = static_cast<const T*>(a.B.v)[bq];
      const int j = a.B.ci[bq];
      pk[w][at] = j;
      pv[w][at] = S::mul(x, y, row, k, k, j);
    }
    total += __shfl_sync(0xffffffffu, incl, 31);
  }
  __syncwarp();
  const bool have = lane < total;
  const int j = have ? pk[w][lane] : INT_MAX;
  const T v = have ? pv[w][lane] : T(0);
  const unsigned same = __match_any_sync(0xffffffffu, j);
  T x = S::identity();
  for (int s = 0; s < 32; ++s) {
    const T y = __shfl_sync(0xffffffffu, v, s);
    if ((same >> s) & 1u) x = S::add(x, y);
  }
  const bool entry = have && lane == __ffs(int(same)) - 1;
  const T none = T(-HUGE_VAL);
  const int n_all = __popc(__ballot_sync(0xffffffffu, entry));
  const T rmax = warp_max(entry ? x : none);
  const T rsq = warp_sum(entry ? x * x : T(0));
  const bool in_p = entry && x >= cut;
  const int np = __popc(__ballot_sync(0xffffffffu, in_p));
  const T rmass = warp_sum(in_p ? x : T(0));
  const row_bar<T> d = decide_row(
      rule, n_all, np, rmass, cut, [&](long long k) { return warp_kth_largest(x, entry, k); },
      [&](long long k) { return warp_kth_largest(x, in_p, k); },
      [&](T vs, int& ns, T& ms) {
        const bool in_s = entry && x >= vs;
        ns = __popc(__ballot_sync(0xffffffffu, in_s));
        ms = warp_sum(in_s ? x : T(0));
      });
  const bool loop = d.loop;
  const bool keep = !loop && entry && x >= d.bar && (d.all_of_e || x >= cut);
  const int kept = loop ? 1 : __popc(__ballot_sync(0xffffffffu, keep));
  unsigned long long base = 0;
  if (lane == 0) base = record_row(a, row, kept, n_all, rmax, rsq, d);
  base = __shfl_sync(0xffffffffu, base, 0);
  if ((long long)(base + kept) > a.capacity) return;
  if (loop) {
    if (lane == 0) {
      a.out_k[base] = int(rule.diagonal_offset + row);
      a.out_v[base] = T(1);
    }
    return;
  }
  // Position in column order among the kept entries.
  int rank = 0;
  for (int s = 0; s < 32; ++s) {
    const int js = __shfl_sync(0xffffffffu, j, s);
    const bool ks = __shfl_sync(0xffffffffu, int(keep), s) != 0;
    rank += (ks && js < j) ? 1 : 0;
  }
  if (keep) {
    a.out_k[base + rank] = j;
    a.out_v[base + rank] = x;
  }
}

/// Copies each row's survivors from its reserved offset into CSR (a warp per row).
template <class T, class I>
__global__ void k_gather(const int* out_k, const T* out_v, const std::int64_t* row_begin,
                         const int* row_nnz, const I* row_ptr, I* ci, T* cv, std::int64_t nrows) {
  const std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (row >= nrows) return;
  const std::int64_t from = row_begin[row];
  const I to = row_ptr[row];
  for (int e = lane; e < row_nnz[row]; e += 32) {
    ci[to + e] = I(out_k[from + e]);
    cv[to + e] = out_v[from + e];
  }
}

}  // namespace ringblas::cuda::spgemm_prune
