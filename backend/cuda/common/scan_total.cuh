// In-place exclusive scan of per-row counts (CUB) returning the total: the one host
// synchronisation a sparse output needs (its nnz must be known to allocate it). Shared by
// write_back and the element-wise family.
#pragma once
#include <cstddef>
#include <cub/device/device_scan.cuh>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/host_read.hpp"

namespace ringblas::cuda {

/// data[0..count) := exclusive prefix sums of data[0..count); returns the last prefix (the total
/// of the first count - 1 inputs), read to the host: one element, a synchronisation rather than a
/// data copy, so not counted in ctx.transfers (callers name it in the trace). `side`, when given,
/// is a two-element device array whose element 1 a kernel has set (a side result, say how many
/// rows need a slower path): the total is copied into element 0 and both come back in one copy,
/// element 1 into *side_value, so that the second value costs no second synchronisation.
/// data[0..count) := exclusive prefix sums of data[0..count), on the stream, nothing read back.
template <class I>
void exclusive_scan_in_place(I* data, std::size_t count, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  std::size_t bytes = 0;
  RINGBLAS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, data, data, count, s));
  device_array<unsigned char> tmp(bytes, ctx);
  RINGBLAS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(tmp.data(), bytes, data, data, count, s));
}

template <class I>
I exclusive_scan_total(I* data, std::size_t count, const Context& ctx, I* side = nullptr,
                       I* side_value = nullptr) {
  cudaStream_t s = stream_of(ctx);
  exclusive_scan_in_place(data, count, ctx);
  I read[2] = {0, 0};
  if (side) {
    RINGBLAS_CUDA_TRY(
        cudaMemcpyAsync(side, data + (count - 1), sizeof(I), cudaMemcpyDeviceToDevice, s));
    read_to_host(read, side, 2 * sizeof(I), ctx);
  } else {
    read_to_host(read, data + (count - 1), sizeof(I), ctx);
  }
  if (side_value) *side_value = read[1];
  return read[0];
}

}  // namespace ringblas::cuda
