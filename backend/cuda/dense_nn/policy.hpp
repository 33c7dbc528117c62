// Tuning constants of the dense_nn family (the kernels behind include/ringblas/nn.hpp).
#pragma once

namespace ringblas::cuda::dense_nn {

struct Policy {
  /// Threads per block of the element-wise kernels (dropout, ReLU backward, Adam): one element
  /// per thread in a grid-stride loop; memory-bound, so any multiple of 128 does.
  static constexpr int block = 256;
  /// Grid cap of the grid-stride kernels (132 SMs x 16 blocks covers an H100 several times).
  static constexpr unsigned max_blocks = 132 * 16;
  /// column_sums: a block is 32 columns x 8 row lanes and sums `rows_per_block` rows before one
  /// atomic add per column (fewer atomics than one per row, enough blocks for 1M rows).
  static constexpr int sum_cols = 32;
  static constexpr int sum_lanes = 8;
  static constexpr int rows_per_block = 512;
  /// softmax cross-entropy and accuracy: one warp per row of the subset, this many warps a block.
  static constexpr int row_warps = 8;
};

}  // namespace ringblas::cuda::dense_nn
