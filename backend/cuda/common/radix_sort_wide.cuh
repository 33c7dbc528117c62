// A stable CUB onesweep radix sort of (key, value) pairs with a chosen digit width: CUB's own
// SM90 tuning sorts 8 bits per pass, so a transpose of 20-bit column indices (1M columns) makes
// 3 passes over keys and payloads; 10-bit digits make 2 (1,024 bins per tile: more look-back
// and shorter runs per bin, so whether it pays is measured, not assumed).
// Only the onesweep policies are changed; the rest is CUB's SM90 hub (never run on SM90, CUB
// instantiates them for the host pass).
#pragma once
#include <cub/device/device_radix_sort.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace ringblas::cuda {

/// CUB's SM90 policy hub with the onesweep pass sorting `Bits`-bit digits. The onesweep block
/// keeps one counter per warp and bin in shared memory (8 warps x 1,024 bins x 4 bytes = 32 KiB
/// at 10 bits), so it runs 256 threads, and as many items per thread as keep the tile's payload
/// exchange near 40 KiB (13 of 12 bytes, 20 of 8 bytes, 24 of 4 bytes): static shared memory
/// stays under 48 KiB. (CUB scales the nominal 4-byte item count by the payload size.)
template <class K, class V, class O, int Bits>
struct radix_wide_hub {
  using base = typename cub::detail::radix::policy_hub<K, V, O>::Policy900;
  using dominant = std::conditional_t<(sizeof(V) > sizeof(K)), V, K>;
  static constexpr int threads = 256;
  static constexpr int item_bytes = sizeof(dominant) < 4 ? 4 : int(sizeof(dominant));
  static constexpr int items =
      40960 / (threads * item_bytes) < 24 ? 40960 / (threads * item_bytes) : 24;
  static constexpr int nominal_items = items * item_bytes / 4;
  struct MaxPolicy : cub::ChainedPolicy<900, MaxPolicy, MaxPolicy> {
    static constexpr bool ONESWEEP = true;
    static constexpr int ONESWEEP_RADIX_BITS = Bits;
    using HistogramPolicy = cub::AgentRadixSortHistogramPolicy<128, 16, 1, K, Bits>;
    using ExclusiveSumPolicy = cub::AgentRadixSortExclusiveSumPolicy<256, Bits>;
    using OnesweepPolicy = cub::AgentRadixSortOnesweepPolicy<
        threads, nominal_items, dominant, 1, cub::RADIX_RANK_MATCH_EARLY_COUNTS_ANY,
        cub::BLOCK_SCAN_RAKING_MEMOIZE, cub::RADIX_SORT_STORE_DIRECT, Bits>;
    static_assert(OnesweepPolicy::ITEMS_PER_THREAD == items, "CUB's payload scaling changed");
    using ScanPolicy = typename base::ScanPolicy;
    using DownsweepPolicy = typename base::DownsweepPolicy;
    using AltDownsweepPolicy = typename base::AltDownsweepPolicy;
    using UpsweepPolicy = typename base::UpsweepPolicy;
    using AltUpsweepPolicy = typename base::AltUpsweepPolicy;
    using SingleTilePolicy = typename base::SingleTilePolicy;
    using SegmentedPolicy = typename base::SegmentedPolicy;
    using AltSegmentedPolicy = typename base::AltSegmentedPolicy;
  };
};

/// cub::DeviceRadixSort::SortPairs(tmp, bytes, kin, kout, vin, vout, n, begin, end, s) with
/// `Bits`-bit digits (inputs left untouched, as SortPairs does). tmp == nullptr: sets bytes.
template <int Bits, class K, class V>
cudaError_t radix_sort_pairs_wide(void* tmp, std::size_t& bytes, const K* kin, K* kout,
                                  const V* vin, V* vout, std::uint32_t n, int begin_bit,
                                  int end_bit, cudaStream_t s) {
  using hub = radix_wide_hub<K, V, std::uint32_t, Bits>;
  cub::DoubleBuffer<K> keys(const_cast<K*>(kin), kout);
  cub::DoubleBuffer<V> values(const_cast<V*>(vin), vout);
  using dispatch = cub::DispatchRadixSort<cub::SortOrder::Ascending, K, V, std::uint32_t,
                                          cub::detail::identity_decomposer_t, hub>;
  return dispatch::Dispatch(tmp, bytes, keys, values, n, begin_bit, end_bit, false, s);
}

}  // namespace ringblas::cuda
