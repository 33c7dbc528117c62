// A typed, owning device array on top of ringblas::Buffer (memory from the context's pool; RAII).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "backend/cuda/common/check.cuh"
#include "ringblas/buffer.hpp"
#include "ringblas/context.hpp"

namespace ringblas::cuda {

inline cudaStream_t stream_of(const Context& ctx) { return static_cast<cudaStream_t>(ctx.stream); }

template <class T> class device_array {
 public:
  device_array() = default;
  device_array(std::size_t n, const Context& ctx)
      : buf_(n * sizeof(T), Location::device, &ctx), n_(n) {}
  /// Adopts a device buffer holding buf.size() / sizeof(T) elements.
  explicit device_array(Buffer buf) : buf_(std::move(buf)), n_(buf_.size() / sizeof(T)) {}

  T* data() { return buf_.as<T>(); }
  const T* data() const { return buf_.as<T>(); }
  std::size_t size() const { return n_; }
  Buffer release() { n_ = 0; return std::move(buf_); }

  void fill_zero(const Context& ctx) {
    if (n_) RINGBLAS_CUDA_TRY(cudaMemsetAsync(data(), 0, n_ * sizeof(T), stream_of(ctx)));
  }
  /// Synchronous copy of the first `count` elements to the host.
  std::vector<T> to_host(const Context& ctx, std::size_t count) const {
    std::vector<T> out(count);
    if (count) {
      RINGBLAS_CUDA_TRY(cudaMemcpyAsync(out.data(), data(), count * sizeof(T),
                                        cudaMemcpyDeviceToHost, stream_of(ctx)));
      RINGBLAS_CUDA_TRY(cudaStreamSynchronize(stream_of(ctx)));
    }
    return out;
  }
  std::vector<T> to_host(const Context& ctx) const { return to_host(ctx, n_); }
  void from_host(const std::vector<T>& v, const Context& ctx) {
    if (!v.empty())
      RINGBLAS_CUDA_TRY(cudaMemcpyAsync(data(), v.data(), v.size() * sizeof(T),
                                        cudaMemcpyHostToDevice, stream_of(ctx)));
  }

 private:
  Buffer buf_;
  std::size_t n_ = 0;
};

/// Grid size for `n` items at `per_block` items per block (at least 1).
inline unsigned grid_for(std::size_t n, std::size_t per_block) {
  std::size_t g = (n + per_block - 1) / per_block;
  return unsigned(g == 0 ? 1 : g);
}

}  // namespace ringblas::cuda
