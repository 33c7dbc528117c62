// bin_fork: side streams per device (created once, kept for the process) and events per host
// thread and device (created once: creating them per call cost ~10 us, a tenth of a small call).
#include "backend/cuda/spgemm_hash/bin_streams.hpp"

#include <map>
#include <mutex>

#include "backend/cuda/common/check.cuh"

namespace ringblas::cuda::spgemm_hash {
namespace {

const std::vector<cudaStream_t>& side_streams(int device, int count) {
  static std::mutex m;
  static std::map<int, std::vector<cudaStream_t>> streams;
  std::lock_guard<std::mutex> lock(m);
  auto& v = streams[device];
  while (int(v.size()) < count) {
    cudaStream_t s;
    RINGBLAS_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    v.push_back(s);
  }
  return v;
}

/// count + 1 events of this host thread for `device`. A thread's calls are sequential, and a
/// wait takes the event's state when it is enqueued, so re-recording in a later call is safe;
/// other threads use their own events.
const std::vector<cudaEvent_t>& thread_events(int device, int count) {
  thread_local std::map<int, std::vector<cudaEvent_t>> events;
  auto& v = events[device];
  while (int(v.size()) < count + 1) {
    cudaEvent_t e;
    RINGBLAS_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    v.push_back(e);
  }
  return v;
}

}  // namespace

bin_fork::bin_fork(cudaStream_t main, int device, int count, bool main_first)
    : main_(main), main_first_(main_first) {
  if (count <= 0) return;
  const auto& all = side_streams(device, count);
  side_.assign(all.begin(), all.begin() + count);
  used_.assign(side_.size(), false);
  const auto& ev = thread_events(device, count);
  fork_ = ev[0];
  done_.assign(ev.begin() + 1, ev.begin() + 1 + count);
  RINGBLAS_CUDA_TRY(cudaEventRecord(fork_, main_));
  joined_ = false;
}

bin_fork::~bin_fork() {
  if (!joined_) {
    // An exception left kernels in flight on side streams: make the caller's stream wait for
    // them anyway, so that the buffers they use are not reused early. Errors here are dropped
    // (a destructor cannot throw; the first error has already been reported).
    for (std::size_t i = 0; i < side_.size(); ++i)
      if (used_[i] && cudaEventRecord(done_[i], side_[i]) == cudaSuccess)
        cudaStreamWaitEvent(main_, done_[i], 0);
  }
}

cudaStream_t bin_fork::next() {
  if (main_first_ && turn_ == 0) {
    ++turn_;
    return main_;
  }
  if (side_.empty()) return main_;
  const std::size_t i = std::size_t(turn_++ - (main_first_ ? 1 : 0)) % side_.size();
  if (!used_[i]) {
    RINGBLAS_CUDA_TRY(cudaStreamWaitEvent(side_[i], fork_, 0));
    used_[i] = true;
  }
  return side_[i];
}

void bin_fork::join() {
  for (std::size_t i = 0; i < side_.size(); ++i)
    if (used_[i]) {
      RINGBLAS_CUDA_TRY(cudaEventRecord(done_[i], side_[i]));
      RINGBLAS_CUDA_TRY(cudaStreamWaitEvent(main_, done_[i], 0));
      used_[i] = false;
    }
  joined_ = true;
}

}  // namespace ringblas::cuda::spgemm_hash
