// Tuning constants of the dense_nn family (the kernels behind include/ringblas/nn.hpp).
#pragma once
#include <cstddef>

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
  /// ... up to this many classes a thread takes a whole row instead (blocks of row_warps warps).
  static constexpr int thread_row_classes = 32;
  /// linear_dropout_relu_backward (fused_kernels.cuh): warps of a block, rows a warp computes
  /// together (each W value read from shared memory serves that many rows), grid cap (each block
  /// writes one row of column-sum partials).
  static constexpr int fused_warps = 8;
  static constexpr int fused_rows = 4;
  static constexpr unsigned fused_max_blocks = 132 * 8;
  /// The product D·Wᵀ is computed in the kernel for k <= 32 columns of D (the class count of a
  /// GCN's last layer), else by cuBLAS before the kernel (which then reads it).
  static constexpr int fused_max_k = 32;
  /// Shared memory the fused kernel may take without opting in to more (Wᵀ plus the per-warp
  /// column sums).
  static constexpr int fused_smem_bytes = 48 * 1024;
  /// dense_layer_backward (layer_backward_kernel): rows of D staged a tile, grid cap (each block
  /// writes m x k dW partials), threads a block (one column of X each).
  static constexpr int layer_tile = 32;
  static constexpr int layer_threads = 256;
  /// Blocks of 256 threads an SM holds at the kernel's 72 registers (KMax 16): the grid cap is
  /// one wave of them.
  static constexpr int layer_blocks_per_sm = 3;
  static constexpr unsigned layer_max_blocks = 132 * layer_blocks_per_sm;
  static constexpr int layer_unroll = 8;  ///< rows whose loads a thread issues together
  /// Skinny GEMMs (skinny_gemm.cu): at most this many columns in the narrow operand (a register
  /// array per lane); NN keeps B (k x (n+1) floats) in at most skinny_smem_bytes of shared
  /// memory, TN takes k <= skinny_max_k (its per-block partial products are blocks x k x n).
  static constexpr int skinny_max_n = 32;
  static constexpr int skinny_smem_bytes = 48 * 1024;
  static constexpr int skinny_max_k = 2048;
  static constexpr std::size_t skinny_partial_floats = std::size_t(1) << 22;
  /// NN: a warp computes skinny_rows rows at once (each B value from shared memory serves them
  /// all); 8 warps a block.
  static constexpr int skinny_rows = 4;
  static constexpr int skinny_warps = 8;
  /// TN: a block of 256 threads owns 256 columns of A and skinny_tn_tile rows at a time (the
  /// matching rows of B staged in shared memory); grid capped so that the per-block partial
  /// products (blocks x k x n floats) stay small.
  static constexpr int skinny_tn_tile = 32;
  static constexpr unsigned skinny_tn_blocks = 132 * 4;
};

}  // namespace ringblas::cuda::dense_nn
