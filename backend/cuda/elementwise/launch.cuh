// Host-side helpers shared by the element-wise launchers: grid sizes from the policy, and the
// shared scan of row counts (common/scan_total.cuh).
#pragma once
#include <cstddef>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/scan_total.cuh"
#include "backend/cuda/elementwise/policy.hpp"

namespace ringblas::cuda::elementwise {

inline unsigned blocks_for(std::size_t n) { return grid_for(n, Policy::block); }

}  // namespace ringblas::cuda::elementwise
