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

/// The bits every valid key with `(key >> bit) == 1` shares from the top: `shared` gets them (zero
/// below), the result is the highest bit where those keys differ, -1 when they are all equal (then
/// `shared` is that key). At least one valid key must have `bit` as its highest set bit.
template <int G, int R, class K>
__device__ __forceinline__ int group_shared_prefix(const K (&key)[R], unsigned valid, int bit,
                                                   K& shared) {
  K all_and = ~K(0), all_or = 0;
#pragma unroll
  for (int r = 0; r < R; ++r)
    if (((valid >> r) & 1u) && (key[r] >> bit) == K(1)) {
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
/// plus `take_equal` keys equal to it (the first ones by position). It stops as soon as exactly
/// k keys are >= the candidate (they are the selection; random rows: after about log2(len / k) + 2
/// of the bits that tell the keys apart). Once the first bit is accepted, the k-th largest is
/// among the keys whose highest set bit it is; the bits those keys share (group AND and OR, two
/// reductions, four for 64-bit keys) are the k-th largest's too, so the search takes them at once
/// and goes on below them, or ends when those keys are all equal. Floats of both signs (the
/// bench's rows: the first bit is the sign) skip the exponent bits the positive ones share, about
/// 9 rounds instead of 14; all-equal rows take 1 instead of 32; keys that differ only in low bits
/// skip the high ones. The threshold and the selection are those of the plain search.
/// Invalid items must hold key 0, which no candidate counts. Every lane of the group gets the
/// same result. Cost: at most 8 * sizeof(K) rounds of R compares and one reduction (so R should
/// be no larger than the items per lane need), plus the one prefix pass.
template <int G, int R, class K>
__device__ __forceinline__ K group_kth_largest(const K (&key)[R], unsigned valid, unsigned k,
                                               unsigned& take_equal) {
  static_assert(std::is_unsigned_v<K>, "keys are unsigned (order-preserving maps)");
  const unsigned gm = group_mask<G>();
  K t = 0;
  bool prefixed = false;  // the shared bits were taken (once, after the first accepted bit)
  for (int bit = 8 * int(sizeof(K)) - 1; bit >= 0; --bit) {
    const K cand = t | (K(1) << bit);
    unsigned n = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) n += key[r] >= cand ? 1u : 0u;  // invalid items: key 0
    const unsigned count = __reduce_add_sync(gm, n);
    if (count >= k) t = cand;
    if (count == k) break;
    if (count > k && !prefixed) {
      // t == cand == 1 << bit: every key >= t and below the last rejected candidate (2t, or none)
      // has `bit` as its highest set bit.
      prefixed = true;
      K shared;
      bit = group_shared_prefix<G, R>(key, valid, bit, shared);
      t = shared;
      if (bit < 0) break;  // those keys are all equal: t is the k-th largest
      ++bit;               // the loop's --bit: the next candidate is `top`
    }
  }
  unsigned gt = 0;
#pragma unroll
  for (int r = 0; r < R; ++r) gt += ((valid >> r) & 1u) && key[r] > t ? 1u : 0u;
  take_equal = k - __reduce_add_sync(gm, gt);
  return t;
}

}  // namespace ringblas::cuda
