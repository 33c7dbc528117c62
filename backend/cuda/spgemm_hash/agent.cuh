// Device building blocks of spgemm_hash: CSR/mask views, bin classification, the hash table ref
// (shared or global memory, linear probing, atomicCAS insert), block scan and the
// product enumeration used by every kernel. No warp-synchronous assumptions: threads meet only
// at __syncthreads/__syncwarp and communicate through atomics.
#pragma once
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "backend/cuda/common/monoid_atomics.cuh"
#include "backend/cuda/spgemm_hash/policy.hpp"
#include "semirings/semiring.hpp"

namespace ringblas::cuda::spgemm_hash {

constexpr int empty_key = -1;

/// A CSR operand on the device (values typed by the caller).
template <class I> struct csr_ref {
  std::int64_t nrows = 0, ncols = 0;
  const I* rp = nullptr;
  const I* ci = nullptr;
  const void* v = nullptr;
};

/// A structural mask (sorted rows); `present` false admits every column.
template <class I> struct mask_ref {
  const I* rp = nullptr;
  const I* ci = nullptr;
  bool present = false;
  bool complement = false;
};

// Value storage in tables (bool held as int) and the monoid atomics: backend/cuda/common.
using detail::acc_t;
using detail::atomic_combine;

__host__ __device__ inline std::int64_t next_pow2(std::int64_t x) {
  std::int64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

/// The smallest block bin at or after `b` whose table (`table(b)` slots) covers a row whose
/// columns span `span` (so that it can use a direct table: no probing, no sort), if that costs at
/// most policy::direct_promote times the slots of bin b; else -1.
template <class Table>
__host__ __device__ inline int direct_bin(int b, std::int64_t span, Table table) {
  using P = policy;
  for (int d = b; d < P::num_block_bins; ++d) {
    if (std::int64_t(table(d)) > std::int64_t(table(b)) * P::direct_promote) return -1;
    if (span <= std::int64_t(table(d))) return d;
  }
  return -1;
}

/// The issue-14 switches as kernels see them (spgemm_hash::tuning, policy.hpp).
struct paths {
  bool bitmap = false;    ///< symbolic: bitmap of span bits when the span exceeds the table
  int dense_windows = 0;  ///< numeric: windowed direct accumulation up to this many windows
  int dense_min_nnz = 0;  ///< ... for rows with at least this many outputs
  int wide_pwarp = 0;  ///< rows up to this many products in partial-warp bins (policy)
  int bucket_min = 0;  ///< numeric: bucket rank for hash rows with this many outputs (0: off)
  int bucket_entries = 1;   ///< ... about this many entries per bucket
  int bucket_limit = 0;     ///< ... unless a bucket holds more than this many
  bool wide_alone = false;  ///< wide pwarp bins only when no row needs a block (host side)
  std::int64_t fused_scan_rows = 0;  ///< one-block scan + classification up to this many rows
  float bucket_max_ratio = 0.f;      ///< bucket rank only for rows of at most this many products
                                     ///< per output (0: any)
  int pwarp_split = 0;  ///< partial-warp rows: 1 lanes share a B row, 2 flat walks (pwarp)
  std::int64_t sync_free_rows = 0;  ///< symbolic phase without host sync up to this many rows
  int sync_free_bins = 1;           ///< ... taking block bins 0 .. sync_free_bins - 1 in it
  int sync_free_big_grid = 0;  ///< ... and the larger block bins but the last grid-stride (> 0)
  bool one_workspace = false;       ///< the plan's arrays in one allocation (host side)
  int pwarp_threads = policy::pwarp_block;  ///< partial-warp block threads (0: by the grid)
  std::int64_t pwarp_spread_rows = 0;       ///< the pwarp bin in a wide shape up to this many rows
  int pwarp_spread_group = policy::pwarp2_group;  ///< ... of this many threads per row (8, 16)
  int sync_free_threads = policy::pwarp_block;    ///< k_symbolic_small's block (256 or 512)
};

/// Does a pwarp bin of `m` rows run in a wide bin's shape (paths::pwarp_spread_rows)?
__host__ __device__ inline bool pwarp_spreads(std::int64_t m, const paths& pa) {
  return m > 0 && m <= pa.pwarp_spread_rows;
}

/// Is a hash row of a block bin (`products` products, `nnz` outputs) ordered by bucket rank
/// (paths::bucket_min) rather than compaction and the bitonic sort? With bucket_max_ratio, only
/// rows of few products per output: on an H100 (spgemm_vs_speck_s9_h100.md) the bucket rank won
/// where C = A·A has ~1-2 products per output (er200k_16 4.16 -> 3.51-3.64 ms, soc-Epinions1 9.40
/// -> 8.96-9.03) and lost at 6-18 (stencil27_100 14.7 -> 20.3, band300k_27 2.88 -> 3.6, bcsstk16
/// 0.364 -> 0.417).
__host__ __device__ inline bool takes_buckets(std::int64_t products, std::int64_t nnz,
                                              const paths& pa) {
  return pa.bucket_min > 0 && nnz >= pa.bucket_min &&
         (pa.bucket_max_ratio <= 0.f || double(products) <= double(pa.bucket_max_ratio) * nnz);
}

/// Does a numeric row (exact output size nnz, column span `span`) that a table of `table` slots
/// cannot address directly accumulate window by window instead of hashing and sorting?
__host__ __device__ inline bool uses_dense_windows(std::int64_t nnz, std::int64_t span,
                                                   std::int64_t table, const paths& pa) {
  return pa.dense_windows > 0 && span > table && nnz >= pa.dense_min_nnz &&
         (span + table - 1) / table <= pa.dense_windows;
}

/// The wide partial-warp bin of a row of more than pwarp_table products, or 0.
__host__ __device__ inline int pwarp_bin(std::int64_t products, int wide_pwarp) {
  using P = policy;
  if (wide_pwarp >= P::pwarp2_table && products <= P::pwarp2_table) return P::bin_pwarp2;
  if (wide_pwarp >= P::pwarp3_table && products <= P::pwarp3_table) return P::bin_pwarp3;
  return 0;
}

/// Symbolic bin of a row from its products, its bound on distinct columns and the span of its
/// possible columns (last - first + 1). With `bitmap`, the last block bin also takes rows whose
/// span its table covers at 32 columns per slot (else they go to the global bin).
__host__ __device__ inline int symbolic_bin(std::int64_t products, std::int64_t cap,
                                            std::int64_t span, bool bitmap, int wide_pwarp) {
  using P = policy;
  auto table = [](int b) { return P::symbolic_table(b); };
  if (products == 0) return P::bin_empty;
  if (products <= P::pwarp_table) return P::bin_pwarp;
  if (int w = pwarp_bin(products, wide_pwarp)) return w;
  int b = P::num_block_bins;
  for (int x = 0; x < P::num_block_bins - 1; ++x)
    if (products <= P::max_products(x)) {
      b = x;
      break;
    }
  if (b == P::num_block_bins) {
    if (cap <= P::symbolic_table(P::num_block_bins - 2)) b = P::num_block_bins - 2;
    else if (cap <= P::symbolic_table(P::num_block_bins - 1)) b = P::num_block_bins - 1;
  }
  if (b == P::num_block_bins) {
    const std::int64_t reach = std::int64_t(table(P::num_block_bins - 1)) * (bitmap ? 32 : 1);
    return span <= reach ? P::bin_block0 + P::num_block_bins - 1 : P::bin_global;
  }
  const int d = direct_bin(b, span, table);
  return P::bin_block0 + (d >= 0 ? d : b);
}

/// Numeric bin of a row from its products, its exact output size and the span of its columns.
/// Rows that take windowed dense accumulation (uses_dense_windows with the last bin's table) go
/// to the last block bin unless a smaller direct table covers them.
__host__ __device__ inline int numeric_bin(std::int64_t products, std::int64_t nnz,
                                           std::int64_t span, const paths& pa) {
  using P = policy;
  auto table = [](int b) { return P::numeric_table(b); };
  if (nnz == 0) return P::bin_empty;
  if (products <= P::pwarp_table) return P::bin_pwarp;
  if (int w = pwarp_bin(products, pa.wide_pwarp)) return w;
  const int last = P::num_block_bins - 1;
  const bool windows = uses_dense_windows(nnz, span, table(last), pa);
  int b = P::num_block_bins;
  for (int x = 0; x < P::num_block_bins - 1; ++x)
    if (products <= P::max_products(x)) {
      b = x;
      break;
    }
  if (b == P::num_block_bins)
    for (int x = P::num_block_bins - 2; x < P::num_block_bins; ++x)
      if (double(nnz) <= P::numeric_fill * P::numeric_table(x)) {
        b = x;
        break;
      }
  if (b == P::num_block_bins)
    return span <= table(last) || windows ? P::bin_block0 + last : P::bin_global;
  const int d = direct_bin(b, span, table);
  if (d >= 0) return P::bin_block0 + d;
  return P::bin_block0 + (windows ? last : b);
}

/// Inserts `key` into a power-of-two table (mask = size - 1); returns its slot and whether this
/// call placed it. A `direct` table has a slot per column from `base` on (slot = key - base: no
/// probing, and the slots are already in column order). Only atomics touch the keys while
/// threads insert concurrently.
__device__ __forceinline__ unsigned table_insert(int* keys, unsigned mask, int key,
                                                 bool& inserted, bool direct = false,
                                                 int base = 0) {
  unsigned h = direct ? unsigned(key - base) : (unsigned(key) * policy::hash_scale) & mask;
  // Always the compare-and-swap: reading the slot first (to skip the atomic on repeated columns)
  // made collision-heavy rows slower on an H100 (session 5, round 1: wiki-Vote 0.86 -> 1.16 ms,
  // bcsstk16 0.36 -> 0.41 ms, soc-Epinions1 9.3 -> 10.6 ms), so it was taken out again.
  while (true) {
    const int old = atomicCAS(&keys[h], empty_key, key);
    if (old == empty_key) {
      inserted = true;
      return h;
    }
    if (old == key) {
      inserted = false;
      return h;
    }
    h = (h + 1) & mask;
  }
}

/// Is column j admitted in row `row` (binary search in the sorted mask row)?
template <class I>
__device__ __forceinline__ bool mask_admits(const mask_ref<I>& m, std::int64_t row, I j) {
  if (!m.present) return true;
  I lo = m.rp[row], hi = m.rp[row + 1];
  while (lo < hi) {
    const I mid = lo + (hi - lo) / 2;
    const I c = m.ci[mid];
    if (c == j) return !m.complement;
    if (c < j) lo = mid + 1;
    else hi = mid;
  }
  return m.complement;
}

/// Exclusive scan of one int per thread over a block of any multiple-of-32 size; `warp_sums`
/// holds 32 ints of shared memory. Returns the prefix; `total` receives the sum. Ends with a
/// barrier, so warp_sums may be reused after it.
__device__ __forceinline__ int block_exclusive_scan(int v, int* warp_sums, int& total) {
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  int incl = v;
  for (int d = 1; d < 32; d <<= 1) {
    const int y = __shfl_up_sync(0xffffffffu, incl, d);
    if (lane >= d) incl += y;
  }
  if (lane == 31) warp_sums[wid] = incl;
  __syncthreads();
  if (wid == 0) {
    int w = lane < nwarps ? warp_sums[lane] : 0;
    for (int d = 1; d < 32; d <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, w, d);
      if (lane >= d) w += y;
    }
    if (lane < nwarps) warp_sums[lane] = w;
  }
  __syncthreads();
  const int prefix = (wid > 0 ? warp_sums[wid - 1] : 0) + incl - v;
  total = warp_sums[nwarps - 1];
  __syncthreads();
  return prefix;
}

/// Threads per A entry inside a block row: a power of two near the average B row length.
__device__ __forceinline__ int lanes_per_entry(std::int64_t products, std::int64_t a_len) {
  const std::int64_t avg = a_len > 0 ? (products + a_len - 1) / a_len : 1;
  int g = 1;
  while (g < 32 && g < avg) g <<= 1;
  return g;
}

/// Threads per A entry in a partial-warp row of `a_len` entries over `group` threads: with
/// `split` (paths::pwarp_split) the most that still take all of the row's entries in one pass,
/// else 1 (a thread walks each of its entries' B rows alone). A wide pwarp row of 2 entries
/// whose B rows hold 60 entries took 60 dependent steps on one thread while 14 of its 16 idled;
/// session 5 put ~100 us of G51's numeric time on its 141 pwarp3 rows (spgemm_notes.md, round 5).
__device__ __forceinline__ int pwarp_lanes(std::int64_t a_len, int group, bool split) {
  int g = 1;
  if (split)
    while (2 * g <= group && a_len * 2 * g <= group) g <<= 1;
  return g;
}

/// Calls f(p, k, q, j) for every product A(row, k) B(k, j) (p, q: positions in A and B) that the
/// mask admits, spread over `nthreads` threads: groups of `g` threads per A entry, one thread per
/// B entry (nsparse's warp-per-A-entry mapping with a variable group width).
template <class I, class F>
__device__ __forceinline__ void for_each_product(const csr_ref<I>& A, const csr_ref<I>& B,
                                                 const mask_ref<I>& M, std::int64_t row, int tid,
                                                 int nthreads, int g, F&& f) {
  const int lane = tid % g, sub = tid / g, nsub = nthreads / g;
  const I a_end = A.rp[row + 1];
  for (I p = A.rp[row] + sub; p < a_end; p += nsub) {
    const I k = A.ci[p];
    const I b_end = B.rp[k + 1];
    for (I q = B.rp[k] + lane; q < b_end; q += g) {
      const I j = B.ci[q];
      if (M.present && !mask_admits(M, row, j)) continue;
      f(p, k, q, j);
    }
  }
}

/// for_each_product of a partial-warp row over its group of `Group` threads (t: this thread's
/// place in it) under paths::pwarp_split `mode`: 0 a thread per A entry; 1 pwarp_lanes threads
/// per entry; 2 as 1, but a row of at most Group entries is walked flat: thread t takes the
/// row's products t, t + Group, ... in entry order, reading every entry's B bounds (a_len steps
/// of broadcast loads) and then only its own products, so that one long B row next to short
/// ones no longer sets the row's time. Row statistics of C = A·A with wide bins up to 128
/// (host script): the longest serial walk of a pwarp3 row, modes 0 / 1 / 2: G51 69 / 46 / 18,
/// hep-th 50 / 50 / 27, ca-GrQc 81 / 63 / 45; but mesh rows of even B rows walk longer flat
/// (3elt's pwarp2 rows: 6.4 -> 11.1 steps on average).
template <int Group, class I, class F>
__device__ __forceinline__ void for_each_pwarp_product(const csr_ref<I>& A, const csr_ref<I>& B,
                                                       const mask_ref<I>& M, std::int64_t row,
                                                       int t, int mode, F&& f) {
  const I a_begin = A.rp[row], a_end = A.rp[row + 1];
  const std::int64_t a_len = std::int64_t(a_end - a_begin);
  if (mode < 2 || a_len > Group) {
    for_each_product(A, B, M, row, t, Group, pwarp_lanes(a_len, Group, mode >= 1), f);
    return;
  }
  int before = 0;  // the row's products in the entries before p, mod Group
  for (I p = a_begin; p < a_end; ++p) {
    const I k = A.ci[p];
    const I b0 = B.rp[k], b_end = B.rp[k + 1];
    for (I q = b0 + I((t - before) & (Group - 1)); q < b_end; q += Group) {
      const I j = B.ci[q];
      if (M.present && !mask_admits(M, row, j)) continue;
      f(p, k, q, j);
    }
    before = int((std::int64_t(before) + std::int64_t(b_end - b0)) & (Group - 1));
  }
}

/// for_each_product restricted to the columns lo <= j < hi: each B row (sorted) is entered at its
/// first column >= lo by a binary search (every lane of the group does the same one) and left at
/// the first column >= hi, so a pass over one column window reads only that window's products.
template <class I, class F>
__device__ __forceinline__ void for_each_product_in(const csr_ref<I>& A, const csr_ref<I>& B,
                                                    const mask_ref<I>& M, std::int64_t row,
                                                    int tid, int nthreads, int g, I lo, I hi,
                                                    F&& f) {
  const int lane = tid % g, sub = tid / g, nsub = nthreads / g;
  const I a_end = A.rp[row + 1];
  for (I p = A.rp[row] + sub; p < a_end; p += nsub) {
    const I k = A.ci[p];
    const I b_end = B.rp[k + 1];
    I b = B.rp[k], e = b_end;
    while (b < e) {
      const I mid = b + (e - b) / 2;
      if (B.ci[mid] < lo) b = mid + 1;
      else e = mid;
    }
    for (I q = b + lane; q < b_end; q += g) {
      const I j = B.ci[q];
      if (j >= hi) break;
      if (M.present && !mask_admits(M, row, j)) continue;
      f(p, k, q, j);
    }
  }
}

/// One shared-memory step (j, k) of a bitonic sort of n keys (and their values unless `vals` is
/// null), then a barrier. Each compare-exchange pair (i, i | j) with bit j of i clear is one
/// work item, so every thread has work.
template <class A>
__device__ __forceinline__ void bitonic_shared_step(int* keys, A* vals, int n, int j, int k) {
  for (int p = threadIdx.x; p < (n >> 1); p += blockDim.x) {
    const int i = ((p & ~(j - 1)) << 1) | (p & (j - 1));
    const int ixj = i | j;
    const int ki = keys[i], kj = keys[ixj];
    if ((ki > kj) == ((i & k) == 0)) {
      keys[i] = kj;
      keys[ixj] = ki;
      if (vals) {
        const A t = vals[i];
        vals[i] = vals[ixj];
        vals[ixj] = t;
      }
    }
  }
  __syncthreads();
}

/// Bitonic sort of n2 (a power of two) keys with their values in shared memory by the whole
/// block.
template <class A>
__device__ __forceinline__ void block_bitonic_sort(int* keys, A* vals, int n2) {
  for (int k = 2; k <= n2; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) bitonic_shared_step(keys, vals, n2, j, k);
}

/// One bitonic compare-exchange step between lanes (partner lane ^ j) for key index i in stage k.
__device__ __forceinline__ int bitonic_lane_step(int v, int i, int j, int k) {
  const int other = __shfl_xor_sync(0xffffffffu, v, j);
  const bool keep_min = ((i & j) == 0) == ((i & k) == 0);
  return keep_min ? min(v, other) : max(v, other);
}

/// Bitonic sort of n keys (a power of two, n >= 32) in shared memory by the whole block, keys
/// only. Steps whose partners lie within an aligned run of 32 keys (j < 32) run in registers
/// with warp shuffles, one load and store per run and stage; only steps with j >= 32 go through
/// shared memory with a barrier. That cuts shared-memory traffic and barriers by about 3x against
/// block_bitonic_sort.
__device__ __forceinline__ void block_bitonic_sort_keys(int* keys, int n) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  for (int k = 2; k <= n; k <<= 1) {
    for (int j = k >> 1; j >= 32; j >>= 1)
      bitonic_shared_step(keys, static_cast<int*>(nullptr), n, j, k);
    // The steps j = min(k/2, 16) .. 1 of stage k (for k < 32: stages k..32 at once).
    const int k_last = k < 32 ? 32 : k;
    for (int g = warp; g < (n >> 5); g += warps) {
      const int i = (g << 5) | lane;
      int v = keys[i];
      for (int kk = k; kk <= k_last; kk <<= 1)
        for (int j = min(kk >> 1, 16); j > 0; j >>= 1) v = bitonic_lane_step(v, i, j, kk);
      keys[i] = v;
    }
    __syncthreads();
    if (k < 32) k = 32;  // stages 2..32 are done
  }
}

/// Moves a table's entries to its front in slot order and returns their number. With shift < 0
/// keys and values move; with shift >= 0 only keys move, packed as ((key - base) << shift) | slot
/// (the caller checks that this fits 31 bits), and values stay in their slots: a later sort then
/// moves 4 bytes per entry instead of 12. Rounds of `per` x blockDim slots: warp w reads `per`
/// coalesced runs of 32 slots, ballots give each entry's place among its warp's, a block scan
/// the warp's offset. Entries only move left, onto slots the round has already read.
template <int per, class A>
__device__ __forceinline__ int compact_table(int* keys, A* vals, unsigned size, int* warp_sums,
                                             int shift = -1, int base = 0) {
  const unsigned lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  const unsigned round = per * blockDim.x;
  const bool pack = shift >= 0;
  int done = 0;
  for (unsigned start = 0; start < size; start += round) {
    const unsigned first = start + wid * (per * 32);
    int rk[per];
    A rv[per];
    unsigned ballot[per];
    int count = 0;
#pragma unroll
    for (int e = 0; e < per; ++e) {
      const unsigned s = first + unsigned(e) * 32 + lane;
      int key = s < size ? keys[s] : empty_key;
      if (key != empty_key) {
        if (pack) key = int((unsigned(key - base) << shift) | s);
        else rv[e] = vals[s];
      }
      rk[e] = key;
      ballot[e] = __ballot_sync(0xffffffffu, key != empty_key);
      count += __popc(ballot[e]);
    }
    int total;
    const int prefix = block_exclusive_scan(lane == 0 ? count : 0, warp_sums, total);
    int o = done + __shfl_sync(0xffffffffu, prefix, 0);
    const unsigned below = (1u << lane) - 1;
#pragma unroll
    for (int e = 0; e < per; ++e) {
      if (rk[e] != empty_key) {
        const int at = o + __popc(ballot[e] & below);
        keys[at] = rk[e];
        if (!pack) vals[at] = rv[e];
      }
      o += __popc(ballot[e]);
    }
    done += total;
    __syncthreads();
  }
  return done;
}

/// Bucket of a column offset `off` < span among `nb` buckets of equal width over the span, with
/// scale = ceil(2^32 nb / span): non-decreasing in off, so ordering entries by bucket and then
/// by key within a bucket orders them by key.
__device__ __forceinline__ int span_bucket(unsigned off, unsigned scale, int nb) {
  return min(int(__umulhi(off, scale)), nb - 1);
}

/// Orders a hash table's entries by column into keys[0, n), packed as ((key - base) << shift) |
/// slot (values stay in their slots; the caller checks that this fits 31 bits), without
/// compaction or a bitonic sort, and returns n. Each thread takes the slots threadIdx.x + e
/// blockDim (e < Per; size <= Per blockDim) into registers; an entry's rank then comes one of two
/// ways. Bitmap (when two words per 32 columns of the span fit the table's keys and the
/// histogram after them, hist == keys + size, which the entries no longer need): a bit per column
/// (atomicOr), a block scan of the words' popcounts, rank = the word's prefix + the bits below
/// in it; no crowding whatever the columns' distribution. Buckets (else): the entries are
/// counted into `nb` <= Hist blockDim buckets of equal width over the span (hist zeroed by the
/// caller before the table filled), a block scan (Hist consecutive buckets per thread) gives
/// each bucket its start, entries scatter by bucket, and an entry's rank is its bucket's start
/// plus the entries of its bucket with smaller keys (spECK's rank by counting, over a bucket of
/// ~nnz/nb entries instead of the whole row); when a bucket holds more than `limit` entries
/// (columns clustered in the span: soc-Epinions1's rows crowd the low column ids) it returns -1
/// with the table untouched, for the caller to compact and sort instead. Ranked keys go back in
/// place (coalesced write-out stays the caller's). About nine barriers whatever the row's size.
template <int Per, int Hist>
__device__ __forceinline__ int bucket_sort_table(int* keys, unsigned size, int shift, int base,
                                                 std::int64_t span, int* hist, int nb, int limit,
                                                 int* warp_sums) {
  const std::int64_t words = (span + 31) >> 5;
  const bool bitmap = 2 * words <= std::int64_t(size) + std::int64_t(Hist) * blockDim.x;
  const unsigned scale = unsigned(((std::uint64_t(nb) << 32) + std::uint64_t(span) - 1) /
                                  std::uint64_t(span));  // span > size >= nb: below 2^32
  int r[Per];
#pragma unroll
  for (int e = 0; e < Per; ++e) {
    const unsigned s = threadIdx.x + unsigned(e) * blockDim.x;
    const int key = s < size ? keys[s] : empty_key;
    r[e] = empty_key;
    if (key != empty_key) {
      const unsigned off = unsigned(key - base);
      r[e] = int((off << shift) | s);
      if (!bitmap) atomicAdd(&hist[span_bucket(off, scale, nb)], 1);
    }
  }
  __syncthreads();
  int n, rank[Per];
  if (bitmap) {
    unsigned* bits = reinterpret_cast<unsigned*>(keys);
    int* before = keys + words;  // set bits in the words before each word
    for (std::int64_t w = threadIdx.x; w < words; w += blockDim.x) bits[w] = 0u;
    __syncthreads();
#pragma unroll
    for (int e = 0; e < Per; ++e)
      if (r[e] != empty_key) {
        const unsigned off = unsigned(r[e]) >> shift;
        atomicOr(&bits[off >> 5], 1u << (off & 31u));
      }
    __syncthreads();
    const std::int64_t per = (words + blockDim.x - 1) / blockDim.x, w0 = threadIdx.x * per;
    const std::int64_t w1 = min(words, w0 + per);
    int count = 0;
    for (std::int64_t w = w0; w < w1; ++w) count += __popc(bits[w]);
    int start = block_exclusive_scan(count, warp_sums, n);
    for (std::int64_t w = w0; w < w1; ++w) {
      before[w] = start;
      start += __popc(bits[w]);
    }
    __syncthreads();
#pragma unroll
    for (int e = 0; e < Per; ++e) {
      const unsigned off = unsigned(r[e]) >> shift;
      rank[e] = r[e] == empty_key
                    ? 0
                    : before[off >> 5] + __popc(bits[off >> 5] & ((1u << (off & 31u)) - 1u));
    }
  } else {
    const int first = int(threadIdx.x) * Hist;
    int count = 0, most = 0;
#pragma unroll
    for (int h = 0; h < Hist; ++h) {
      const int c = first + h < nb ? hist[first + h] : 0;
      count += c;
      most = max(most, c);
    }
    if (__syncthreads_or(most > limit)) return -1;
    int start = block_exclusive_scan(count, warp_sums, n);
#pragma unroll
    for (int h = 0; h < Hist; ++h)  // only this thread touches its buckets here
      if (first + h < nb) {
        const int c = hist[first + h];
        hist[first + h] = start;
        start += c;
      }
    __syncthreads();
#pragma unroll
    for (int e = 0; e < Per; ++e)
      if (r[e] != empty_key)
        keys[atomicAdd(&hist[span_bucket(unsigned(r[e]) >> shift, scale, nb)], 1)] = r[e];
    __syncthreads();
    // hist[b] is now the end of bucket b, which is where bucket b + 1 starts.
#pragma unroll
    for (int e = 0; e < Per; ++e) {
      rank[e] = 0;
      if (r[e] == empty_key) continue;
      const int b = span_bucket(unsigned(r[e]) >> shift, scale, nb);
      const int lo = b > 0 ? hist[b - 1] : 0, hi = hist[b];
      int k = lo;
      for (int x = lo; x < hi; ++x) k += keys[x] < r[e];
      rank[e] = k;
    }
  }
  __syncthreads();
#pragma unroll
  for (int e = 0; e < Per; ++e)
    if (r[e] != empty_key) keys[rank[e]] = r[e];
  __syncthreads();
  return n;
}

}  // namespace ringblas::cuda::spgemm_hash
