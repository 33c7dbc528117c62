// sparse_layer tail kernel: every remaining layer of the chain in one launch, for the few features
// still active late in a sparse DNN (issue 14: on 1024 x 120 the layers after the tenth hold about
// a thousand features and each took ~21 us, bound by launch and latency, not by work).
//
// A feature's column never mixes with another feature's, so a block that owns a minibatch of
// TailPolicy::minibatch features can run layer after layer on them with no grid-wide
// synchronization: the block keeps the minibatch's activations (all neurons) in shared memory and
// walks each layer's prepared blob (prepare.hpp) like the per-layer kernel does. Two ways to read
// the inputs (TailPolicy::staged, chosen by LayerChainOptions::tail):
// - rows: the activations double buffered, each weight reads its input row through the map
//   (map[slot]: a dependent global load per weight, and shared-memory banks by row, which the
//   blob's bank-aware ELL order, made for slots, does not spread: ~3-4 wavefronts per read);
// - staged (at most groups x Policy::block neurons, so that every blob block of a layer runs at
//   once and every stage is the block's only one): per layer each group of Policy::block threads
//   first copies its blob block's map rows into its own buffer indexed by slot, as the per-layer
//   kernel stages them (stride a multiple of 32 words, so the fill's bank order holds: one
//   wavefront per read), then the outputs overwrite the activations in place (one buffer).
// Per layer the block adds its surviving features to the layer's count (the chain's on_layer
// reports stay exact); after the last layer it appends its survivors to the output list (list/ids
// as the per-layer kernel's compaction leaves them) and writes their columns. A block whose
// features all die stops early.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/sparse_layer/agent.cuh"

namespace ringblas::cuda::sparse_layer {

/// The tail kernel's shape: `MB` features per block; shared memory 2 x MB x n floats (rows) or
/// MB x (n + groups x stage rows) floats (staged; see the file comment).
template <int MB, bool Staged = false>
struct TailPolicy {
  static constexpr int threads = 1024;  ///< four blob blocks of 256 outputs at a time
  static constexpr int groups = threads / Policy::block;
  static constexpr int minibatch = MB;
  static constexpr bool staged = Staged;
  /// Largest n that fits: rows, 2 x minibatch x n x 4 bytes within 200 KB of shared memory;
  /// staged, one blob block per group (its one stage then holds at most n <= Policy::buffer rows).
  static constexpr int max_neurons =
      Staged ? groups * Policy::block : 200 * 1024 / (2 * minibatch * 4);
};
/// 8 features per block up to 3200 neurons (the 1024-neuron networks), 4 up to 6400 (4096).
using Tail = TailPolicy<8>;
using WideTail = TailPolicy<4>;
/// LayerChainOptions::tail staged: up to 1024 neurons, 8 features per block.
using StagedTail = TailPolicy<8, true>;
static_assert(StagedTail::max_neurons <= Policy::buffer,
              "a staged tail layer has one stage per blob block");

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
  /// Staged: the stride of a group's buffer per feature, at least every stage's map rows and a
  /// multiple of 32 (the banks of the slots); 0 with the rows kernel.
  int stage_rows;
};

/// acc[f] += ⊕ over the (stage, warp)'s sliced-ELL rows of weight ⊗ in[f * stride + place], U
/// rows at a time so that their loads overlap; place = map[slot] when Mapped, else the slot.
template <int MB, int U, bool Mapped>
__device__ __forceinline__ void tail_accumulate(const LayerView& L, int st, int warp, int lane,
                                                const std::int32_t* map, const float* in,
                                                int stride, float (&acc)[MB]) {
  const int e0 = L.warp_displ[st * Policy::warps + warp],
            e1 = L.warp_displ[st * Policy::warps + warp + 1];
  int e = e0;
  for (; e + U <= e1; e += U) {
    int row[U];
    float w[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      row[u] = __ldg(L.index + (long long)(e + u) * 32 + lane);
      w[u] = __ldg(L.value + (long long)(e + u) * 32 + lane);
    }
    if constexpr (Mapped)
#pragma unroll
      for (int u = 0; u < U; ++u) row[u] = __ldg(map + row[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int f = 0; f < MB; ++f) acc[f] += w[u] * in[f * stride + row[u]];
  }
  for (; e < e1; ++e) {
    int row = __ldg(L.index + (long long)e * 32 + lane);
    if constexpr (Mapped) row = __ldg(map + row);
    const float w = __ldg(L.value + (long long)e * 32 + lane);
#pragma unroll
    for (int f = 0; f < MB; ++f) acc[f] += w * in[f * stride + row];
  }
}

/// The minibatch's outputs at `pos` (out[f * n + pos], when valid) and one nonzero vote per warp
/// and feature (f < nf) or-ed into alive[f]; every lane of the warp calls it.
template <int MB>
__device__ __forceinline__ void tail_emit(const float (&acc)[MB], int pos, bool valid, int nf,
                                          const BiasReluClamp& epi, float* out, int n, int* alive,
                                          int lane) {
#pragma unroll
  for (int f = 0; f < MB; ++f) {
    bool nz = false;
    if (valid) {
      const float r = epi(acc[f], pos, f);
      out[f * n + pos] = r;
      nz = r != 0.0f && f < nf;
    }
    if (__any_sync(0xffffffffu, nz) && lane == 0) atomicOr(alive + f, 1);
  }
}

/// (A template, so every file including this header shares one instantiation.)
template <class TP>
__global__ void __launch_bounds__(TP::threads) sparse_layer_tail_kernel(TailArgs A) {
  constexpr int MB = TP::minibatch;
  // rows: [2][MB][neurons]; staged: [MB][neurons], then per group [MB][stage_rows].
  extern __shared__ float act[];
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
    const LayerView& L = T.view;
    const BiasReluClamp epi{T.bias, A.ymax};
    if constexpr (!TP::staged) {
      const float* cur = act + (l % 2) * MB * n;
      float* nxt = act + ((l + 1) % 2) * MB * n;
      // The warp's lanes share the loop over b (the same group of 256), so the votes converge.
      for (int b = threadIdx.x / Policy::block; b < L.blocks; b += TP::groups) {
        float acc[MB];
#pragma unroll
        for (int f = 0; f < MB; ++f) acc[f] = 0.0f;
        for (int st = L.stage_displ[b]; st < L.stage_displ[b + 1]; ++st)
          tail_accumulate<MB, 4, true>(L, st, warp, lane, L.map + L.map_displ[st], cur, n, acc);
        const int pos = b * Policy::block + threadIdx.x % Policy::block;
        tail_emit(acc, pos, pos < L.outputs, nf, epi, nxt, n, alive, lane);
      }
    } else {
      // One blob block per group (L.blocks <= groups), with at most one stage.
      const int group = threadIdx.x / Policy::block, t = threadIdx.x % Policy::block,
                sb = A.stage_rows;
      float* stage = act + MB * n + group * MB * sb;
      const bool mine = group < L.blocks;
      const int st = mine ? L.stage_displ[group] : 0;
      const bool has = mine && L.stage_displ[group + 1] > st;  // a block without entries has none
      const int m0 = has ? L.map_displ[st] : 0, mn = has ? L.map_displ[st + 1] - m0 : 0;
      // The group's map rows (at most R per thread), every load in flight before the copies.
      constexpr int R = TP::max_neurons / Policy::block;
      int row[R];
#pragma unroll
      for (int r = 0; r < R; ++r)
        row[r] = t + r * Policy::block < mn ? __ldg(L.map + m0 + t + r * Policy::block) : 0;
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (t + r * Policy::block < mn)
#pragma unroll
          for (int f = 0; f < MB; ++f) stage[f * sb + t + r * Policy::block] = act[f * n + row[r]];
      __syncthreads();
      float acc[MB];
#pragma unroll
      for (int f = 0; f < MB; ++f) acc[f] = 0.0f;
      if (has) tail_accumulate<MB, 8, false>(L, st, warp, lane, nullptr, stage, sb, acc);
      __syncthreads();  // every group has read its rows of `act`: the outputs overwrite it
      const int pos = group * Policy::block + t;
      tail_emit(acc, pos, mine && pos < L.outputs, nf, epi, act, n, alive, lane);
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
  const float* last = act + (TP::staged ? 0 : (A.count % 2) * MB * n);
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
