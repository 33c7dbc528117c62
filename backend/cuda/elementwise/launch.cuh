// Host-side helpers shared by the element-wise launchers: an in-place exclusive scan of row counts
// (CUB) that returns the total, the one host synchronisation each operation makes (the output's
// nnz must be known to allocate it).
#pragma once
#include <cstddef>
#include <cub/device/device_scan.cuh>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/elementwise/policy.hpp"

namespace ringblas::cuda::elementwise {

/// data[0..count) := exclusive prefix sums of data[0..count); returns the last prefix (the total
/// of the first count - 1 inputs), read to the host. Like cuda::write_back, this size read is a
/// synchronisation, not a data copy, and is not counted in ctx.transfers (the trace names it).
template <class I>
I exclusive_scan_total(I* data, std::size_t count, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  std::size_t bytes = 0;
  RINGBLAS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, data, data, count, s));
  {
    device_array<unsigned char> tmp(bytes, ctx);
    RINGBLAS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(tmp.data(), bytes, data, data, count, s));
  }
  I total = 0;
  RINGBLAS_CUDA_TRY(
      cudaMemcpyAsync(&total, data + (count - 1), sizeof(I), cudaMemcpyDeviceToHost, s));
  RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));
  return total;
}

inline unsigned blocks_for(std::size_t n) { return grid_for(n, Policy::block); }

}  // namespace ringblas::cuda::elementwise
