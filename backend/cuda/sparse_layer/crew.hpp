// A crew of host threads kept between calls: run(job) runs job(t) for t = 1..T-1 on the crew's
// threads and job(0) on the caller, and returns when every one has finished. The packed upload
// (packed_upload.cu, PackThreads::crew) keeps one per device with its streams, events and pinned
// slots, so that a call does not pay for creating T - 1 threads, streams and events (and the
// CUDA runtime's per-thread set-up) every time. Plain host code: tests/cpu/test_crew.cpp.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ringblas::cuda::sparse_layer {

class Crew {
 public:
  /// `size` workers in all: the caller and size - 1 threads (size 0 counts as 1).
  explicit Crew(unsigned size) : size_(size == 0 ? 1 : size) {
    for (unsigned t = 1; t < size_; ++t) threads_.emplace_back([this, t] { serve(t); });
  }
  Crew(const Crew&) = delete;
  Crew& operator=(const Crew&) = delete;
  ~Crew() {
    {
      const std::lock_guard<std::mutex> hold(lock_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& th : threads_) th.join();
  }

  unsigned size() const { return size_; }

  /// job(t) for every worker t; one run at a time per crew (whoever holds it). The first exception
  /// thrown by any worker is rethrown here, after every worker has finished.
  void run(const std::function<void(unsigned)>& job) {
    {
      const std::lock_guard<std::mutex> hold(lock_);
      job_ = &job;
      failure_ = nullptr;
      pending_ = size_ - 1;
      ++generation_;
    }
    wake_.notify_all();
    attempt(job, 0);
    std::unique_lock<std::mutex> hold(lock_);
    done_.wait(hold, [this] { return pending_ == 0; });  // job_ is not used after this
    job_ = nullptr;
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  void attempt(const std::function<void(unsigned)>& job, unsigned t) {
    try {
      job(t);
    } catch (...) {
      const std::lock_guard<std::mutex> hold(lock_);
      if (!failure_) failure_ = std::current_exception();
    }
  }

  void serve(unsigned t) {
    std::size_t seen = 0;
    for (;;) {
      const std::function<void(unsigned)>* job = nullptr;
      {
        std::unique_lock<std::mutex> hold(lock_);
        wake_.wait(hold, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      attempt(*job, t);
      {
        const std::lock_guard<std::mutex> hold(lock_);
        if (--pending_ == 0) done_.notify_one();
      }
    }
  }

  const unsigned size_;
  std::vector<std::thread> threads_;
  std::mutex lock_;
  std::condition_variable wake_, done_;
  const std::function<void(unsigned)>* job_ = nullptr;
  std::exception_ptr failure_;
  std::size_t generation_ = 0;
  unsigned pending_ = 0;
  bool stop_ = false;
};

}  // namespace ringblas::cuda::sparse_layer
