// The nnz-split kernel's one-pass mode (SpmmPolicy::nnzsplit_one_pass, issue 14): no row pass
// before the kernel and no atomics. A row that crosses run boundaries is combined by the run
// holding its last nonzero (its "closer") from the partial sums that the earlier runs publish,
// with the handshake of decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix
// Scan with Decoupled Look-back", 2016), reduced to one row per run:
// - a run whose last row continues past its end stores its part of that row in its slot (one
//   row of C's width per run and column chunk), fences, and raises its flag; it never waits, so
//   no run waits on a run that waits;
// - the closer keeps its part of the row in registers until its own run is done, then waits for
//   the flags of the runs from the row's first one, adds their slots, lowers the flags (so they
//   are all zero again when the kernel ends: the caller zeroes them once, not per call) and
//   stores the row with its epilogue.
// Earlier runs belong to earlier or the same blocks, which are resident or done when a later
// block runs (blocks start in index order, CUB's look-back relies on the same); sub-warps of one
// warp progress independently (sm_70+ scheduling).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include "backend/cuda/spmm_subwarp/spmm_agent.cuh"

namespace ringblas::cuda::detail {

__device__ __forceinline__ int load_acquire_gpu(const std::int32_t* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void store_release_gpu(std::int32_t* p, int v) {
  asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/// Reads a slot written by another block in this kernel: through L2 (the L1 of this SM is not
/// coherent with the writer's).
template <class T, int V>
__device__ __forceinline__ void load_slot(T (&x)[V], const T* src) {
  if constexpr (sizeof(T) * V == 16) {
    const int4 bits = __ldcg(reinterpret_cast<const int4*>(src));
    memcpy(&x, &bits, 16);
  } else {
#pragma unroll
    for (int v = 0; v < V; ++v) x[v] = *reinterpret_cast<const volatile T*>(src + v);
  }
}

/// One sub-warp's side of the handshake. `slots`: a row of `width` values (the column chunks
/// together) per run; `flags`: one per run and column chunk, zero between calls.
template <class S, int V, int NV>
struct OnePassRows {
  using T = typename S::value_type;
  T* slots;
  std::int32_t* flags;
  long long width;
  int chunks, chunk;  ///< column chunks; this block's (grid y)

  __device__ __forceinline__ std::int32_t* flag(int run) const {
    return flags + static_cast<long long>(run) * chunks + chunk;
  }

  /// Run `run`'s part of its last row: slot, fence, flag (the sub-warp's first lane raises it).
  __device__ __forceinline__ void publish(const T (&acc)[NV][V], int run, const int (&col)[NV],
                                          const bool (&on)[NV], int lane, unsigned mask) const {
    T* slot = slots + static_cast<long long>(run) * width;
#pragma unroll
    for (int j = 0; j < NV; ++j)
      if (on[j]) {
        VecOf<T, V> x;  // V > 1: 16 bytes, aligned (width is a multiple of V)
#pragma unroll
        for (int v = 0; v < V; ++v) x.v[v] = acc[j][v];
        *reinterpret_cast<VecOf<T, V>*>(slot + col[j]) = x;
      }
    __threadfence();
    __syncwarp(mask);
    if (lane == 0) store_release_gpu(flag(run), 1);
  }

  /// acc (+)= the slots of runs first_run .. run - 1 (all published: waited for here, a group
  /// of up to `sw` flags at once, one per lane), their flags lowered.
  __device__ __forceinline__ void gather(T (&acc)[NV][V], int first_run, int run,
                                         const int (&col)[NV], const bool (&on)[NV], int lane,
                                         int sw, unsigned mask) const {
    for (int top = run - 1; top >= first_run; top -= sw) {
      const int count = min(sw, top - first_run + 1);
      const bool mine = lane < count;
      while (!__all_sync(mask, !mine || load_acquire_gpu(flag(top - lane)) != 0)) {
      }
      if (mine) *flag(top - lane) = 0;  // seen: zero again for the next call
      __threadfence();                  // the slots below after every lane's acquire
      __syncwarp(mask);
#pragma unroll 4
      for (int i = 0; i < count; ++i) {
        const T* slot = slots + static_cast<long long>(top - i) * width;
#pragma unroll
        for (int j = 0; j < NV; ++j)
          if (on[j]) {
            T x[V];
            load_slot<T, V>(x, slot + col[j]);
#pragma unroll
            for (int v = 0; v < V; ++v) acc[j][v] = S::add(acc[j][v], x[v]);
          }
      }
    }
  }
};

}  // namespace ringblas::cuda::detail
