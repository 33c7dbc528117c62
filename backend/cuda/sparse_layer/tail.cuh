// sparse_layer tail kernel: every remaining layer of the chain in one launch, for the few features
// still active late in a sparse DNN (issue 14: on 1024 x 120 the layers after the tenth hold about
// a thousand features and each took ~21 us, bound by launch and latency, not by work).
//
// A feature's column never mixes with another feature's, so a block that owns a minibatch of
// TailPolicy::minibatch features can run layer after layer on them with no grid-wide synchronization:
// the block keeps the minibatch's activations (all neurons) in shared memory, double buffered, and
// walks each layer's prepared blob (prepare.hpp) like the per-layer kernel does, with the staged
// input rows replaced by the map's rows of the shared activations. Per layer the block adds its
// surviving features to the layer's count (the chain's on_layer reports stay exact); after the last
// layer it appends its survivors to the output list (list/ids as the per-layer kernel's compaction
// leaves them) and writes their columns. A block whose features all die stops early.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/sparse_layer/agent.cuh"

namespace ringblas::cuda::sparse_layer {

/// The tail kernel's shape: `MB` features per block (2 x MB x n floats of shared memory).
template <int MB>
struct TailPolicy {
  static constexpr int threads = 1024;  ///< four blob blocks of 256 outputs at a time
  static constexpr int minibatch = MB;
  /// Largest n that fits (2 x minibatch x n x 4 bytes within 200 KB of shared memory).
  static constexpr int max_neurons = 200 * 1024 / (2 * minibatch * 4);
};
/// 8 features per block up to 3200 neurons (the 1024-neuron networks), 4 up to 6400 (4096).
using Tail = TailPolicy<8>;
using WideTail = TailPolicy<4>;

/// One layer as the tail kernel reads it.
struct TailLayer {
  LayerView view;
  float bias;
};

struct TailArgs {
  const TailLayer* layers;  ///< the layers to run, in order
  int count;                ///< how many
  int neurons;
  float ymax;
  const float* in;          ///< column-major, `neurons` rows, column stride `neurons`
  const int* gather;        ///< input column of active feature s
  const int* count_in;      ///< active features on entry (device)
  int bound;                ///< host upper bound of *count_in (the grid)
  int* counts;              ///< per layer: features alive after it (zero on entry)
  float* out;               ///< final columns at s (column-major, stride `neurons`)
  int* list_out;            ///< survivors: t -> s
  const long long* ids_in;  ///< feature id of s
  long long* ids_out;       ///< feature id of list_out[t]
};

/// (A template, so every file including this header shares one instantiation.)
template <class TP>
__global__ void __launch_bounds__(TP::threads) sparse_layer_tail_kernel(TailArgs A) {
  constexpr int MB = TP::minibatch;
  extern __shared__ float act[];  // [2][MB][neurons]
  __shared__ int alive[MB];
  const int n = A.neurons;
  const int nfeat = *A.count_in;
  const int f0 = blockIdx.x * MB;
  if (f0 >= nfeat) return;
  const int nf = min(MB, nfeat - f0);
  for (int f = 0; f < MB; ++f) {
    const float* col = f < nf ? A.in + (long long)A.gather[f0 + f] * n : nullptr;
    for (int i = threadIdx.x; i < n; i += TP::threads) act[f * n + i] = col ? col[i] : 0.0f;
  }
  if (threadIdx.x < MB) alive[threadIdx.x] = 0;
  __syncthreads();
  const int warp = (threadIdx.x % Policy::block) / 32, lane = threadIdx.x % 32;
  int done = 0;  // layers run
  for (int l = 0; l < A.count; ++l) {
    const TailLayer T = A.layers[l];
    const float* cur = act + (l % 2) * MB * n;
    float* nxt = act + ((l + 1) % 2) * MB * n;
    const LayerView& L = T.view;
    const BiasReluClamp epi{T.bias, A.ymax};
    for (int b = threadIdx.x / Policy::block; b < L.blocks; b += TP::threads / Policy::block) {
      const int pos = b * Policy::block + threadIdx.x % Policy::block;
      float acc[MB];
#pragma unroll
      for (int f = 0; f < MB; ++f) acc[f] = 0.0f;
      for (int st = L.stage_displ[b]; st < L.stage_displ[b + 1]; ++st) {
        const std::int32_t* map = L.map + L.map_displ[st];
        const int e0 = L.warp_displ[st * Policy::warps + warp], e1 = L.warp_displ[st * Policy::warps + warp + 1];
        // U ELL rows at a time, so that the index, map and value loads of the rows overlap.
        constexpr int U = 4;
        int e = e0;
        for (; e + U <= e1; e += U) {
          int row[U];
          float w[U];
#pragma unroll
          for (int u = 0; u < U; ++u) {
            row[u] = __ldg(L.index + (long long)(e + u) * 32 + lane);
            w[u] = __ldg(L.value + (long long)(e + u) * 32 + lane);
          }
#pragma unroll
          for (int u = 0; u < U; ++u) row[u] = __ldg(map + row[u]);
#pragma unroll
          for (int u = 0; u < U; ++u)
#pragma unroll
            for (int f = 0; f < MB; ++f) acc[f] += w[u] * cur[f * n + row[u]];
        }
        for (; e < e1; ++e) {
          const int row = __ldg(map + __ldg(L.index + (long long)e * 32 + lane));
          const float w = __ldg(L.value + (long long)e * 32 + lane);
#pragma unroll
          for (int f = 0; f < MB; ++f) acc[f] += w * cur[f * n + row];
        }
      }
#pragma unroll
      for (int f = 0; f < MB; ++f) {
        bool nz = false;
        if (pos < L.outputs) {
          const float r = epi(acc[f], pos, f);
          nxt[f * n + pos] = r;
          nz = r != 0.0f && f < nf;
        }
        // One vote per warp (the warp's lanes share the loop over b: same group of 256).
        if (__any_sync(0xffffffffu, nz) && lane == 0) atomicOr(alive + f, 1);
      }
    }
    __syncthreads();
    int survivors = 0;
#pragma unroll
    for (int f = 0; f < MB; ++f) survivors += alive[f];
    done = l + 1;
    if (l + 1 < A.count && threadIdx.x == 0 && survivors) atomicAdd(A.counts + l, survivors);
    if (l + 1 == A.count || survivors == 0) break;  // uniform: every thread read the same flags
    __syncthreads();
    if (threadIdx.x < MB) alive[threadIdx.x] = 0;
    __syncthreads();
  }
  // Survivors of the last layer: claimed in the output list, their columns written.
  if (done != A.count) return;  // every feature died before the last layer
  const float* last = act + (A.count % 2) * MB * n;
  __shared__ int slot[MB];
  if (threadIdx.x < nf) {
    slot[threadIdx.x] = -1;
    if (alive[threadIdx.x]) {
      const int t = atomicAdd(A.counts + (A.count - 1), 1);
      A.list_out[t] = f0 + threadIdx.x;
      A.ids_out[t] = A.ids_in[f0 + threadIdx.x];
      slot[threadIdx.x] = t;
    }
  }
  __syncthreads();
  for (int f = 0; f < nf; ++f)
    if (slot[f] >= 0)
      for (int i = threadIdx.x; i < n; i += TP::threads) A.out[(long long)(f0 + f) * n + i] = last[f * n + i];
}

}  // namespace ringblas::cuda::sparse_layer
