// Tuning constants of the sparse_layer kernel family (one place; the benchmark named per field).
#pragma once

namespace ringblas::cuda::sparse_layer {

struct Policy {
  /// Features per thread, kept in registers so each weight index/value is loaded once for all
  /// of them: Hidayetoglu et al.'s value (V100/A100), not re-tuned here (bench_spdnn would).
  static constexpr int minibatch = 12;
  /// Output neurons per block (8 warps, one neuron per thread); the paper's value.
  static constexpr int block = 256;
  static constexpr int warps = block / 32;
  /// Input rows staged in shared memory per stage: minibatch x buffer x 4 B = 48 KB, which keeps
  /// four blocks per H100 SM and holds every input of a 1024-neuron layer in one stage.
  static constexpr int buffer = 1024;
  /// Blocks per SM the kernel is compiled for (__launch_bounds__): 3 gives 80 registers without
  /// spills; 4 (which 48 KB of shared memory would allow) spills at 64 registers.
  static constexpr int blocks_per_sm = 3;
};

}  // namespace ringblas::cuda::sparse_layer
