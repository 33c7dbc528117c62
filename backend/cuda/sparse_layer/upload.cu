// Host-to-device copies over several host threads (see upload.hpp).
#include "backend/cuda/sparse_layer/upload.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>

#include "backend/cuda/common/check.cuh"

namespace ringblas::cuda::sparse_layer {

void upload(const std::vector<UploadPiece>& pieces, int device, cudaStream_t s) {
  constexpr std::size_t part = std::size_t(8) << 20;
  std::size_t total = 0;
  for (const UploadPiece& p : pieces) total += p.bytes;
  const unsigned threads = unsigned(std::min<std::size_t>(
      {std::size_t(4), std::max(1u, std::thread::hardware_concurrency()), total / part}));
  RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));  // the destinations exist
  if (threads <= 1) {
    for (const UploadPiece& p : pieces)
      if (p.bytes) RINGBLAS_CUDA_TRY(cudaMemcpyAsync(p.dst, p.src, p.bytes, cudaMemcpyHostToDevice, s));
    RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));
    return;
  }
  // Parts of about total / threads bytes (at least `part`), dealt to the threads in turn.
  const std::size_t share = std::max(part, (total + threads - 1) / threads);
  std::vector<std::vector<UploadPiece>> work(threads);
  std::size_t given = 0;
  for (const UploadPiece& p : pieces)
    for (std::size_t at = 0; at < p.bytes;) {
      const std::size_t t = std::min<std::size_t>(threads - 1, given / share);
      const std::size_t room = (t + 1) * share - given;
      const std::size_t len = std::min(p.bytes - at, std::max<std::size_t>(room, 1));
      work[t].push_back({static_cast<char*>(p.dst) + at, static_cast<const char*>(p.src) + at, len});
      at += len;
      given += len;
    }
  std::exception_ptr failure;
  std::mutex lock;
  auto run = [&](const std::vector<UploadPiece>& mine) {
    try {
      RINGBLAS_CUDA_TRY(cudaSetDevice(device));  // a new thread starts on device 0
      cudaStream_t own = nullptr;
      RINGBLAS_CUDA_TRY(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
      for (const UploadPiece& p : mine)
        if (p.bytes) RINGBLAS_CUDA_TRY(cudaMemcpyAsync(p.dst, p.src, p.bytes, cudaMemcpyHostToDevice, own));
      const cudaError_t e = cudaStreamSynchronize(own);
      cudaStreamDestroy(own);
      RINGBLAS_CUDA_TRY(e);
    } catch (...) {
      const std::lock_guard<std::mutex> hold(lock);
      if (!failure) failure = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(run, std::cref(work[t]));
  run(work[0]);
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace ringblas::cuda::sparse_layer
