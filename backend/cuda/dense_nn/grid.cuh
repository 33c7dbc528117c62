// Grid sizes of the dense_nn launchers (launch.cu, fused_layer.cu).
#pragma once
#include <cstddef>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/dense_nn/policy.hpp"

namespace ringblas::cuda::dense_nn {

/// Blocks of a grid-stride kernel over n items, Policy::block a block, capped at
/// Policy::max_blocks.
inline unsigned stride_grid(std::size_t n) {
  const unsigned g = grid_for(n, Policy::block);
  return g < Policy::max_blocks ? g : Policy::max_blocks;
}

}  // namespace ringblas::cuda::dense_nn
