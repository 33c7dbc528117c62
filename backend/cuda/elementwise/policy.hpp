// Tuning constants of the element-wise family (bench_elementwise chooses and reports them).
#pragma once

namespace ringblas::cuda::elementwise {

struct Policy {
  /// Threads per block of every kernel: row kernels give one row per thread, entry kernels one
  /// entry per thread (bench_elementwise: 256 and 128 within noise on an H100; 256 keeps grids
  /// of 100M entries under 2^22 blocks).
  static constexpr int block = 256;
};

}  // namespace ringblas::cuda::elementwise
