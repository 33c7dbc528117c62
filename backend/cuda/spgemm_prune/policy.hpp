// Tuning constants of the spgemm_prune family (expansion with row pruning, mxm_prune_rows).
// First values, chosen from the shared-memory budget of an H100 (228 KiB per SM); to be checked
// with tests/bench/bench_mcl on the GPU machine.
#pragma once

namespace ringblas::cuda::spgemm_prune {

struct policy {
  /// Threads per block; a block computes one output row at a time (persistent blocks).
  static constexpr int threads = 512;
  /// Columns per shared-memory window: a direct accumulator (slot = column - window start) of
  /// values plus one byte per slot marking presence: 72 KiB in fp64, so three blocks per SM.
  static constexpr int window = 8192;
  /// Rows whose columns span more than this many (16 windows: the 1M-node graphs, not
  /// soc-Epinions1's 75,877) accumulate in a dense array in global memory per block instead
  /// (Gustavson's sparse accumulator: a slot per column, the touched columns listed), so that the
  /// cost follows their products rather than their span; their survivors are then sorted by a
  /// segmented sort.
  static constexpr long long spa_min_span = 16LL * window;
  /// Radix-select digit width (bits) when finding a row's k-th largest value.
  static constexpr int digit_bits = 8;
  /// Output entries reserved per row on the first attempt (times max(select, recover, 16));
  /// a second attempt with the exact size follows when the rows need more.
  static constexpr double reserve_factor = 1.25;
};

}  // namespace ringblas::cuda::spgemm_prune
