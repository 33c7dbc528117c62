// Tuning constants of the element-wise family (bench_elementwise chooses and reports them).
#pragma once

namespace ringblas::cuda::elementwise {

struct Policy {
  /// Threads per block of every kernel: row kernels give one row per thread, entry kernels one
  /// entry per thread (bench_elementwise: 256 and 128 within noise on an H100; 256 keeps grids
  /// of 100M entries under 2^22 blocks).
  static constexpr int block = 256;
  /// top-k: rows of at most this many entries rank each entry by counting the entries above it
  /// (at most this many compares per entry, no sort); longer rows go through the segmented sort.
  static constexpr int topk_short_row = 256;
  /// ewise_add / ewise_mult: one warp per row when rows of A and B hold at least this many
  /// entries together on average (coalesced loads, a binary search per entry), else one thread
  /// per row walking both rows (short rows: the warp would idle).
  static constexpr int merge_warp_min_avg = 32;
};

}  // namespace ringblas::cuda::elementwise
