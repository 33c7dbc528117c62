// sparse_layer kernel: out(j, f) = epilogue(⊕_i A(j, i) ⊗ in(i, f)) for a sparse A prepared by
// prepare_layer and dense feature columns, the fused layer of sparse DNN inference.
//
// Thread mapping: a block of Policy::block threads owns Policy::block consecutive output rows
// (one per thread) and a minibatch of Policy::minibatch feature columns (blockIdx.y, grid-stride);
// each thread keeps the minibatch's accumulators in registers and reads each weight's 16-bit
// buffer offset and value once for all of them (register tiling).
// Shared memory: minibatch x buffer floats (48 KB with the default policy): per stage, the input
// rows that the block's weights touch (its map), gathered from global memory for the minibatch,
// then read by the warps' sliced-ELL rows. Two barriers per stage.
// Output: every out(j, s) for j < rows and s < active features is written (dense, no sparsity).
// Device-side compaction, fused: the block ORs, per feature, its warps' nonzero votes in shared
// memory; then the first block with a nonzero in output column s claims it (atomicCAS on
// flags[s]) and appends it to the next active list at an atomicAdd slot t
// (list_out[t] = s, ids_out[t] = ids_in[s]); list order depends on timing, the values do not.
// Input column s is gather[s] when a gather list is set (the previous layer's list), and the
// previous layer's flags are cleared through the same list, so no memset runs between layers.
// Follows Hidayetoglu et al., "At-Scale Sparse Deep Neural Network Inference With Efficient GPU
// Implementation" (HPEC 2020), with the active-feature compaction moved to the device.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/sparse_layer/policy.hpp"
#include "semirings/semiring.hpp"

namespace ringblas::cuda::sparse_layer {

/// Device pointers into one prepared layer's blob (see prepare.hpp).
struct LayerView {
  const std::int32_t* stage_displ;
  const std::int32_t* map_displ;
  const std::int32_t* map;
  const std::int32_t* warp_displ;
  const std::uint16_t* index;
  const float* value;
  int outputs;
  int blocks;
};

/// Feature operands: element (i, s) of `in` at i * in_rs + s * in_cs, likewise for `out`.
struct FeatureArgs {
  const float* in;
  long long in_rs, in_cs;
  float* out;
  long long out_rs, out_cs;
  const int* gather;    ///< column of `in` read for output column s (nullptr: s itself)
  const int* count_in;  ///< device count of active columns (nullptr: `bound`)
  int bound;            ///< host upper bound of the active columns (grid size)
  // Compaction (all nullptr when not tracked):
  int* flags;             ///< this layer's claim flags, zero on entry
  int* prev_flags;        ///< the previous layer's flags, cleared at gather[s]
  int* count_out;         ///< number of nonzero output columns (atomicAdd; zero on entry)
  int* list_out;          ///< t -> output column s of the t-th nonzero column
  const long long* ids_in;  ///< feature id of output column s
  long long* ids_out;       ///< feature id of list_out[t]
};

/// Graph Challenge epilogue: min(max(x + bias, 0), ymax).
struct BiasReluClamp {
  float bias, ymax;
  __device__ __forceinline__ float operator()(float x, int, int) const {
    x += bias;
    x = x > 0.0f ? x : 0.0f;
    return x < ymax ? x : ymax;
  }
};

/// ringblas::Epilogue for the dense mxm: bias per output column, then ReLU, then a clamp.
struct ColumnEpilogue {
  const float* bias;  ///< nullptr: no bias
  bool relu, clamp;
  float clamp_value;
  __device__ __forceinline__ float operator()(float x, int, int col) const {
    if (bias) x += bias[col];
    if (relu) x = x > 0.0f ? x : 0.0f;
    if (clamp) x = x < clamp_value ? x : clamp_value;
    return x;
  }
};

template <class S, class Epi, class P = Policy>
__global__ void __launch_bounds__(P::block, P::blocks_per_sm) sparse_layer_kernel(LayerView L, FeatureArgs F, Epi epi) {
  using T = float;
  constexpr int MB = P::minibatch, BUF = P::buffer;
  extern __shared__ float stage_buf[];  // [MB][BUF]
  const int nfeat = F.count_in ? *F.count_in : F.bound;
  const int nmb = (nfeat + MB - 1) / MB;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int j = blockIdx.x * P::block + threadIdx.x;
  const int st0 = L.stage_displ[blockIdx.x], st1 = L.stage_displ[blockIdx.x + 1];

  for (int mb = blockIdx.y; mb < nmb; mb += gridDim.y) {
    const int f0 = mb * MB, nf = min(MB, nfeat - f0);  // uniform across the block
    int src[MB];  // input column of each feature (32-bit: registers decide the occupancy)
#pragma unroll
    for (int f = 0; f < MB; ++f) src[f] = f < nf ? (F.gather ? F.gather[f0 + f] : f0 + f) : 0;
    if (F.prev_flags && blockIdx.x == 0 && threadIdx.x < nf) F.prev_flags[F.gather[f0 + threadIdx.x]] = 0;

    T acc[MB];
#pragma unroll
    for (int f = 0; f < MB; ++f) acc[f] = S::identity();

    for (int st = st0; st < st1; ++st) {
      const int m0 = L.map_displ[st], mn = L.map_displ[st + 1] - m0;
      // Stage the block's input rows: every load of a thread in flight at once (latency-bound
      // when few features are left), then the shared-memory stores.
      constexpr int R = 2;  // rows per thread in flight (4 spills at 80 registers)
      for (int base = 0; base < mn; base += R * P::block) {
        T v[R][MB];
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const int n = base + r * P::block + threadIdx.x;
          const long long row = n < mn ? (long long)L.map[m0 + n] * F.in_rs : 0;
#pragma unroll
          for (int f = 0; f < MB; ++f) v[r][f] = (n < mn && f < nf) ? F.in[(long long)src[f] * F.in_cs + row] : T(0);
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const int n = base + r * P::block + threadIdx.x;
          if (n < mn)
#pragma unroll
            for (int f = 0; f < MB; ++f) stage_buf[f * BUF + n] = v[r][f];
        }
      }
      __syncthreads();
      // The warp's sliced-ELL rows, U at a time so that their index/value loads overlap.
      const int e0 = L.warp_displ[st * P::warps + warp], e1 = L.warp_displ[st * P::warps + warp + 1];
      const std::uint16_t* ip = L.index + (long long)e0 * 32 + lane;
      const T* vp = L.value + (long long)e0 * 32 + lane;
      constexpr int U = 8;
      int e = e0;
      for (; e + U <= e1; e += U, ip += U * 32, vp += U * 32) {
        int ind[U];
        T w[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          ind[u] = __ldg(ip + u * 32);
          w[u] = __ldg(vp + u * 32);
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int f = 0; f < MB; ++f)
            acc[f] = S::add(acc[f], S::mul(w[u], stage_buf[f * BUF + ind[u]], 0, 0, 0, 0));
      }
      for (; e < e1; ++e, ip += 32, vp += 32) {
        const int ind = __ldg(ip);
        const T w = __ldg(vp);
#pragma unroll
        for (int f = 0; f < MB; ++f) acc[f] = S::add(acc[f], S::mul(w, stage_buf[f * BUF + ind], 0, 0, 0, 0));
      }
      __syncthreads();
    }

    // Epilogue and compaction. The stage buffer is free after the last barrier: its first MB
    // words collect, per feature, whether any warp of the block saw a nonzero, so that one thread
    // per feature (not every warp) claims it globally.
    int* alive = reinterpret_cast<int*>(stage_buf);
    if (F.flags) {
      if (st0 == st1) __syncthreads();  // no stage ran: order against the previous minibatch
      if (threadIdx.x < MB) alive[threadIdx.x] = 0;
      __syncthreads();
    }
#pragma unroll
    for (int f = 0; f < MB; ++f) {
      if (f < nf) {
        bool nz = false;
        if (j < L.outputs) {
          const T r = epi(acc[f], j, f0 + f);
          F.out[(long long)(f0 + f) * F.out_cs + (long long)j * F.out_rs] = r;
          nz = r != T(0);
        }
        if (F.flags && __any_sync(0xffffffffu, nz) && lane == 0) atomicOr(alive + f, 1);
      }
    }
    if (F.flags) {
      __syncthreads();
      if (threadIdx.x < nf && alive[threadIdx.x] && atomicCAS(F.flags + f0 + threadIdx.x, 0, 1) == 0) {
        const int t = atomicAdd(F.count_out, 1);
        F.list_out[t] = f0 + threadIdx.x;
        F.ids_out[t] = F.ids_in[f0 + threadIdx.x];
      }
      __syncthreads();  // `alive` is stage memory again in the next minibatch
    }
  }
}

}  // namespace ringblas::cuda::sparse_layer
