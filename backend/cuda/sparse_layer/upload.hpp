// Host-to-device copies of large pageable arrays for the sparse_layer chain (weights and sparse
// features): a pageable copy runs at the speed of the driver's staging through one host thread,
// so large arrays are split over a few host threads, each on its own stream.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace ringblas::cuda::sparse_layer {

/// One host-to-device copy to queue.
struct UploadPiece {
  void* dst;
  const void* src;
  std::size_t bytes;
};

/// Copies every piece (host memory, pageable or not) to the device of `device` and returns when
/// all are there. Work queued on `s` before the call (the destinations' stream-ordered
/// allocations) completes first. Pieces are cut into parts of at least 8 MB spread over up to
/// four host threads; small totals are copied by the calling thread.
void upload(const std::vector<UploadPiece>& pieces, int device, cudaStream_t s);

}  // namespace ringblas::cuda::sparse_layer
