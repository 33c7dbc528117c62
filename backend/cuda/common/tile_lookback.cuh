// Decoupled look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", NVIDIA TR 2016): a kernel whose blocks each produce a variable number of outputs
// learns where its block's outputs start without a separate count pass and scan. Each block
// publishes its aggregate, then its first warp walks back over its predecessors' published
// aggregates / inclusive prefixes (CUB's ScanTileState and TilePrefixCallbackOp, as CUB's own
// single-pass scan uses them in cub/agent/agent_scan.cuh). Shared by the kernels that write a
// compacted output in one pass (element-wise one-pass merge; select / row_filter can reuse it).
//
// Precondition (the same as CUB's): tile t is block t of one launch, so that the blocks of
// earlier tiles have been scheduled when a block waits for them.
#pragma once
#include <cstddef>
#include <cub/agent/single_pass_scan_operators.cuh>
#include <cuda/std/functional>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"

namespace ringblas::cuda {

template <class I>
__global__ void k_tile_lookback_init(cub::ScanTileState<I> state, int ntiles) {
  state.InitializeStatus(ntiles);
}

/// The status words of `ntiles` tiles, allocated and initialised on ctx's stream.
template <class I>
struct TileLookback {
  using State = cub::ScanTileState<I>;
  using Prefix = cub::TilePrefixCallbackOp<I, ::cuda::std::plus<>, State>;
  using TempStorage = typename Prefix::TempStorage;

  device_array<unsigned char> storage;
  State state;

  TileLookback(int ntiles, const Context& ctx) {
    std::size_t bytes = 0;
    RINGBLAS_CUDA_TRY(State::AllocationSize(ntiles, bytes));
    storage = device_array<unsigned char>(bytes, ctx);
    RINGBLAS_CUDA_TRY(state.Init(ntiles, storage.data(), bytes));
    constexpr int block = 256;
    k_tile_lookback_init<I>
        <<<grid_for(std::size_t(ntiles), block), block, 0, stream_of(ctx)>>>(state, ntiles);
    RINGBLAS_CHECK_LAUNCH("k_tile_lookback_init", stream_of(ctx), ctx.debug_sync);
  }
};

/// Called by every lane of the block's first warp (threadIdx.x < 32) with the block's aggregate
/// (the same in every lane): publishes it and returns, in every lane, the sum of the aggregates
/// of the tiles before tile blockIdx.x.
template <class I>
__device__ __forceinline__ I tile_exclusive_prefix(typename TileLookback<I>::State& state,
                                                   typename TileLookback<I>::TempStorage& temp,
                                                   I aggregate) {
  if (blockIdx.x == 0) {
    // No predecessor: publish the inclusive prefix at once (CUB's first tile does the same).
    if (threadIdx.x == 0) state.SetInclusive(0, aggregate);
    return I(0);
  }
  typename TileLookback<I>::Prefix prefix(state, temp, ::cuda::std::plus<>{}, int(blockIdx.x));
  const I excl = prefix(aggregate);  // valid in lane 0 (a warp reduction's result)
  return __shfl_sync(0xffffffffu, excl, 0);
}

}  // namespace ringblas::cuda
