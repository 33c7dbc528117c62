// Device preparation of every layer of a network into the sparse_layer kernel's blobs (see
// prepare.hpp for the format and the output orders): the same bytes as prepare_chain on the host
// (tests/gpu/test_sparse_network.cpp compares them), computed for all layers at once:
//   upload W_k (CSR, inputs x outputs) as it is stored;
//   transpose to outputs-by-row: all layers as one block-diagonal matrix through the shared
//     cuda::transpose, or (LayerTranspose::per_layer) each layer by counting, scanning and
//     scattering in place, its rows sorted by the row-sort pass;
//   the output order of every layer (one radix sort of (layer, smallest input, output) keys), and
//     each layer's inputs renamed to their positions in the previous layer's order;
//   per block of Policy::block outputs: the bitmap of the inputs it touches, their ranks (the
//     buffer slot is rank mod Policy::buffer), and per (stage, warp) the sliced-ELL width;
//   one host round trip for those sizes (a few KB: the blob layout), then the header arrays;
//   per (stage, warp): the map and the bank-aware ELL order, one warp per (stage, warp) replaying
//     the host's greedy choice lane by lane (prepare.cpp says why it orders entries that way).
// Every kernel covers all layers (blockIdx.y = layer), so the launches do not grow with depth.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <memory>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/sparse_layer/launch.cuh"
#include "backend/cuda/sparse_layer/packed_upload.hpp"
#include "backend/cuda/sparse_layer/phase_trace.cuh"
#include "backend/cuda/sparse_layer/policy.hpp"
#include "backend/cuda/sparse_layer/prepare.hpp"
#include "backend/cuda/sparse_layer/upload.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda::sparse_layer {
namespace {

using P = Policy;
static_assert(P::buffer % 32 == 0, "a stage must start on a bank boundary");
static_assert(P::block == P::warps * 32, "one output row per thread");

/// W_k as stored (CSR, inputs x outputs) on the device.
struct Source {
  const void* rp;
  const void* ci;
  const float* v;
  int wide;  ///< 64-bit indices
};

/// Per layer: where its transposed entries start (tc, tv, rank) and its blob's word offsets.
struct Target {
  long long entries;  ///< first transposed entry of the layer
  unsigned long long base;  ///< blob word offset of the layer
  unsigned long long stage_displ, map_displ, map, warp_displ, index, value;  ///< within the layer
};

/// The layers as one block-diagonal matrix diag(W_1, ..., W_L) ((L n) x (L n), indices I: int32
/// when L n and the entries fit, where cuda::transpose sorts (row, value) payloads without
/// gathers), so that one shared transpose (cuda::transpose) turns every layer into outputs-by-row
/// at once.
template <class I>
__global__ void stack_layers(const Source* src, const Target* tg, int n, int nl, I* rp, I* ci,
                             float* v) {
  const int k = blockIdx.y, i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Source s = src[k];
  const long long at = tg[k].entries, p0 = load_index(s.rp, s.wide, i), p1 = load_index(s.rp, s.wide, i + 1);
  const long long row = (long long)k * n + i;
  rp[row] = I(at + p0);
  if (k == nl - 1 && i == n - 1) rp[row + 1] = I(at + p1);
  for (long long p = p0; p < p1; ++p) {
    ci[at + p] = I((long long)k * n + load_index(s.ci, s.wide, p));
    v[at + p] = s.v[p];
  }
}

/// The transposed stack back as layers: tp[k] (n + 1 row offsets within the layer), tc (inputs
/// within the layer) and tv.
template <class I>
__global__ void unstack_layers(const I* rp, const I* ci, const float* v, int n, int* tp, int* tc,
                               float* tv) {
  const int k = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j > n) return;
  const long long row = (long long)k * n + j, first = rp[(long long)k * n];
  tp[(long long)k * (n + 1) + j] = int(rp[row] - first);
  if (j == n) return;
  for (long long p = rp[row]; p < rp[row + 1]; ++p) {
    tc[p] = int(ci[p] - (long long)k * n);
    tv[p] = v[p];
  }
}

/// LayerTranspose::per_layer, pass 1: one warp per input row i of layer k adds each entry to its
/// output's count (tp[k][c + 1]; tp zeroed) and keeps the count's old value, the entry's slot in
/// that output's row, in slot[] (indexed like tc).
__global__ void count_outputs(const Source* src, const Target* tg, int n, int* tp, int* slot) {
  const int k = blockIdx.y, lane = threadIdx.x % 32;
  const long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (i >= n) return;
  const Source s = src[k];
  const long long at = tg[k].entries, p1 = load_index(s.rp, s.wide, i + 1);
  int* count = tp + (long long)k * (n + 1) + 1;
  for (long long p = load_index(s.rp, s.wide, i) + lane; p < p1; p += 32)
    slot[at + p] = atomicAdd(count + load_index(s.ci, s.wide, p), 1);
}

/// Pass 2: one block per layer turns tp[k][1..n] (counts) into row offsets in place (an inclusive
/// scan; tp[k][0] stays 0), in chunks of kScanThreads x kScanItems.
constexpr int kScanThreads = 256, kScanItems = 4;
__global__ void __launch_bounds__(kScanThreads) scan_outputs(int n, int* tp) {
  using Scan = cub::BlockScan<int, kScanThreads>;
  __shared__ typename Scan::TempStorage tmp;
  int* t = tp + (long long)blockIdx.x * (n + 1) + 1;
  int carry = 0;
  for (int base = 0; base < n; base += kScanThreads * kScanItems) {
    int x[kScanItems];
    const int first = base + int(threadIdx.x) * kScanItems;
    for (int q = 0; q < kScanItems; ++q) x[q] = first + q < n ? t[first + q] : 0;
    int total = 0;
    Scan(tmp).InclusiveSum(x, x, total);
    for (int q = 0; q < kScanItems; ++q)
      if (first + q < n) t[first + q] = x[q] + carry;
    carry += total;
    __syncthreads();  // tmp is reused by the next chunk
  }
}

/// Pass 3: one warp per input row i of layer k writes each entry (i, c) to output c's row at the
/// slot pass 1 gave it: tc = i, tv = its value.
__global__ void scatter_outputs(const Source* src, const Target* tg, const int* slot, int n,
                                const int* tp, int* tc, float* tv) {
  const int k = blockIdx.y, lane = threadIdx.x % 32;
  const long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (i >= n) return;
  const Source s = src[k];
  const long long at = tg[k].entries, p1 = load_index(s.rp, s.wide, i + 1);
  const int* t = tp + (long long)k * (n + 1);
  for (long long p = load_index(s.rp, s.wide, i) + lane; p < p1; p += 32) {
    const long long q = at + t[load_index(s.ci, s.wide, p)] + slot[at + p];
    tc[q] = int(i);
    tv[q] = s.v[p];
  }
}

/// c[0..len) ascending, v moved alongside (stable insertion sort: the rows of a DNN layer are
/// short).
__device__ void insertion_sort(int* c, float* v, int len) {
  for (int p = 1; p < len; ++p) {
    const int key = c[p];
    const float val = v[p];
    int q = p - 1;
    for (; q >= 0 && c[q] > key; --q) {
      c[q + 1] = c[q];
      v[q + 1] = v[q];
    }
    c[q + 1] = key;
    v[q + 1] = val;
  }
}

/// Each output row sorted by input, one thread per row (RowSort::insertion).
__global__ void sort_rows(const Target* tg, const int* tp, int n, int* tc, float* tv) {
  const int k = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const long long at = tg[k].entries;
  const int* t = tp + (long long)k * (n + 1);
  insertion_sort(tc + at + t[j], tv + at + t[j], t[j + 1] - t[j]);
}

/// RowSort::warp: one warp per output row of layer k >= 1 renames its inputs to their positions in
/// layer k - 1's output order (rename_inputs) and sorts the row by them (sort_rows) in one pass:
/// a row of at most 32 entries in registers, a bitonic network on (input, position in the row),
/// which orders as the stable insertion sort does; a longer row renamed by the warp and sorted by
/// its first lane (insertion_sort). Layers from k0: k0 = 0 sorts layer 1's rows too (not renamed),
/// which LayerTranspose::per_layer leaves in arrival order.
__global__ void rename_sort_rows_warp(const Target* tg, const int* tp, const int* inverse, int n,
                                      int k0, int* tc, float* tv) {
  const int k = blockIdx.y + k0, lane = threadIdx.x % 32;
  const long long j = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (j >= n) return;  // the same for every lane of the warp
  const int* t = tp + (long long)k * (n + 1);
  const int* inv = k > 0 ? inverse + (long long)(k - 1) * n : nullptr;
  auto renamed = [inv](int c) { return inv ? inv[c] : c; };
  const int len = t[j + 1] - t[j];
  int* c = tc + tg[k].entries + t[j];
  float* v = tv + tg[k].entries + t[j];
  if (len > 32) {
    for (int q = lane; q < len; q += 32) c[q] = renamed(c[q]);
    __syncwarp();
    if (lane == 0) insertion_sort(c, v, len);
    return;
  }
  // Padding lanes sort last: every input is below 2^30.
  unsigned long long x =
      (unsigned long long)(lane < len ? unsigned(renamed(c[lane])) : 0xffffffffu) << 32 | lane;
  float val = lane < len ? v[lane] : 0.0f;
  for (int size = 2; size <= 32; size <<= 1)
    for (int stride = size / 2; stride > 0; stride /= 2) {
      const unsigned long long ox = __shfl_xor_sync(0xffffffffu, x, stride);
      const float ov = __shfl_xor_sync(0xffffffffu, val, stride);
      // The lower lane of a pair keeps the smaller key where its run ascends (lane & size == 0).
      const bool keep_min = ((lane & size) == 0) == ((lane & stride) == 0);
      if (keep_min ? ox < x : ox > x) {
        x = ox;
        val = ov;
      }
    }
  if (lane < len) {
    c[lane] = int(x >> 32);
    v[lane] = val;
  }
}

/// Sort key of output j of layer k: (layer, smallest input or n when none, j). The smallest, not
/// the first: LayerTranspose::per_layer's rows are not sorted yet.
__global__ void order_keys(const Target* tg, const int* tp, const int* tc, int n, unsigned long long* key, int* id) {
  const int k = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const int* t = tp + (long long)k * (n + 1);
  const int* c = tc + tg[k].entries;
  int first = n;
  for (int q = t[j]; q < t[j + 1]; ++q) first = min(first, c[q]);
  const long long x = (long long)k * n + j;
  key[x] = ((unsigned long long)k * (unsigned long long)(n + 1) + (unsigned long long)first) * (unsigned long long)n + j;
  id[x] = j;
}

/// inverse[k][order[k][t]] = t.
__global__ void invert_orders(const int* order, int n, int* inverse) {
  const int k = blockIdx.y, t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  inverse[(long long)k * n + order[(long long)k * n + t]] = t;
}

/// The inputs of layer k >= 1 renamed to their positions in layer k - 1's output order.
__global__ void rename_inputs(const Target* tg, const int* tp, const int* inverse, int n, int* tc) {
  const int k = blockIdx.y + 1, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const int* t = tp + (long long)k * (n + 1);
  const int* inv = inverse + (long long)(k - 1) * n;
  int* c = tc + tg[k].entries;
  for (int q = t[j]; q < t[j + 1]; ++q) c[q] = inv[c[q]];
}

/// Shared-memory words analyse_blocks<true> may use for a block's bitmap and prefixes together.
constexpr int kSharedAnalyseWords = 8192;

/// A word the block wrote: from shared memory, or from L2 (the bitmap was built with global
/// atomics, which L1 does not see).
template <bool Shared, class T>
__device__ __forceinline__ T block_word(const T* p) {
  if constexpr (Shared)
    return *p;
  else
    return __ldcg(p);
}

/// Per (layer, block): the bitmap of touched inputs, its word-prefix ranks, the block's input
/// count, each entry's rank, and per (stage, warp) the ELL width (max entries of a lane there).
/// Shared (BlockStaging::shared, 2 x words <= kSharedAnalyseWords): the bitmap and prefixes are
/// built in dynamic shared memory and written out at the end (fill_blocks reads them); else in
/// global memory (`bitmap` zeroed before).
template <bool Shared>
__global__ void __launch_bounds__(P::block)
    analyse_blocks(const Target* tg, const int* tp, const int* tc, const int* order, int n,
                   int blocks, int words, int max_stages, unsigned* bitmap, int* prefix,
                   int* inputs, int* rank, int* width) {
  using Scan = cub::BlockScan<int, P::block>;
  __shared__ typename Scan::TempStorage tmp;
  extern __shared__ unsigned staged_words[];  // Shared: bitmap[words], then prefix[words]
  const int k = blockIdx.y, b = blockIdx.x;
  const long long kb = (long long)k * blocks + b;
  unsigned* bm;
  int* pre;
  if constexpr (Shared) {
    bm = staged_words;
    pre = reinterpret_cast<int*>(staged_words + words);
    for (int w = threadIdx.x; w < words; w += P::block) bm[w] = 0;
    __syncthreads();
  } else {
    bm = bitmap + kb * words;
    pre = prefix + kb * words;
  }
  const long long at = tg[k].entries;
  const int* t = tp + (long long)k * (n + 1);
  const int pos = b * P::block + threadIdx.x;  // output position; the neuron is order[pos]
  const int j = pos < n ? order[(long long)k * n + pos] : -1;
  const int q0 = j >= 0 ? t[j] : 0, q1 = j >= 0 ? t[j + 1] : 0;
  for (int q = q0; q < q1; ++q) {
    const int c = tc[at + q];
    atomicOr(bm + (c >> 5), 1u << (c & 31));
  }
  __syncthreads();
  const int chunk = (words + P::block - 1) / P::block;
  const int lo = min(words, int(threadIdx.x) * chunk), hi = min(words, lo + chunk);
  int sum = 0;
  for (int w = lo; w < hi; ++w) sum += __popc(block_word<Shared>(bm + w));
  int base = 0, total = 0;
  Scan(tmp).ExclusiveSum(sum, base, total);
  for (int w = lo; w < hi; ++w) {
    pre[w] = base;
    base += __popc(block_word<Shared>(bm + w));
  }
  if (threadIdx.x == 0) inputs[kb] = total;
  __syncthreads();
  if constexpr (Shared)
    for (int w = threadIdx.x; w < words; w += P::block) {
      bitmap[kb * words + w] = bm[w];
      prefix[kb * words + w] = pre[w];
    }
  // This lane's entries by stage (ranks rise with the input, so stages come in order).
  int* wd = width + kb * max_stages * P::warps + threadIdx.x / 32;
  int stage = -1, count = 0;
  for (int q = q0; q < q1; ++q) {
    const int c = tc[at + q];
    const unsigned word = block_word<Shared>(bm + (c >> 5));
    const int r = block_word<Shared>(pre + (c >> 5)) + __popc(word & ((1u << (c & 31)) - 1u));
    rank[at + q] = r;
    const int s = r / P::buffer;
    if (s != stage) {
      if (count) atomicMax(wd + stage * P::warps, count);
      stage = s;
      count = 0;
    }
    ++count;
  }
  if (count) atomicMax(wd + stage * P::warps, count);
}

/// Header arrays (stage_displ, map_displ, warp_displ) computed on the host, copied into the blob.
__global__ void place_headers(const unsigned* from, const unsigned long long* segments, int count,
                              unsigned* blob) {
  // segments: (destination word, source word, words) triples
  for (int s = blockIdx.x; s < count; s += gridDim.x) {
    const unsigned long long dst = segments[3 * s], at = segments[3 * s + 1], len = segments[3 * s + 2];
    for (unsigned long long w = threadIdx.x; w < len; w += blockDim.x) blob[dst + w] = from[at + w];
  }
}

/// Per (layer, block): the map (input of each buffer slot) and, one warp per (stage, warp), the
/// ELL rows in the host's bank-aware order (prepare.cpp): for ELL row e, lanes pick in the order
/// (k + e) mod 32; a lane takes, among the banks it still holds and no earlier lane of the row
/// took (else among all it holds), the bank the warp still needs most (lowest bank on ties), and
/// of its entries in that bank the last one in input order. Staged: BlockStaging::shared
/// (prepare.hpp).
template <bool Staged>
__global__ void __launch_bounds__(P::block)
    fill_blocks(const Target* tg, const int* tp, const int* tc, const float* tv, const int* rank,
                const int* order, int n, int blocks, int words, const unsigned* bitmap,
                const int* prefix, unsigned* blob) {
  __shared__ unsigned short held[P::warps][32][33];  // [warp][lane][bank]: entries left
  // Staged: [warp][lane][i]: the bank of the lane's i-th entry of the stage (i < 32).
  __shared__ unsigned char banks[Staged ? P::warps : 1][32][32];
  const int k = blockIdx.y, b = blockIdx.x;
  const long long kb = (long long)k * blocks + b;
  const Target T = tg[k];
  unsigned* L = blob + T.base;
  const int* stage_displ = reinterpret_cast<const int*>(L + T.stage_displ);
  const int* map_displ = reinterpret_cast<const int*>(L + T.map_displ);
  int* map = reinterpret_cast<int*>(L + T.map);
  const int* warp_displ = reinterpret_cast<const int*>(L + T.warp_displ);
  unsigned short* index = reinterpret_cast<unsigned short*>(L + T.index);
  float* value = reinterpret_cast<float*>(L + T.value);
  const int st0 = stage_displ[b], st1 = stage_displ[b + 1];
  if (st0 == st1) return;
  // The map: slot r of the block's inputs (all stages) holds the r-th touched input.
  {
    const unsigned* bm = bitmap + kb * words;
    const int* pre = prefix + kb * words;
    int* m = map + map_displ[st0];
    for (int w = threadIdx.x; w < words; w += P::block) {
      unsigned bits = bm[w];
      int r = pre[w];
      while (bits) {
        m[r++] = w * 32 + __ffs(int(bits)) - 1;
        bits &= bits - 1;
      }
    }
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int pos = b * P::block + threadIdx.x;
  const int j = pos < n ? order[(long long)k * n + pos] : -1;
  const long long at = T.entries;
  const int* t = tp + (long long)k * (n + 1);
  const int* rk = rank + at;
  int cursor = j >= 0 ? t[j] : 0;
  const int row_end = j >= 0 ? t[j + 1] : 0;
  unsigned short (*mine)[33] = held[warp];
  for (int st = st0; st < st1; ++st) {
    const int s = st - st0, limit = (s + 1) * P::buffer;
    const int first = cursor;
    while (cursor < row_end && rk[cursor] < limit) ++cursor;
    const int last = cursor;
    // Entries per (lane, bank) and the warp's demand per bank (lane b holds bank b's).
    for (int c = 0; c < 32; ++c) mine[lane][c] = 0;
    unsigned mask = 0;
    for (int q = first; q < last; ++q) {
      const int bank = rk[q] & 31;
      ++mine[lane][bank];
      mask |= 1u << bank;
      if (Staged && q - first < 32) banks[Staged ? warp : 0][lane][q - first] = (unsigned char)bank;
    }
    __syncwarp();
    int demand = 0;
    for (int l = 0; l < 32; ++l) demand += mine[l][lane];
    __syncwarp();
    const int e0 = warp_displ[st * P::warps + warp], e1 = warp_displ[st * P::warps + warp + 1];
    for (int e = e0; e < e1; ++e) {
      unsigned used = 0;
      int taken = -1;  // Staged: the entry this lane takes in row e (-1: padding)
      for (int kk = 0; kk < 32; ++kk) {
        const int p = (kk + e - e0) & 31;
        const unsigned pm = __shfl_sync(0xffffffffu, mask, p);
        if (!pm) {
          if (!Staged && lane == p) {
            index[(long long)e * 32 + p] = 0;
            value[(long long)e * 32 + p] = 0.0f;
          }
          continue;
        }
        unsigned options = pm & ~used;
        if (!options) options = pm;
        const int bid = (options >> lane) & 1u ? demand : -1;
        const int best = __reduce_max_sync(0xffffffffu, bid);
        const int bank = __ffs(int(__ballot_sync(0xffffffffu, bid == best))) - 1;
        if (lane == bank) --demand;
        // Lane p's need-th entry (in input order) in that bank, need = its entries left there.
        int need = mine[p][bank];
        const int pf = __shfl_sync(0xffffffffu, first, p), pl = __shfl_sync(0xffffffffu, last, p);
        int found = -1;
        if (Staged && pl - pf <= 32) {  // the need-th of lane p's staged entries in that bank
          unsigned x = __ballot_sync(0xffffffffu,
                                     lane < pl - pf && banks[Staged ? warp : 0][p][lane] == bank);
          for (int i = 1; i < need; ++i) x &= x - 1;
          found = pf + __ffs(int(x)) - 1;
        }
        for (int c0 = pf; c0 < pl && found < 0; c0 += 32) {
          const int q = c0 + lane;
          const unsigned hits = __ballot_sync(0xffffffffu, q < pl && (rk[q] & 31) == bank);
          const int h = __popc(hits);
          if (h >= need) {
            unsigned x = hits;
            for (int i = 1; i < need; ++i) x &= x - 1;
            found = c0 + __ffs(int(x)) - 1;
          } else {
            need -= h;
          }
        }
        if (lane == p) {
          if (Staged) {
            taken = found;
          } else {
            index[(long long)e * 32 + p] = static_cast<unsigned short>(rk[found] - s * P::buffer);
            value[(long long)e * 32 + p] = tv[at + found];
          }
          if (--mine[p][bank] == 0) mask &= ~(1u << bank);
        }
        used |= 1u << bank;
        __syncwarp();
      }
      if (Staged) {  // every lane once per row: the same words replay writes lane by lane
        index[(long long)e * 32 + lane] =
            taken >= 0 ? static_cast<unsigned short>(rk[taken] - s * P::buffer) : 0;
        value[(long long)e * 32 + lane] = taken >= 0 ? tv[at + taken] : 0.0f;
      }
    }
    __syncwarp();
  }
}

std::size_t words_for_u16(std::size_t n) { return (n + 1) / 2; }

}  // namespace

void wait_ready(const DeviceWeights& w, void* stream) {
  if (w.ready)
    RINGBLAS_CUDA_TRY(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream),
                                          static_cast<cudaEvent_t>(w.ready.get()), 0));
}

DeviceWeights device_weights(const PreparedChain& chain, Context& ctx) {
  DeviceWeights out;
  std::vector<std::uint32_t> words;
  std::vector<std::int32_t> orders;
  for (std::size_t k = 0; k < chain.layers.size(); ++k) {
    out.layout.push_back(chain.layers[k].layout);
    out.offset.push_back(words.size());
    words.insert(words.end(), chain.layers[k].blob.begin(), chain.layers[k].blob.end());
    orders.insert(orders.end(), chain.order[k].begin(), chain.order[k].end());
  }
  out.words = words.size();
  out.blob = Buffer(std::max<std::size_t>(words.size(), 1) * 4, Location::device, &ctx);
  out.order = Buffer(std::max<std::size_t>(orders.size(), 1) * 4, Location::device, &ctx);
  cudaStream_t s = stream_of(ctx);
  if (!words.empty())
    RINGBLAS_CUDA_TRY(cudaMemcpyAsync(out.blob.data(), words.data(), words.size() * 4,
                                      cudaMemcpyHostToDevice, s));
  if (!orders.empty())
    RINGBLAS_CUDA_TRY(cudaMemcpyAsync(out.order.data(), orders.data(), orders.size() * 4,
                                      cudaMemcpyHostToDevice, s));
  RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));  // the host vectors go out of scope
  return out;
}

DeviceWeights prepare_layers_device(const std::vector<Matrix>& weights, Context& ctx,
                                    SparseUpload how, std::size_t* bytes_in,
                                    const PrepareOptions& opt) {
  DeviceWeights out;
  const int nl = int(weights.size());
  if (nl == 0) return out;
  const Index n64 = weights[0].nrows();
  for (const Matrix& w : weights)
    if (w.nrows() != n64 || w.ncols() != n64)
      throw DimensionMismatch("sparse_layer::prepare_layers_device: every layer must be " +
                              std::to_string(n64) + "x" + std::to_string(n64));
  if (n64 >= (Index{1} << 30)) throw NotImplemented("sparse_layer: 2^30 or more neurons");
  if ((long double)nl * (long double)(n64 + 1) * (long double)n64 >= 1.8e19L)
    throw NotImplemented("sparse_layer: layers x neurons^2 past 2^64 (the output-order sort key)");
  const int n = int(n64);
  cudaStream_t s = stream_of(ctx);
  // With ctx.trace, each phase is synchronized and its wall time traced (profiling only).
  PhaseTrace phase(ctx, "prepare_network");

  // --- W_k on the device: packed (packed_upload.hpp: every layer in the same slots, decoded into
  // plain CSR there), or as stored (fp32 values; other value types are cast on the host): one
  // allocation for every host layer, filled by upload() (several host threads) ---
  std::vector<const Matrix*> all;
  for (const Matrix& w : weights) all.push_back(&w);
  const bool packed = how == SparseUpload::packed && packed_unavailable(all).empty();
  if (how == SparseUpload::packed && !packed)
    ctx.trace_line("prepare_network: weights not packed (" + packed_unavailable(all) +
                   "), copied as stored");
  PackedDevice pk;
  if (packed) pk = upload_packed(all, ctx, opt.pack);
  std::vector<Matrix> held;  // host casts kept alive until the copies are done
  held.reserve(weights.size());
  std::vector<const Matrix*> use(weights.size());
  std::vector<Source> src(weights.size());
  std::vector<Target> tg(weights.size());
  long long entries = 0;
  std::size_t upload_bytes = 0;
  auto aligned = [](std::size_t b) { return (b + 15) / 16 * 16; };
  for (int k = 0; k < nl; ++k) {
    const Matrix& w = weights[std::size_t(k)];
    if (w.nnz() >= (Index{1} << 31)) throw NotImplemented("sparse_layer: a layer with 2^31 or more entries");
    use[std::size_t(k)] = &w;
    tg[std::size_t(k)].entries = entries;
    entries += w.nnz();
    if (packed) continue;
    if (w.type() != Type::fp32) {
      held.push_back((w.location() == Location::host ? w : w.to(Location::host, ctx)).cast(Type::fp32));
      use[std::size_t(k)] = &held.back();
    }
    const Matrix& u = *use[std::size_t(k)];
    if (u.location() == Location::host)
      upload_bytes +=
          aligned(u.row_ptr().size()) + aligned(u.col_idx().size()) + aligned(u.values().size());
  }
  Buffer raw(std::max<std::size_t>(upload_bytes, 16), Location::device, &ctx);
  {
    char* at = static_cast<char*>(raw.data());
    std::vector<UploadPiece> pieces;
    auto put = [&](const Buffer& b) -> const void* {
      if (b.size() == 0) return at;
      pieces.push_back({at, b.data(), b.size()});
      const void* p = at;
      at += aligned(b.size());
      return p;
    };
    for (int k = 0; k < nl; ++k) {
      const Matrix& u = *use[std::size_t(k)];
      Source& x = src[std::size_t(k)];
      if (packed) {
        const std::size_t isz = pk.index_type == IndexType::i64 ? 8 : 4;
        x.wide = pk.index_type == IndexType::i64 ? 1 : 0;
        x.rp = pk.row_ptr.as<char>() + pk.row_base[std::size_t(k)] * isz;
        x.ci = pk.col_idx.as<char>() + pk.entry_base[std::size_t(k)] * isz;
        x.v = pk.values.as<float>() + pk.entry_base[std::size_t(k)];
        continue;
      }
      x.wide = u.index_type() == IndexType::i64 ? 1 : 0;
      if (u.location() == Location::host) {
        x.rp = put(u.row_ptr());
        x.ci = put(u.col_idx());
        x.v = static_cast<const float*>(put(u.values()));
      } else {
        x.rp = u.row_ptr().data();
        x.ci = u.col_idx().data();
        x.v = u.values().as<float>();
      }
    }
    if (!packed) upload(pieces, ctx.device, s);
    if (bytes_in) {
      *bytes_in = packed ? pk.bytes_sent : 0;
      for (const UploadPiece& piece : pieces) *bytes_in += piece.bytes;
    }
  }
  phase("weights uploaded");
  const int blocks = (n + P::block - 1) / P::block, words = (n + 31) / 32;
  const int max_stages = std::max(1, (n + P::buffer - 1) / P::buffer);
  const std::size_t lb = std::size_t(nl) * std::size_t(blocks);
  device_array<Source> src_d(src.size(), ctx);
  {
    RINGBLAS_CUDA_TRY(cudaMemcpyAsync(src_d.data(), src.data(), src.size() * sizeof(Source),
                                      cudaMemcpyHostToDevice, s));
  }
  device_array<Target> tg_d(tg.size(), ctx);
  RINGBLAS_CUDA_TRY(cudaMemcpyAsync(tg_d.data(), tg.data(), tg.size() * sizeof(Target), cudaMemcpyHostToDevice, s));

  // --- transpose: every layer at once, as the block-diagonal stack (cuda::transpose: a stable
  // radix sort, so each output row lists its inputs in order), or per layer (rows in arrival
  // order, sorted below) ---
  const std::size_t ne = std::size_t(std::max<long long>(entries, 1));
  const Index stacked_rows = Index(nl) * n;
  device_array<int> tp(std::size_t(nl) * std::size_t(n + 1), ctx);
  device_array<int> tc(ne, ctx), rank(ne, ctx);
  device_array<float> tv(ne, ctx);
  const dim3 rows_grid(grid_for(std::size_t(n), 256), unsigned(nl));
  auto stack_and_transpose = [&](auto index) {
    using I = decltype(index);
    const IndexType it = sizeof(I) == 4 ? IndexType::i32 : IndexType::i64;
    Buffer srp(sizeof(I) * std::size_t(stacked_rows + 1), Location::device, &ctx);
    Buffer sci(sizeof(I) * ne, Location::device, &ctx),
        sv(sizeof(float) * ne, Location::device, &ctx);
    stack_layers<I><<<rows_grid, 256, 0, s>>>(src_d.data(), tg_d.data(), n, nl, srp.as<I>(),
                                              sci.as<I>(), sv.as<float>());
    RINGBLAS_CHECK_LAUNCH("sparse_layer stack_layers", s, ctx.debug_sync);
    phase(std::string("layers stacked (") + (sizeof(I) == 4 ? "32" : "64") + "-bit indices)");
    const Matrix stacked =
        Matrix::from_buffers(stacked_rows, stacked_rows, Type::fp32, it, Index(entries),
                             std::move(srp), std::move(sci), std::move(sv));
    const Matrix t = transpose(stacked, ctx);
    phase("stack transposed (cuda::transpose)");
    const dim3 ends_grid(grid_for(std::size_t(n) + 1, 256), unsigned(nl));
    unstack_layers<I><<<ends_grid, 256, 0, s>>>(t.row_ptr().as<I>(), t.col_idx().as<I>(),
                                                t.values().as<float>(), n, tp.data(), tc.data(),
                                                tv.data());
    RINGBLAS_CHECK_LAUNCH("sparse_layer unstack_layers", s, ctx.debug_sync);
    RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));  // the stack and its transpose are freed here
    phase("unstacked");
  };
  const bool rows_sorted = opt.transpose == LayerTranspose::stack;
  if (!rows_sorted) {
    // `rank` holds each entry's slot until analyse_blocks overwrites it with the entry's rank.
    const dim3 warps(grid_for(std::size_t(n) * 32, 256), unsigned(nl));
    tp.fill_zero(ctx);
    count_outputs<<<warps, 256, 0, s>>>(src_d.data(), tg_d.data(), n, tp.data(), rank.data());
    RINGBLAS_CHECK_LAUNCH("sparse_layer count_outputs", s, ctx.debug_sync);
    scan_outputs<<<unsigned(nl), kScanThreads, 0, s>>>(n, tp.data());
    RINGBLAS_CHECK_LAUNCH("sparse_layer scan_outputs", s, ctx.debug_sync);
    scatter_outputs<<<warps, 256, 0, s>>>(src_d.data(), tg_d.data(), rank.data(), n, tp.data(),
                                          tc.data(), tv.data());
    RINGBLAS_CHECK_LAUNCH("sparse_layer scatter_outputs", s, ctx.debug_sync);
    phase("layers transposed (per layer: counted, scanned, scattered)");
  } else if (stacked_rows < (Index{1} << 31) && entries < (1LL << 31)) {
    stack_and_transpose(std::int32_t{});
  } else {
    stack_and_transpose(std::int64_t{});
  }

  // --- output orders, and the inputs renamed to the previous layer's positions ---
  const std::size_t cells = std::size_t(nl) * std::size_t(n);
  out.order = Buffer(cells * 4, Location::device, &ctx);
  int* order = out.order.as<int>();
  {
    device_array<unsigned long long> keys(cells, ctx), sorted(cells, ctx);
    device_array<int> ids(cells, ctx);
    order_keys<<<rows_grid, 256, 0, s>>>(tg_d.data(), tp.data(), tc.data(), n, keys.data(), ids.data());
    RINGBLAS_CHECK_LAUNCH("sparse_layer order_keys", s, ctx.debug_sync);
    const unsigned long long top = (unsigned long long)nl * (unsigned long long)(n + 1) * (unsigned long long)n;
    int bits = 1;
    while (bits < 64 && (top >> bits) != 0) ++bits;
    std::size_t bytes = 0;
    RINGBLAS_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys.data(), sorted.data(), ids.data(), order,
                                                      cells, 0, bits, s));
    device_array<unsigned char> tmp(bytes, ctx);
    RINGBLAS_CUDA_TRY(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, keys.data(), sorted.data(), ids.data(),
                                                      order, cells, 0, bits, s));
    phase("output orders sorted (" + std::to_string(bits) + "-bit keys)");
  }
  if (nl > 1 || !rows_sorted) {
    device_array<int> inverse(nl > 1 ? cells : 1, ctx);
    if (nl > 1) {
      invert_orders<<<rows_grid, 256, 0, s>>>(order, n, inverse.data());
      RINGBLAS_CHECK_LAUNCH("sparse_layer invert_orders", s, ctx.debug_sync);
    }
    if (opt.sort == RowSort::warp) {
      const int k0 = rows_sorted ? 1 : 0;  // layer 1's rows need no renaming, only sorting
      const dim3 warps(grid_for(std::size_t(n) * 32, 256), unsigned(nl - k0));
      rename_sort_rows_warp<<<warps, 256, 0, s>>>(tg_d.data(), tp.data(), inverse.data(), n, k0,
                                                  tc.data(), tv.data());
      RINGBLAS_CHECK_LAUNCH("sparse_layer rename_sort_rows_warp", s, ctx.debug_sync);
      phase("inputs renamed and rows sorted (one warp per row)");
    } else {
      if (nl > 1) {
        const dim3 later(grid_for(std::size_t(n), 256), unsigned(nl - 1));
        rename_inputs<<<later, 256, 0, s>>>(tg_d.data(), tp.data(), inverse.data(), n, tc.data());
        RINGBLAS_CHECK_LAUNCH("sparse_layer rename_inputs", s, ctx.debug_sync);
        phase("inputs renamed");
      }
      sort_rows<<<rows_grid, 256, 0, s>>>(tg_d.data(), tp.data(), n, tc.data(), tv.data());
      RINGBLAS_CHECK_LAUNCH("sparse_layer sort_rows", s, ctx.debug_sync);
      phase("rows sorted (one thread per row)");
    }
  }

  // --- per block: touched inputs, ranks, ELL widths ---
  device_array<unsigned> bitmap(lb * std::size_t(words), ctx);
  device_array<int> prefix(lb * std::size_t(words), ctx), inputs(lb, ctx);
  device_array<int> width(lb * std::size_t(max_stages) * P::warps, ctx);
  const bool shared_analyse =
      opt.staging == BlockStaging::shared && 2 * std::size_t(words) <= kSharedAnalyseWords;
  if (!shared_analyse) bitmap.fill_zero(ctx);  // else each block writes its whole bitmap
  width.fill_zero(ctx);
  const auto analyse = shared_analyse ? analyse_blocks<true> : analyse_blocks<false>;
  analyse<<<dim3(unsigned(blocks), unsigned(nl)), P::block,
            shared_analyse ? 2 * std::size_t(words) * 4 : 0, s>>>(
      tg_d.data(), tp.data(), tc.data(), order, n, blocks, words, max_stages, bitmap.data(),
      prefix.data(), inputs.data(), rank.data(), width.data());
  RINGBLAS_CHECK_LAUNCH("sparse_layer analyse_blocks", s, ctx.debug_sync);
  phase(std::string("blocks analysed (bitmaps in ") + (shared_analyse ? "shared" : "global") +
        " memory)");
  const std::vector<int> inputs_h = inputs.to_host(ctx);  // synchronizes: the layout needs them
  const std::vector<int> width_h = width.to_host(ctx);

  phase("sizes back on the host (" + std::to_string((inputs_h.size() + width_h.size()) * 4) +
        " bytes)");
  // --- layouts (host, from the sizes) and the header arrays ---
  std::vector<unsigned> headers;
  std::vector<unsigned long long> segments;
  out.layout.resize(weights.size());
  out.offset.resize(weights.size());
  std::size_t total = 0;
  for (int k = 0; k < nl; ++k) {
    std::vector<int> stage_displ{0}, map_displ{0}, warp_displ{0};
    int map_total = 0, max_stage = 0;
    for (int b = 0; b < blocks; ++b) {
      const int u = inputs_h[std::size_t(k) * blocks + b];
      const int stages = (u + P::buffer - 1) / P::buffer;
      max_stage = std::max(max_stage, std::min(u, P::buffer));
      for (int st = 0; st < stages; ++st) {
        map_displ.push_back(map_total + std::min(u, (st + 1) * P::buffer));
        for (int w = 0; w < P::warps; ++w)
          warp_displ.push_back(warp_displ.back() +
                               width_h[((std::size_t(k) * blocks + b) * max_stages + st) * P::warps + w]);
      }
      map_total += u;
      stage_displ.push_back(stage_displ.back() + stages);
    }
    BlobLayout& L = out.layout[std::size_t(k)];
    L.outputs = n;
    L.inputs = n;
    L.blocks = blocks;
    L.stages = int(map_displ.size() - 1);
    L.max_stage = max_stage;
    L.entries = std::int64_t(warp_displ.back()) * 32;
    std::size_t w = 0;
    auto place = [&](std::size_t words_needed) {  // as prepare_layer: 16-byte aligned arrays
      const std::size_t a = w;
      w += (words_needed + 3) / 4 * 4;
      return a;
    };
    L.stage_displ = place(stage_displ.size());
    L.map_displ = place(map_displ.size());
    L.map = place(std::size_t(map_total));
    L.warp_displ = place(warp_displ.size());
    L.index = place(words_for_u16(std::size_t(L.entries)));
    L.value = place(std::size_t(L.entries));
    L.words = w;
    out.offset[std::size_t(k)] = total;
    Target& T = tg[std::size_t(k)];
    T.base = total;
    T.stage_displ = L.stage_displ;
    T.map_displ = L.map_displ;
    T.map = L.map;
    T.warp_displ = L.warp_displ;
    T.index = L.index;
    T.value = L.value;
    for (const auto* a : {&stage_displ, &map_displ, &warp_displ}) {
      const std::size_t dst = total + (a == &stage_displ ? L.stage_displ : a == &map_displ ? L.map_displ : L.warp_displ);
      segments.insert(segments.end(), {dst, headers.size(), a->size()});
      headers.insert(headers.end(), a->begin(), a->end());
    }
    total += w;
  }
  out.words = total;
  phase("layout (host loop, " + std::to_string(segments.size() / 3) + " header segments)");
  out.blob = Buffer(std::max<std::size_t>(total, 1) * 4, Location::device, &ctx);
  RINGBLAS_CUDA_TRY(cudaMemsetAsync(out.blob.data(), 0, total * 4, s));  // alignment gaps
  device_array<unsigned> headers_d(headers.size(), ctx);
  headers_d.from_host(headers, ctx);
  device_array<unsigned long long> segments_d(segments.size(), ctx);
  segments_d.from_host(segments, ctx);
  RINGBLAS_CUDA_TRY(cudaMemcpyAsync(tg_d.data(), tg.data(), tg.size() * sizeof(Target), cudaMemcpyHostToDevice, s));
  const int nseg = int(segments.size() / 3);
  place_headers<<<std::min(nseg, 4096), 128, 0, s>>>(headers_d.data(), segments_d.data(), nseg,
                                                      out.blob.as<unsigned>());
  RINGBLAS_CHECK_LAUNCH("sparse_layer place_headers", s, ctx.debug_sync);
  phase("headers up and placed (" + std::to_string(total * 4) + "-byte blob zeroed)");
  const auto fill = opt.staging == BlockStaging::shared ? fill_blocks<true> : fill_blocks<false>;
  fill<<<dim3(unsigned(blocks), unsigned(nl)), P::block, 0, s>>>(
      tg_d.data(), tp.data(), tc.data(), tv.data(), rank.data(), order, n, blocks, words,
      bitmap.data(), prefix.data(), out.blob.as<unsigned>());
  RINGBLAS_CHECK_LAUNCH("sparse_layer fill_blocks", s, ctx.debug_sync);
  // The scratch arrays are freed when this returns, in s's order (after the fill), and the host
  // vectors copied from above must outlive their asynchronous copies: synced waits for
  // everything; early keeps the host vectors with the event (and makes the legacy stream wait for
  // the fill too: prepare.hpp's promise to every blocking stream).
  if (opt.ret == PrepareReturn::synced) {
    RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));
  } else {
    struct Ready {
      cudaEvent_t event = nullptr;
      std::vector<Target> tg;
      std::vector<unsigned> headers;
      std::vector<unsigned long long> segments;
      ~Ready() {
        if (event) cudaEventDestroy(event);
      }
    };
    auto ready = std::make_shared<Ready>();
    ready->tg = std::move(tg);  // a moved vector keeps its storage: the copies' sources stay put
    ready->headers = std::move(headers);
    ready->segments = std::move(segments);
    RINGBLAS_CUDA_TRY(cudaEventCreateWithFlags(&ready->event, cudaEventDisableTiming));
    RINGBLAS_CUDA_TRY(cudaEventRecord(ready->event, s));
    if (s != nullptr) RINGBLAS_CUDA_TRY(cudaStreamWaitEvent(cudaStreamLegacy, ready->event, 0));
    out.ready = std::shared_ptr<void>(ready, static_cast<void*>(ready->event));
  }
  phase("blobs filled");
  return out;
}

}  // namespace ringblas::cuda::sparse_layer
