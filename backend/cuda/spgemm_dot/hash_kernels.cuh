// The spgemm_dot_hash kernels (included only by launcher.cu): masked dot products computed row by
// row of the mask, C(i, j) = ⊕_k A(i, k) ⊗ Bt(j, k) for every mask entry (i, j), with row i of A
// held in a shared-memory hash set (open addressing, multiplicative hash, linear probing; keys
// are A's column indices, with the entry's position beside them when the multiply reads A) that
// every mask entry of row i probes with the columns of its row j of Bt (Bt = op(B)ᵀ). Row i of A
// is loaded once for all its mask entries (the per-entry kernel reads it once per entry), and a
// probe is one shared-memory lookup instead of a binary search: the row-wise "hash" form of
// masked triangle counting (Wolf et al., HPEC 2017; Pandey et al., "TRUST", TPDS 2021).
// Thread mapping:
// - classify_rows: one thread per mask row; rows with mask entries go to the warp list when row
//   i of A fits a warp's table (<= HashPolicy::warp_max_a entries) and the row has at most
//   HashPolicy::warp_max_m mask entries, else to the block list.
// - hash_warp_kernel: one warp per listed row, its table in its own HashPolicy::warp_slots slots
//   of shared memory (sized per row to the next power of two >= 2 |A(i,:)|); the warp splits into
//   groups of 2^log_g lanes, each group one mask entry at a time, its lanes striding over row j
//   of Bt and combining their (value, found) pairs with __shfl_xor_sync.
// - hash_block_kernel: gridDim.y blocks per listed row (enough for the longest row of mask
//   entries to give each block about HashPolicy::block_entries of them), each with its own table
//   of up to HashPolicy::block_slots slots; the blocks of a row take turns over its mask entries,
//   a block's warps share out its turn the same way (a block with no turn leaves before building
//   its table). A row longer than half that
//   table is searched instead (binary search in row i of A in global memory, each lane resuming
//   where its previous search ended, as the per-entry kernel does).
// - Either kernel walks row i of A and binary-searches row j of Bt instead, for a mask entry
//   whose row j is much longer than row i (search_bt): the walk covers the shorter row.
// Shared memory (dynamic): warp kernel 8 x warp_slots x 4 bytes (x 2 when A's values are read),
// block kernel block_slots x 4 bytes (x 2). Output: t_values[e] and keep[e] for every mask entry
// e of the listed rows (keep 1 where row i of A and row j of Bt share a column), as dot_kernel.
#pragma once
#include <climits>
#include <cstdint>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/spgemm_dot/kernels.cuh"
#include "semirings/semiring.hpp"

namespace ringblas::cuda::spgemm_dot {

struct HashPolicy {
  static constexpr int block = 256;  ///< both kernels: 8 warps
  static constexpr int warps = block / 32;
  static constexpr int warp_slots = 1024;  ///< a warp's table: rows of A up to 512 entries
  static constexpr int warp_max_a = warp_slots / 2;
  static constexpr int block_slots = 8192;    ///< a block's table: rows of A up to 4096 entries
  static constexpr int warp_max_m = 4096;     ///< rows with more mask entries go to blocks
  static constexpr int block_entries = 1024;  ///< mask entries per block on the longest row
  static constexpr int max_split = 4096;      ///< blocks per row at most (gridDim.y)
  static constexpr int unroll = 4;  ///< columns of a row of Bt loaded per lane before probing
};

/// Operands of the hash kernels (32-bit indices), the mask as CSR.
struct HashProblem {
  const std::int32_t* m_rp = nullptr;
  const std::int32_t* m_ci = nullptr;
  const std::int32_t* a_rp = nullptr;
  const std::int32_t* a_ci = nullptr;
  const void* a_values = nullptr;  ///< nullptr when the multiply does not read A
  const std::int32_t* b_rp = nullptr;
  const std::int32_t* b_ci = nullptr;
  const void* b_values = nullptr;
  void* t_values = nullptr;      ///< one per mask entry
  std::int32_t* keep = nullptr;  ///< one per mask entry
};

__device__ __forceinline__ int hash_slot(int key, int log_size) {
  return static_cast<int>((static_cast<unsigned>(key) * 2654435769u) >> (32 - log_size));
}

/// log2 of the table for n keys: the next power of two >= 2 n, at least 32 slots.
__device__ __forceinline__ int table_log_size(int n) {
  int l = 5;
  while ((1 << l) < 2 * n) ++l;
  return l;
}

/// Splits the rows with mask entries into the warp list and the block list (warp-aggregated
/// atomic appends; the order within a list is arbitrary). counts[0], counts[1]: list lengths;
/// counts[2]: the most mask entries of a block-list row.
__global__ void __launch_bounds__(256)
    classify_rows(int nrows, const std::int32_t* m_rp, const std::int32_t* a_rp,
                  std::int32_t* warp_rows, std::int32_t* block_rows, int* counts) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  bool to_warp = false, to_block = false;
  if (i < nrows && m_rp[i + 1] > m_rp[i]) {
    const int mi = m_rp[i + 1] - m_rp[i];
    const bool small =
        a_rp[i + 1] - a_rp[i] <= HashPolicy::warp_max_a && mi <= HashPolicy::warp_max_m;
    to_warp = small;
    to_block = !small;
    if (to_block) atomicMax(counts + 2, mi);
  }
  // Every lane reaches both ballots (no early return).
  for (int list = 0; list < 2; ++list) {
    const bool sel = list == 0 ? to_warp : to_block;
    const unsigned ballot = __ballot_sync(0xffffffffu, sel);
    if (ballot == 0) continue;
    const int leader = __ffs(ballot) - 1;
    int base = 0;
    if (lane == leader) base = atomicAdd(counts + list, __popc(ballot));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (sel) (list == 0 ? warp_rows : block_rows)[base + __popc(ballot & ((1u << lane) - 1))] = i;
  }
}

/// Inserts row i of A (positions a0..a1) into a table of 2^log_size slots (keys -1 = empty),
/// `lane` of `width` cooperating threads; the caller synchronises before and after.
template <bool Pos>
__device__ __forceinline__ void fill_table(int* keys, int* pos, int log_size,
                                           const std::int32_t* a_ci, int a0, int a1, int lane,
                                           int width) {
  const int size = 1 << log_size;
  for (int q = a0 + lane; q < a1; q += width) {
    const int k = a_ci[q];
    int h = hash_slot(k, log_size);
    while (atomicCAS(keys + h, -1, k) != -1) h = (h + 1) & (size - 1);
    if constexpr (Pos) pos[h] = q;
  }
}

/// The slot holding k, or -1 (a row's keys are distinct, so an empty slot ends the probe).
__device__ __forceinline__ int find_slot(const int* keys, int log_size, int k) {
  const int size = 1 << log_size;
  int h = hash_slot(k, log_size);
  while (true) {
    const int s = keys[h];
    if (s == k) return h;
    if (s == -1) return -1;
    h = (h + 1) & (size - 1);
  }
}

/// Whether mask entry (i, j) is computed by binary searches of row j of Bt (lanes striding
/// over row i of A, la entries) rather than by table probes (lanes striding over row j of Bt, lb
/// entries): when la searches of about log2(lb) dependent loads each, weighted 3 against one
/// streamed load and one shared-memory probe, cost less than lb probes; without a table, the
/// shorter row is always the one walked.
__device__ __forceinline__ bool search_bt(int la, int lb, bool have_table) {
  if (!have_table) return la < lb;
  const int log_lb = 32 - __clz(lb > 0 ? lb : 1);
  return 3LL * la * log_lb < lb;
}

/// One group of 2^log_g lanes computes mask entry e of row i (when `valid`): its lanes stride
/// over row j of Bt looking each column up in row i of A (the table, or a binary search in
/// a_ci[a0, a1) when `keys` is null), or, when search_bt says so, over row i of A binary-searching
/// row j of Bt; then the group combines and its first lane writes. Every lane of the warp calls
/// this (the shuffles need them all).
template <class S>
__device__ __forceinline__ void entry_in_row(const HashProblem& p, int i, long long e, bool valid,
                                             const int* keys, const int* pos, int log_size, int a0,
                                             int a1, int amin, int amax, int log_g, int glane) {
  using T = typename S::value_type;
  const int g = 1 << log_g;
  T acc{};
  bool found = false;
  auto take = [&](int pa, int pb, int k, int j) { add_term<S>(p, pa, pb, i, k, j, acc, found); };
  if (valid && a0 < a1) {
    const int j = p.m_ci[e];
    const int b0 = p.b_rp[j], b1 = p.b_rp[j + 1];
    if (search_bt(a1 - a0, b1 - b0, keys != nullptr)) {
      int lo = b0;
      for (int q = a0 + glane; q < a1 && lo < b1; q += g) {
        const int k = p.a_ci[q];
        lo = lower_bound_from(p.b_ci, lo, b1, k);
        if (lo == b1 || p.b_ci[lo] != k) continue;
        take(q, lo, k, j);
        if constexpr (S::is_any) break;
        if constexpr (S::has_terminal) {
          if (acc == S::terminal()) break;
        }
      }
    } else {
      int lo = a0;
      // HashPolicy::unroll columns per lane loaded before any is looked up: that many loads in
      // flight per lane instead of one (the loop is bound by their latency, not by the probes).
      constexpr int U = HashPolicy::unroll;
      bool done = false;
      for (int q = b0 + glane; q < b1 && !done; q += U * g) {
        int ks[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int qu = q + u * g;
          ks[u] = qu < b1 ? p.b_ci[qu] : INT_MAX;
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int k = ks[u];
          if (done || k > amax) {  // Bt's rows are sorted (INT_MAX: past the row's end)
            done = true;
            continue;
          }
          if (k < amin) continue;
          int pa;
          if (keys) {
            const int h = find_slot(keys, log_size, k);
            if (h < 0) continue;
            pa = S::reads_a ? pos[h] : 0;
          } else {
            lo = lower_bound_from(p.a_ci, lo, a1, k);
            if (lo == a1 || p.a_ci[lo] != k) continue;
            pa = lo;
          }
          take(pa, q + u * g, k, j);
          if constexpr (S::is_any) done = true;
          if constexpr (S::has_terminal) {
            if (acc == S::terminal()) done = true;
          }
        }
      }
    }
  }
  combine_and_write<S>(acc, found, g, valid && glane == 0, e, p.t_values, p.keep);
}

template <class S>
__global__ void __launch_bounds__(HashPolicy::block)
    hash_warp_kernel(HashProblem p, const std::int32_t* rows, int count, int log_g) {
  extern __shared__ int smem[];
  constexpr int per_warp = HashPolicy::warp_slots * (S::reads_a ? 2 : 1);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int r = blockIdx.x * HashPolicy::warps + warp;
  if (r >= count) return;  // warp-uniform: the whole warp leaves
  int* keys = smem + warp * per_warp;
  int* pos = keys + HashPolicy::warp_slots;
  const int i = rows[r];
  const int a0 = p.a_rp[i], a1 = p.a_rp[i + 1];
  const int log_size = table_log_size(a1 - a0);
  for (int s = lane; s < (1 << log_size); s += 32) keys[s] = -1;
  __syncwarp();
  fill_table<S::reads_a>(keys, pos, log_size, p.a_ci, a0, a1, lane, 32);
  __syncwarp();
  const int amin = a0 < a1 ? p.a_ci[a0] : 0, amax = a0 < a1 ? p.a_ci[a1 - 1] : -1;
  const int m0 = p.m_rp[i], m1 = p.m_rp[i + 1];
  const int groups = 32 >> log_g;
  const int gi = lane >> log_g, glane = lane & ((1 << log_g) - 1);
  for (long long base = m0; base < m1; base += groups) {
    const long long e = base + gi;
    entry_in_row<S>(p, i, e, e < m1, keys, pos, log_size, a0, a1, amin, amax, log_g, glane);
  }
}

template <class S>
__global__ void __launch_bounds__(HashPolicy::block)
    hash_block_kernel(HashProblem p, const std::int32_t* rows, int log_g) {
  extern __shared__ int smem[];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int i = rows[blockIdx.x];
  const int m0 = p.m_rp[i], m1 = p.m_rp[i + 1];
  const int groups = 32 >> log_g;
  const int step = groups * HashPolicy::warps;
  const long long first = m0 + static_cast<long long>(blockIdx.y) * step;
  if (first >= m1) return;  // block-uniform: this row has no turn for this block
  const int a0 = p.a_rp[i], a1 = p.a_rp[i + 1];
  const bool fits = a1 - a0 <= HashPolicy::block_slots / 2;
  int* keys = fits ? smem : nullptr;
  int* pos = smem + HashPolicy::block_slots;
  const int log_size = fits ? table_log_size(a1 - a0) : 0;
  if (fits) {
    for (int s = threadIdx.x; s < (1 << log_size); s += blockDim.x) keys[s] = -1;
    __syncthreads();
    fill_table<S::reads_a>(keys, pos, log_size, p.a_ci, a0, a1, threadIdx.x, blockDim.x);
    __syncthreads();
  }
  const int amin = a0 < a1 ? p.a_ci[a0] : 0, amax = a0 < a1 ? p.a_ci[a1 - 1] : -1;
  const int gi = lane >> log_g, glane = lane & ((1 << log_g) - 1);
  for (long long base = first; base < m1; base += static_cast<long long>(step) * gridDim.y) {
    const long long e = base + warp * groups + gi;
    entry_in_row<S>(p, i, e, e < m1, keys, pos, log_size, a0, a1, amin, amax, log_g, glane);
  }
}

/// sum[0] += Σ over mask entries (i, j) of |Bt(j, :)|: the probes of the hash kernels, which
/// size the lane groups (block reduce, one atomic per block).
__global__ void __launch_bounds__(256)
    count_probes(long long nnz, const std::int32_t* m_ci, const std::int32_t* b_rp,
                 unsigned long long* sum) {
  __shared__ unsigned long long part[256 / 32];
  unsigned long long s = 0;
  for (long long e = blockIdx.x * 256LL + threadIdx.x; e < nnz; e += 256LL * gridDim.x) {
    const int j = m_ci[e];
    s += static_cast<unsigned long long>(b_rp[j + 1] - b_rp[j]);
  }
  for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long t = 0;
    for (int w = 0; w < 256 / 32; ++w) t += part[w];
    atomicAdd(sum, t);
  }
}

}  // namespace ringblas::cuda::spgemm_dot
