// Device memory: allocations from the device's default stream-ordered pool (cudaMallocAsync),
// which keeps freed blocks for reuse so repeated operations do not pay cudaMalloc each time.
#include <cuda_runtime.h>

#include <cstring>
#include <string>

#include "backend/core/containers/device_fill.hpp"
#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/host_read.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "ringblas/buffer.hpp"
#include "ringblas/context.hpp"
#include "ringblas/error.hpp"

namespace ringblas {
namespace {

cudaStream_t stream_of(const Context* ctx) {
  return ctx ? static_cast<cudaStream_t>(ctx->stream) : cudaStream_t{};
}

void keep_pool_memory_once() {
  static const bool done = [] {
    int dev = 0;
    cudaMemPool_t pool;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
      unsigned long long keep = ~0ull;  // never trim the pool back to the OS between calls
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    return true;
  }();
  (void)done;
}

/// Both pointers are device memory of the current device.
bool same_device(const void* a, const void* b) {
  int current = 0;
  cudaPointerAttributes pa{}, pb{};
  if (cudaGetDevice(&current) != cudaSuccess || cudaPointerGetAttributes(&pa, a) != cudaSuccess ||
      cudaPointerGetAttributes(&pb, b) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return pa.type == cudaMemoryTypeDevice && pb.type == cudaMemoryTypeDevice &&
         pa.device == current && pb.device == current;
}

template <class T> __global__ void fill_kernel(T* dst, T value, std::size_t n) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k < n) dst[k] = value;
}

__global__ void iota_kernel(std::int64_t* dst, std::size_t n) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k < n) dst[k] = std::int64_t(k);
}

unsigned blocks_of(std::size_t n) { return static_cast<unsigned>((n + 255) / 256); }

template <class T> void fill_as(void* dst, const void* pattern, std::size_t n, const Context* ctx) {
  T value;
  std::memcpy(&value, pattern, sizeof(T));
  fill_kernel<T><<<blocks_of(n), 256, 0, stream_of(ctx)>>>(static_cast<T*>(dst), value, n);
  RINGBLAS_CHECK_LAUNCH("fill_kernel", stream_of(ctx), ctx && ctx->debug_sync);
}

}  // namespace

namespace detail {

void device_fill(void* dst, const void* pattern, std::size_t elem_size, std::size_t count,
                 const Context* ctx) {
  if (count == 0) return;
  switch (elem_size) {
    case 1: return fill_as<std::uint8_t>(dst, pattern, count, ctx);
    case 2: return fill_as<std::uint16_t>(dst, pattern, count, ctx);
    case 4: return fill_as<std::uint32_t>(dst, pattern, count, ctx);
    case 8: return fill_as<std::uint64_t>(dst, pattern, count, ctx);
    default:
      throw InvalidValue("device_fill: element size " + std::to_string(elem_size) +
                         " is not 1, 2, 4 or 8");
  }
}

void device_iota(std::int64_t* dst, std::size_t count, const Context* ctx) {
  if (count == 0) return;
  iota_kernel<<<blocks_of(count), 256, 0, stream_of(ctx)>>>(dst, count);
  RINGBLAS_CHECK_LAUNCH("iota_kernel", stream_of(ctx), ctx && ctx->debug_sync);
}


void* device_allocate(std::size_t bytes, const Context* ctx) {
  if (!cuda::device_present())
    throw CudaError("device allocation of " + std::to_string(bytes) +
                    " bytes: no CUDA device is visible to this process");
  keep_pool_memory_once();
  // Sizes are padded to 8 bytes: a one-byte value updated atomically is updated through a
  // compare-and-swap on its enclosing 4-byte word (common/monoid_atomics.cuh), which must lie
  // inside the allocation.
  bytes = (bytes + 7) & ~std::size_t{7};
  void* p = nullptr;
  cudaError_t err = cudaMallocAsync(&p, bytes, stream_of(ctx));
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    std::size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    throw OutOfMemory("device allocation of " + std::to_string(bytes) + " bytes failed (" +
                          std::to_string(free_b) + " of " + std::to_string(total_b) +
                          " bytes free)",
                      bytes);
  }
  if (err != cudaSuccess) cuda::detail::throw_cuda_error(err, "cudaMallocAsync", __FILE__, __LINE__);
  return p;
}

void device_free(void* p, void* stream) noexcept {
  // On the stream the memory was allocated (or handed) to, after the work queued there: the pool
  // reuses the block only in that order (buffer.hpp says what the owner must guarantee).
  cudaFreeAsync(p, static_cast<cudaStream_t>(stream));
}

void copy_bytes(void* dst, Location dst_loc, const void* src, Location src_loc, std::size_t bytes,
                const Context* ctx) {
  if (bytes == 0) return;
  if (dst_loc == Location::host && src_loc == Location::host) {
    std::memcpy(dst, src, bytes);  // no CUDA call: host copies must work on machines without a driver
    return;
  }
  cudaMemcpyKind kind = dst_loc == Location::host
                            ? (src_loc == Location::host ? cudaMemcpyHostToHost : cudaMemcpyDeviceToHost)
                            : (src_loc == Location::host ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice);
  cudaStream_t s = stream_of(ctx);
  RINGBLAS_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, kind, s));
  // A copy within one device is ordered with the work on its stream (on the legacy stream, with
  // every blocking stream): the host need not wait (a Vector or Matrix copy on the device was a
  // host round trip each). Copies that touch host memory, or another device, complete first.
  if (kind != cudaMemcpyDeviceToDevice || !same_device(dst, src))
    RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));
}

}  // namespace detail

namespace cuda {
bool device_present() {
  static const bool present = [] {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  }();
  return present;
}
void synchronize(const Context& ctx) {
  if (device_present()) cudaStreamSynchronize(static_cast<cudaStream_t>(ctx.stream));
}

namespace {
/// A host thread's pinned buffer for read_to_host, allocated at its first read and freed when
/// the thread ends; null if the allocation failed (reads then stage as pageable).
struct PinnedReadSlot {
  void* p = nullptr;
  PinnedReadSlot() {
    if (cudaMallocHost(&p, kPinnedReadBytes) != cudaSuccess) {
      cudaGetLastError();
      p = nullptr;
    }
  }
  ~PinnedReadSlot() {
    if (p) cudaFreeHost(p);
  }
  PinnedReadSlot(const PinnedReadSlot&) = delete;
  PinnedReadSlot& operator=(const PinnedReadSlot&) = delete;
};
}  // namespace

void read_to_host(void* dst, const void* src, std::size_t bytes, const Context& ctx) {
  if (bytes == 0) return;
  const cudaStream_t s = stream_of(&ctx);
  // Each call copies, waits and takes the bytes out before returning: one slot per thread is
  // enough, whatever the context or stream.
  thread_local PinnedReadSlot slot;
  void* to = bytes <= kPinnedReadBytes && slot.p ? slot.p : dst;
  RINGBLAS_CUDA_TRY(cudaMemcpyAsync(to, src, bytes, cudaMemcpyDeviceToHost, s));
  RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));
  if (to != dst) std::memcpy(dst, to, bytes);
}
}  // namespace cuda
}  // namespace ringblas
