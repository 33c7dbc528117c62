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

}  // namespace ringblas::cuda
