// Concurrent row bins of spgemm_hash: the kernels of one phase (one per bin) fork from the
// caller's stream onto a few side streams and join back before the phase's result is used, so
// that small bins and the tail of the largest rows overlap (spECK launches its bins on 6 streams).
#pragma once
#include <cuda_runtime.h>

#include <vector>

namespace ringblas::cuda::spgemm_hash {

/// One fork/join over `count` side streams of `device` (created once per device, non-blocking);
/// with count <= 0 every launch stays on the caller's stream. With `main_first` the first launch
/// goes to the caller's stream (n kernels need n - 1 side streams; each costs an event record and
/// a wait, ~1 us of host time). Events belong to the calling host thread, so concurrent callers
/// never wait on each other's records. Call join() before freeing or reading anything the forked
/// kernels use (device memory is freed in the caller's stream's order only).
class bin_fork {
 public:
  bin_fork(cudaStream_t main, int device, int count, bool main_first);
  ~bin_fork();
  bin_fork(const bin_fork&) = delete;
  bin_fork& operator=(const bin_fork&) = delete;
  /// The stream for the next bin's kernel (the caller's first if main_first, then the side
  /// streams round robin; each has waited for the fork point).
  cudaStream_t next();
  /// Makes the caller's stream wait for every kernel launched on a side stream.
  void join();

 private:
  cudaStream_t main_;
  std::vector<cudaStream_t> side_;
  std::vector<bool> used_;
  cudaEvent_t fork_ = nullptr;
  std::vector<cudaEvent_t> done_;
  int turn_ = 0;
  bool main_first_ = false;
  bool joined_ = true;
};

}  // namespace ringblas::cuda::spgemm_hash
