// Group-level (G lanes of one warp, G a power of two <= 32) selection primitives over keys held
// in registers: the k-th largest key by a bitwise search from the top or by a radix select on
// 8-bit digits, and the ranks that order a compaction. Shared by kernels that keep the k largest
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

/// The k-th largest (1 <= k <= number of valid items) of the unsigned keys the group holds, R per
/// lane (item t valid when bit t of `valid` is set): the largest t with #(keys >= t) >= k, built
/// bit by bit from the top, one group-wide count per bit. The search stops as soon as exactly k
/// keys are >= the candidate (random rows: after about log2(len / k) + 2 bits); the selection is
/// then every key > the result plus `take_equal` keys equal to it (the first ones by position).
/// Invalid items must hold key 0, which no candidate counts. Every lane of the group gets the
/// same result. Cost: at most 8 * sizeof(K) rounds of R compares and one reduction (so R should
/// be no larger than the items per lane need).
template <int G, int R, class K>
__device__ __forceinline__ K group_kth_largest(const K (&key)[R], unsigned valid, unsigned k,
                                               unsigned& take_equal) {
  static_assert(std::is_unsigned_v<K>, "keys are unsigned (order-preserving maps)");
  const unsigned gm = group_mask<G>();
  K t = 0;
  for (int bit = 8 * int(sizeof(K)) - 1; bit >= 0; --bit) {
    const K cand = t | (K(1) << bit);
    unsigned n = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) n += key[r] >= cand ? 1u : 0u;  // invalid items: key 0
    const unsigned count = __reduce_add_sync(gm, n);
    if (count >= k) t = cand;
    if (count == k) break;
  }
  unsigned gt = 0;
#pragma unroll
  for (int r = 0; r < R; ++r) gt += ((valid >> r) & 1u) && key[r] > t ? 1u : 0u;
  take_equal = k - __reduce_add_sync(gm, gt);
  return t;
}

/// Shared memory one group's radix select needs: 256 digit counters of 16 bits, two to a word.
constexpr int radix_hist_words = 128;

/// The same contract as group_kth_largest (a t with #(keys >= t) >= k, the selection being every
/// key > t plus the first `take_equal` = k - #(keys > t) keys equal to it) by a radix select on
/// 8-bit digits from the top. Each round histograms the digit of the keys that match the digits
/// chosen so far (the lanes holding one digit in one item slot meet by __match_any_sync and add
/// once), scans the 256 counters from the top for the digit that holds the k-th largest, and
/// narrows to it: at most sizeof(K) rounds (fp32 keys 4, fp64 8), ending early when every key
/// with the chosen digits is selected (random floats: after about 2 rounds, where the bitwise
/// search walks the exponent and mantissa one bit a round). A round costs R match + atomic steps,
/// 128 / G shared words per lane, a scan over G lanes and two __syncwarp: heavier than a bitwise
/// round, lighter than 8 of them. `hist`: radix_hist_words words of shared memory only this group
/// uses, 16-byte aligned (any content on entry). Invalid items are not counted, whatever key
/// they hold.
template <int G, int R, class K>
__device__ __forceinline__ K group_kth_largest_radix(const K (&key)[R], unsigned valid, unsigned k,
                                                     unsigned& take_equal, unsigned* hist) {
  static_assert(std::is_unsigned_v<K>, "keys are unsigned (order-preserving maps)");
  constexpr int bits = 8 * int(sizeof(K)), W = radix_hist_words / G;  // words a lane scans
  static_assert(W % 4 == 0, "a lane's words are whole 16-byte vectors (G <= 32)");
  static_assert(G * R <= 511, "counts of up to 511 items travel in 9 bits of one shuffle");
  const unsigned gm = group_mask<G>(), below = lanes_below_me() & gm;
  const int lane = int(threadIdx.x % G);
  // Lane l scans the words (G - 1 - l) * W + j: lane 0 the highest digits, so that an inclusive
  // scan over the lanes counts the keys at or above each lane's lowest digit.
  unsigned* mine = hist + (G - 1 - lane) * W;
  uint4* mine4 = reinterpret_cast<uint4*>(mine);  // zeroed and summed 16 bytes at a time
  K prefix = 0;       // the digits chosen so far in place, zero below them
  unsigned need = k;  // how many of the keys matching prefix the selection still takes
  for (int shift = bits - 8; shift >= 0; shift -= 8) {
#pragma unroll
    for (int j = 0; j < W / 4; ++j) mine4[j] = make_uint4(0, 0, 0, 0);
    __syncwarp(gm);
    const K high = shift + 8 < bits ? K(~K(0) << (shift + 8)) : K(0);
#pragma unroll
    for (int t = 0; t < R; ++t) {
      const bool in = ((valid >> t) & 1u) && (key[t] & high) == prefix;
      const unsigned digit = in ? unsigned(key[t] >> shift) & 255u : 256u;  // 256: not counted
      const unsigned same = __match_any_sync(gm, digit);
      if (in && (same & below) == 0)
        atomicAdd(hist + (digit >> 1), unsigned(__popc(same)) << (16 * (digit & 1u)));
    }
    __syncwarp(gm);
    unsigned packed = 0;  // both halves' sums stay under 2^16 (<= 511 items): no carry
#pragma unroll
    for (int j = 0; j < W / 4; ++j) {
      const uint4 w = mine4[j];
      packed += w.x + w.y + w.z + w.w;
    }
    const unsigned total = (packed & 0xffffu) + (packed >> 16);
    unsigned at_or_above = total;  // keys at or above this lane's lowest digit
#pragma unroll
    for (int o = 1; o < G; o *= 2) {
      const unsigned n = __shfl_up_sync(gm, at_or_above, o, G);
      if (lane >= o) at_or_above += n;
    }
    // The first lane (from the top) whose digits reach `need` keys holds the digit; it walks its
    // counters down (again from shared memory: registers held across the walk would cost the
    // whole kernel occupancy) and sends digit | keys above it << 8 | keys on it << 17 (<= 511
    // each).
    const int owner = (__ffs(__ballot_sync(gm, at_or_above >= need) & gm) - 1) % G;
    unsigned found = 0;
    if (lane == owner) {
      unsigned above = at_or_above - total;
#pragma unroll 1
      for (int j = W - 1; j >= 0; --j) {
        const unsigned w = mine[j], hi = w >> 16, lo = w & 0xffffu;
        const unsigned digit = unsigned(2 * ((G - 1 - lane) * W + j));  // lo's; hi's is + 1
        if (above + hi >= need) {
          found = (digit + 1u) | (above << 8) | (hi << 17);
          break;
        }
        if (above + hi + lo >= need) {
          found = digit | ((above + hi) << 8) | (lo << 17);
          break;
        }
        above += hi + lo;
      }
    }
    found = __shfl_sync(gm, found, owner, G);
    const unsigned on_digit = found >> 17;
    need -= (found >> 8) & 0x1ffu;
    prefix |= K(found & 255u) << shift;
    if (on_digit == need && shift > 0) {
      // Every key with these digits is selected: the result is the lowest such key's bound.
      unsigned gt = 0;
#pragma unroll
      for (int t = 0; t < R; ++t) gt += ((valid >> t) & 1u) && key[t] > prefix ? 1u : 0u;
      take_equal = k - __reduce_add_sync(gm, gt);
      return prefix;
    }
  }
  take_equal = need;  // prefix is the k-th largest key itself
  return prefix;
}

}  // namespace ringblas::cuda
