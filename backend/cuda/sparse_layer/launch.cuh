// Launchers of the sparse_layer kernel (instantiated in kernels.cu for the manifest below).
#pragma once
#include <cuda_runtime.h>

#include "backend/cuda/sparse_layer/agent.cuh"
#include "backend/cuda/sparse_layer/prepare.hpp"
#include "backend/cuda/sparse_layer/tail.cuh"

namespace ringblas::cuda::sparse_layer {

/// The view of a prepared layer whose blob is at `base` on the device.
inline LayerView view_of(const BlobLayout& L, const void* base) {
  const std::uint32_t* w = static_cast<const std::uint32_t*>(base);
  LayerView v;
  v.stage_displ = reinterpret_cast<const std::int32_t*>(w + L.stage_displ);
  v.map_displ = reinterpret_cast<const std::int32_t*>(w + L.map_displ);
  v.map = reinterpret_cast<const std::int32_t*>(w + L.map);
  v.warp_displ = reinterpret_cast<const std::int32_t*>(w + L.warp_displ);
  v.index = reinterpret_cast<const std::uint16_t*>(w + L.index);
  v.value = reinterpret_cast<const float*>(w + L.value);
  v.outputs = L.outputs;
  v.blocks = L.blocks;
  return v;
}

/// Shared memory per block of the kernel.
constexpr int shared_bytes() { return Policy::minibatch * Policy::buffer * int(sizeof(float)); }

/// Manifest: plus_times over fp32, with the Graph Challenge epilogue and the Epilogue of mxm.
void launch_layer(const LayerView& L, const FeatureArgs& F, const BiasReluClamp& epi, cudaStream_t s,
                  bool sync);
void launch_layer(const LayerView& L, const FeatureArgs& F, const ColumnEpilogue& epi, cudaStream_t s,
                  bool sync);

/// The tail kernel over A.bound features (grid: one block per minibatch of them): StagedTail when
/// A.stage_rows > 0 and tail_stages(A.neurons), else Tail or WideTail.
void launch_tail(const TailArgs& A, cudaStream_t s, bool sync);

/// Features the tail kernel that launch_tail picks for (neurons, stage_rows) runs in one wave on
/// the current device (0 when its shared memory does not fit).
int tail_capacity(int neurons, int stage_rows);

/// Whether the staged tail kernel runs networks of `neurons` (else launch_tail takes the rows one).
bool tail_stages(int neurons);

}  // namespace ringblas::cuda::sparse_layer

namespace ringblas::cuda::sparse_layer {
/// Element p of an index array stored as int32 (wide 0) or int64 (wide 1).
__device__ __forceinline__ long long load_index(const void* a, int wide, long long p) {
  return wide ? static_cast<const long long*>(a)[p] : static_cast<const int*>(a)[p];
}
}  // namespace ringblas::cuda::sparse_layer
