// Tuning constants of the element-wise family (bench_elementwise chooses and reports them).
#pragma once

namespace ringblas::cuda::elementwise {

struct Policy {
  /// Threads per block of every kernel: row kernels give one row per thread, entry kernels one
  /// entry per thread (bench_elementwise: 256 and 128 within noise on an H100; 256 keeps grids
  /// of 100M entries under 2^22 blocks).
  static constexpr int block = 256;
  /// Entries per thread of the streaming kernels (apply without positions, ewise on one pattern):
  /// block-striped so that each load is coalesced and a thread keeps this many in flight.
  static constexpr int items = 4;
  /// top-k: rows of at most this many entries are held in registers by a group of lanes; longer
  /// rows (with more than k entries) take a block each, searching the row in global memory.
  static constexpr int topk_short_row = 256;
  /// top-k: a warp per row in the register path when rows average at least this many entries,
  /// else 8 lanes (bench_elementwise, H100, rows of 96: a warp 1.17 ms, 8 lanes 1.51 ms, where a
  /// warp waits for the slowest of its four rows' searches; rows of 10: 8 lanes).
  static constexpr double topk_warp_min_avg = 32.0;
  /// ewise_add / ewise_mult: one warp per row when rows of A and B hold at least this many
  /// entries together on average, else a group of 8 lanes per row (short rows: a warp would
  /// idle). Either way coalesced loads and a binary search per entry in the other row.
  static constexpr int merge_warp_min_avg = 32;
  /// ewise_add / ewise_mult: a group of G lanes stages rows of up to this many entries per lane
  /// (256 for a warp, 64 for 8 lanes) in shared memory for its binary searches.
  static constexpr int merge_stage_per_lane = 8;
};

}  // namespace ringblas::cuda::elementwise
