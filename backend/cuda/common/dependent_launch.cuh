// Programmatic dependent launch (sm_90, CUDA 12+): a kernel launched as the dependent of the
// previous kernel in its stream may start while that one is still draining, doing the work that
// does not read the previous kernel's output (index searches, loads of inputs), and waits for
// it with grid_dependency_wait() before the first access that does. Without the launch attribute,
// or below sm_90, the wait returns at once and the launch is an ordinary stream-ordered one.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "backend/cuda/common/check.cuh"

namespace ringblas::cuda::detail {

/// Dependent side: blocks until the previous kernel in the stream has completed and its memory
/// operations are visible (griddepcontrol.wait); a no-op when not launched as a dependent.
__device__ __forceinline__ void grid_dependency_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Previous-kernel side: lets the dependent launch before this block exits (it still waits in
/// grid_dependency_wait for this whole grid's completion, so this only moves its start earlier).
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

/// kernel<<<grid, block, smem, stream>>>(args...), launched as the dependent of the previous
/// kernel in `stream` when `dependent` (the kernel must call grid_dependency_wait before it reads
/// or writes what that kernel writes), else an ordinary launch.
template <class... Params, class... Args>
void launch_maybe_dependent(bool dependent, void (*kernel)(Params...), dim3 grid, dim3 block,
                            std::size_t smem, cudaStream_t stream, Args&&... args) {
  if (!dependent) {
    kernel<<<grid, block, smem, stream>>>(std::forward<Args>(args)...);
    return;
  }
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  RINGBLAS_CUDA_TRY(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

}  // namespace ringblas::cuda::detail
