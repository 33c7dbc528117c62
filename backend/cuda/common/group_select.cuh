// Group-level (G lanes of one warp, G a power of two <= 32) selection primitives over keys held
// in registers: the k-th largest key by a bitwise search from the top, and the ranks that order a
// compaction. (A radix select on 8-bit digits was measured slower on every input, session 10,
// topk_radix_s10_h100.md, and removed.) Shared by kernels that keep the k largest
// entries of a row (element-wise top-k); the maxk family's warp_topk is the same search specialised
// to one full warp of floats.
#pragma once
#include <cuda_runtime.h>

#include <type_traits>

namespace ringblas::cuda {

/// The lanes of the group of G that holds this thread, as a warp mask.
template <int G>
__device__ __forceinline__ unsigned group_mask() {
  static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "G: a power of two up to 32");
  if constexpr (G == 32)
    return 0xffffffffu;
  else
    return ((1u << G) - 1u) << ((threadIdx.x % 32) / G * G);
}

/// The lanes of the warp below this thread's (AND with group_mask: the group's lanes below it).
__device__ __forceinline__ unsigned lanes_below_me() { return (1u << (threadIdx.x % 32)) - 1u; }

/// AND and OR of x over the group's lanes (32-bit reductions; 64-bit keys take two each).
template <class K>
__device__ __forceinline__ void group_and_or(unsigned gm, K& all_and, K& all_or) {
  static_assert(sizeof(K) == 4 || sizeof(K) == 8, "32- or 64-bit keys");
  if constexpr (sizeof(K) == 4) {
    all_and = __reduce_and_sync(gm, all_and);
    all_or = __reduce_or_sync(gm, all_or);
  } else {
    const unsigned a_hi = __reduce_and_sync(gm, unsigned(all_and >> 32));
    const unsigned a_lo = __reduce_and_sync(gm, unsigned(all_and));
    const unsigned o_hi = __reduce_or_sync(gm, unsigned(all_or >> 32));
    const unsigned o_lo = __reduce_or_sync(gm, unsigned(all_or));
    all_and = (K(a_hi) << 32) | a_lo;
    all_or = (K(o_hi) << 32) | o_lo;
  }
}

/// The bits every valid key of the band [lo, hi) shares from the top (hi == 0: no upper bound):
/// `shared` gets them (zero below), the result is the highest bit where the band's keys differ,
/// -1 when they are all equal (then `shared` is that key). The band must hold a key.
template <int G, int R, class K>
__device__ __forceinline__ int group_band_prefix(const K (&key)[R], unsigned valid, K lo, K hi,
                                                 K& shared) {
  K all_and = ~K(0), all_or = 0;
#pragma unroll
  for (int r = 0; r < R; ++r)
    if (((valid >> r) & 1u) && key[r] >= lo && (hi == 0 || key[r] < hi)) {
      all_and &= key[r];
      all_or |= key[r];
    }
  group_and_or(group_mask<G>(), all_and, all_or);
  const K differ = all_and ^ all_or;
  if (differ == 0) {
    shared = all_and;
    return -1;
  }
  int top;
  if constexpr (sizeof(K) == 8)
    top = 63 - __clzll((long long)differ);
  else
    top = 31 - __clz(unsigned(differ));
  shared = all_and & ~((K(2) << top) - K(1));
  return top;
}

/// The k-th largest (1 <= k <= number of valid items) of the unsigned keys the group holds, R per
/// lane (item t valid when bit t of `valid` is set): the largest t with #(keys >= t) >= k, built
/// bit by bit from the top, one group-wide count per bit; the selection is then every key > t
/// plus `take_equal` keys equal to it (the first ones by position). The k-th largest lies in the
/// band [t, u) (u: the lowest rejected candidate). Shortcuts, none of which changes t at the end
/// or the selection:
/// - it stops as soon as exactly k keys are >= the candidate (they are the selection; this is
///   also where the band would hold a single key);
/// - after the first accepted bit, and after two rounds in a row that did not split the band (no
///   band key, or every one, had the bit: ties, or bits the keys share), the bits every band key
///   shares are taken at once (group AND and OR, two or four reductions) and the search goes on
///   below them, or ends when the band holds one value (then it is the k-th largest). Uniform
///   floats of both signs (bench_elementwise's rows): the first skips the exponent bits the
///   positive keys share, about 11 rounds instead of 14 (a recompute counted as two); all-equal
///   rows: 2 rounds instead of 32; many keys equal at the threshold: about 9 instead of 28.
/// Invalid items must hold key 0, which no candidate counts. Every lane of the group gets the
/// same result. Cost: at most 8 * sizeof(K) rounds of R compares and one reduction (so R should
/// be no larger than the items per lane need), plus the recomputes.
template <int G, int R, class K>
__device__ __forceinline__ K group_kth_largest(const K (&key)[R], unsigned valid, unsigned k,
                                               unsigned& take_equal) {
  static_assert(std::is_unsigned_v<K>, "keys are unsigned (order-preserving maps)");
  const unsigned gm = group_mask<G>();
  K t = 0, u = 0;                       // the band [t, u); u == 0: nothing rejected yet
  unsigned at_t = ~0u, at_u = 0;        // #(keys >= t) (unknown at first), #(keys >= u)
  int unsplit = 0;                      // rounds in a row that did not split the band
  bool first_accept = true;
  for (int bit = 8 * int(sizeof(K)) - 1; bit >= 0;) {
    const K cand = t | (K(1) << bit);
    unsigned n = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) n += key[r] >= cand ? 1u : 0u;  // invalid items: key 0
    const unsigned count = __reduce_add_sync(gm, n);
    unsplit = count == at_t || count == at_u ? unsplit + 1 : 0;
    bool skip = unsplit >= 2;
    if (count >= k) {
      t = cand;
      at_t = count;
      if (count == k) break;
      skip = skip || first_accept;
      first_accept = false;
    } else {
      u = cand;
      at_u = count;
    }
    if (!skip) {
      --bit;
      continue;
    }
    // The band's keys all lie in [t, u): the bits they share are the k-th largest's too, and
    // #(keys >= t) and #(keys >= u) stay as counted.
    unsplit = 0;
    K shared;
    bit = group_band_prefix<G, R>(key, valid, t, u, shared);
    t = shared;
    if (bit < 0) break;  // one value in the band: the k-th largest
  }
  unsigned gt = 0;
#pragma unroll
  for (int r = 0; r < R; ++r) gt += ((valid >> r) & 1u) && key[r] > t ? 1u : 0u;
  take_equal = k - __reduce_add_sync(gm, gt);
  return t;
}

}  // namespace ringblas::cuda
