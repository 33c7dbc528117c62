// Host-side helpers shared by the element-wise launchers: grid sizes from the policy, the rows
// of entry tiles, and the shared scan of row counts (common/scan_total.cuh).
#pragma once
#include <cstddef>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/scan_total.cuh"
#include "backend/cuda/elementwise/agent.cuh"
#include "backend/cuda/elementwise/policy.hpp"

namespace ringblas::cuda::elementwise {

inline unsigned blocks_for(std::size_t n) { return grid_for(n, Policy::block); }

/// The rows of the tiles of `tile` entries of a CSR with `total` > 0 entries (agent.cuh
/// k_tile_rows): ceil(total / tile) + 1 values, computed on the device.
template <class I>
device_array<I> tile_rows(const I* rp, I nrows, std::size_t total, std::size_t tile,
                          const Context& ctx) {
  const std::size_t ntiles = (total + tile - 1) / tile;
  device_array<I> out(ntiles + 1, ctx);
  k_tile_rows<I><<<blocks_for(ntiles + 1), Policy::block, 0, stream_of(ctx)>>>(
      ntiles, tile, total, nrows, rp, out.data());
  RINGBLAS_CHECK_LAUNCH("k_tile_rows", stream_of(ctx), ctx.debug_sync);
  return out;
}

}  // namespace ringblas::cuda::elementwise
