// Tuning constants of the reduce family (bench: tests/bench/bench_reduce_transpose.cu).
#pragma once

namespace ringblas::cuda::reduction {

struct policy {
  /// Threads per block of the element-wise kernels (identity fill, presence, column atomics).
  static constexpr int block = 256;
  /// Entries each thread of the column-atomic kernel visits (grid-stride loop).
  static constexpr int items_per_thread = 4;
  /// Lanes per row in the row kernel when rows average at most long_row entries; a warp per row
  /// above (bench_reduce_transpose's longrows input: rows of 512).
  static constexpr int row_subwarp = 8;
  static constexpr double long_row = 64.0;
};

/// How reduce to a vector by columns runs: monoid atomics into a dense vector (one pass over A),
/// or the shared cuda::transpose followed by the row reduction (a radix sort first).
enum class column_method { atomic, transpose };

}  // namespace ringblas::cuda::reduction
