// The CUDA device of one `spdnn --gpus G` rank; the CLI's only direct CUDA runtime calls, because
// the device must be current before the rank's first allocation (ctx.device names it too).
#include "spdnn_device.hpp"

#include <string>

#include "ringblas/error.hpp"
#if defined(RINGBLAS_HAS_CUDA)
#include <cuda_runtime.h>
#endif

namespace ringblas::cli {

#if defined(RINGBLAS_HAS_CUDA)
namespace {
void check(cudaError_t e, const char* call, int rank) {
  if (e != cudaSuccess)
    throw CudaError("spdnn rank " + std::to_string(rank) + ": " + call + ": " +
                    cudaGetErrorString(e));
}
}  // namespace

RankDevice select_rank_device(int local_rank, int rank) {
  RankDevice d;
  const cudaError_t e = cudaGetDeviceCount(&d.visible);
  if (e != cudaSuccess || d.visible == 0)
    throw CudaError("spdnn rank " + std::to_string(rank) + ": no CUDA device is visible (" +
                    (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") + ")");
  d.device = local_rank % d.visible;
  check(cudaSetDevice(d.device), "cudaSetDevice", rank);
  int current = -1;
  check(cudaGetDevice(&current), "cudaGetDevice", rank);
  if (current != d.device)
    throw CudaError("spdnn rank " + std::to_string(rank) + ": cudaSetDevice(" +
                    std::to_string(d.device) + ") left device " + std::to_string(current) +
                    " current");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, d.device), "cudaGetDeviceProperties", rank);
  d.name = prop.name;
  char bus[32] = {};
  check(cudaDeviceGetPCIBusId(bus, int(sizeof bus), d.device), "cudaDeviceGetPCIBusId", rank);
  d.pci_bus = bus;
  return d;
}

bool current_device_is(int device) {
  int current = -1;
  return cudaGetDevice(&current) == cudaSuccess && current == device;
}
#else
RankDevice select_rank_device(int, int rank) {
  throw NotCompiled("spdnn rank " + std::to_string(rank) +
                    ": a GPU run needs the cuda backend, and this ringblas was built without CUDA");
}

bool current_device_is(int device) { return device < 0; }
#endif

}  // namespace ringblas::cli
