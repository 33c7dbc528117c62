// Device properties read once per device and cached; free-memory query for planners.
#include <cuda_runtime.h>

#include <cstdint>

#include <array>
#include <memory>
#include <mutex>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_props.hpp"

namespace ringblas::cuda {

const DeviceProps& device_props(int device) {
  static std::mutex mu;
  static std::array<std::unique_ptr<DeviceProps>, 64> cache;
  if (device < 0 || device >= int(cache.size()))
    throw InvalidValue("device_props: device " + std::to_string(device) + " out of range");
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[std::size_t(device)];
  if (!slot) {
    cudaDeviceProp p{};
    RINGBLAS_CUDA_TRY(cudaGetDeviceProperties(&p, device));
    auto d = std::make_unique<DeviceProps>();
    d->name = p.name;
    d->sm_count = p.multiProcessorCount;
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->smem_per_block_optin = p.sharedMemPerBlockOptin;
    d->smem_per_sm = p.sharedMemPerMultiprocessor;
    d->l2_bytes = std::size_t(p.l2CacheSize);
    d->total_memory = p.totalGlobalMem;
    slot = std::move(d);
  }
  return *slot;
}

std::size_t device_free_bytes() {
  std::size_t free_b = 0, total_b = 0;
  RINGBLAS_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
  // Blocks the stream-ordered pool keeps for reuse are free to us but not to cudaMemGetInfo.
  int dev = 0;
  cudaMemPool_t pool;
  std::uint64_t reserved = 0, used = 0;
  if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess &&
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) == cudaSuccess &&
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess &&
      reserved > used)
    free_b += std::size_t(reserved - used);
  return free_b;
}

}  // namespace ringblas::cuda
