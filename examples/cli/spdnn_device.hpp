// The CUDA device of one `spdnn --gpus G` rank: chosen explicitly, set and checked.
#pragma once
#include <string>

namespace ringblas::cli {

struct RankDevice {
  int device = -1;      ///< the CUDA ordinal this rank set current (-1: none, cpu run)
  int visible = 0;      ///< devices visible to this rank
  std::string name;     ///< e.g. "NVIDIA H200"
  std::string pci_bus;  ///< e.g. "0000:1B:00.0": tells ranks on one host apart
};

/// Device (local_rank % visible devices) made current with cudaSetDevice, then read back with
/// cudaGetDevice and compared. CudaError naming the rank when no device is visible or a call
/// fails; NotCompiled in a build without CUDA.
RankDevice select_rank_device(int local_rank, int rank);

/// True when the current device is still `device` (checked after inference).
bool current_device_is(int device);

}  // namespace ringblas::cli
