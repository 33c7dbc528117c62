// Device properties read once per device (SM count, opt-in shared memory, L2), for launch planning.
#pragma once
#include <cstddef>
#include <string>

namespace ringblas::cuda {

struct DeviceProps {
  std::string name;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  std::size_t smem_per_block_optin = 0;  ///< dynamic shared memory a block may opt into
  std::size_t smem_per_sm = 0;
  std::size_t l2_bytes = 0;
  std::size_t total_memory = 0;
};

/// Properties of `device`, queried on first use and cached (thread-safe).
const DeviceProps& device_props(int device);

/// Bytes of device memory currently free (cudaMemGetInfo plus what the default pool holds
/// unused), for planning chunked work.
std::size_t device_free_bytes();

}  // namespace ringblas::cuda
