// spgemm_hash, semiring-independent half (Nagasaka et al., ICPP'17, steps 1-5): per-row product
// counts and row groups (k_analyze writes each row into its bin's list of n slots, aggregated
// per block: no separate grouping pass), the symbolic phase counting each output row's
// distinct columns in hash tables of column keys (k_symbolic_pwarp: 4 threads per row, 32-slot
// tables, 64 rows per block, 8 KiB shared; k_symbolic_block: one block per row, a table of 512 to
// 32768 slots = up to 128 KiB shared; k_symbolic_global: persistent blocks, tables in global
// memory), the exclusive scan to C's row pointers and the regrouping by output size.
// Block rows whose column span exceeds their table count in a bitmap of span bits instead
// (paths::bitmap: 32 columns per slot, atomicOr, no probing); the bins of one phase run on side
// streams (bin_fork) when the tuning asks for it.
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_props.hpp"
#include "backend/cuda/common/host_read.hpp"
#include "backend/cuda/spgemm_hash/bin_streams.hpp"
#include "backend/cuda/spgemm_hash/phase_log.hpp"
#include "backend/cuda/spgemm_hash/plan.cuh"
#include "ringblas/error.hpp"

namespace ringblas::cuda::spgemm_hash {
namespace {

using P = policy;
constexpr int analyze_block = 256;

/// Does a count per bin (counters::bin_count, bin_table::count) have a row in a block bin or the
/// global bin? Then paths::wide_alone folds the wide pwarp rows into block bin 0.
template <class C>
__host__ __device__ bool any_block_rows(const C* count) {
  for (int b = P::bin_block0; b <= P::bin_global; ++b)
    if (count[b] > 0) return true;
  return false;
}

/// One warp per row of A: its products, the first and last column they reach, its symbolic bin
/// (rows appended to the bin's list, aggregated per block). With `row_nnz` (lean host path) it
/// also zeroes C's row pointers (n + 1), which the symbolic kernels then overwrite for rows with
/// products: no memset.
template <class I>
__global__ void k_analyze(csr_ref<I> A, csr_ref<I> B, std::int64_t* products, int2* range,
                          I* lists, counters* cnt, paths pa, I* row_nnz) {
  __shared__ unsigned hist[P::num_bins];
  __shared__ unsigned long long base[P::num_bins];
  __shared__ unsigned long long block_products, block_cap, block_max;
  for (int t = threadIdx.x; t < P::num_bins; t += blockDim.x) hist[t] = 0;
  if (threadIdx.x == 0) block_products = block_cap = block_max = 0;
  __syncthreads();
  const std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  int b = P::bin_empty;
  unsigned local = 0;
  if (row < A.nrows) {
    std::int64_t s = 0;
    int lo = INT_MAX, hi = -1;  // first and last column the row's products can reach
    for (I p = A.rp[row] + lane; p < A.rp[row + 1]; p += 32) {
      const I k = A.ci[p];
      const I b0 = B.rp[k], b1 = B.rp[k + 1];
      s += std::int64_t(b1 - b0);
      if (b1 > b0) {
        lo = min(lo, int(B.ci[b0]));
        hi = max(hi, int(B.ci[b1 - 1]));
      }
    }
    for (int d = 16; d > 0; d >>= 1) {
      s += __shfl_xor_sync(0xffffffffu, s, d);
      lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, d));
      hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, d));
    }
    if (lane == 0) {
      const std::int64_t cap = s < B.ncols ? s : B.ncols;
      b = symbolic_bin(s, cap, std::int64_t(hi) - lo + 1, pa.bitmap, pa.wide_pwarp);
      products[row] = s;
      if (row_nnz) {
        row_nnz[row] = I(0);
        if (row == 0) row_nnz[A.nrows] = I(0);
      }
      range[row] = make_int2(lo, hi);
      local = atomicAdd(&hist[b], 1u);
      atomicAdd(&block_products, (unsigned long long)s);
      atomicAdd(&block_cap, (unsigned long long)cap);
      if (b == P::bin_global) atomicMax(&block_max, (unsigned long long)cap);
    }
  }
  __syncthreads();
  for (int t = threadIdx.x; t < P::num_bins; t += blockDim.x)
    if (hist[t]) base[t] = atomicAdd(&cnt->bin_count[t], (unsigned long long)hist[t]);
  if (threadIdx.x == 0) {
    atomicAdd(&cnt->total_products, block_products);
    atomicAdd(&cnt->total_cap, block_cap);
    atomicMax(&cnt->max_global, block_max);
  }
  __syncthreads();
  if (lane == 0 && b != P::bin_empty)
    lists[std::int64_t(b - 1) * A.nrows + std::int64_t(base[b] + local)] = I(row);
}

/// k_classify_numeric's row: its bin from its exact output size, its product count and span; the
/// global bin's output sizes into `gmax` / `gsum`; with paths::bucket_max_ratio, a hash row of a
/// block bin that takes_buckets counts in `bucket[bin]` (shared by k_scan_classify).
__device__ __forceinline__ int classify_row(std::int64_t nnz, std::int64_t products, int2 rg,
                                            const paths& pa, unsigned long long* gmax,
                                            unsigned long long* gsum, unsigned* bucket) {
  const std::int64_t span = std::int64_t(rg.y) - rg.x + 1;
  const int b = numeric_bin(products, nnz, span, pa);
  if (b == P::bin_global) {
    atomicMax(gmax, (unsigned long long)nnz);
    atomicAdd(gsum, (unsigned long long)nnz);
  }
  if (pa.bucket_max_ratio > 0.f && b >= P::bin_block0 && b < P::bin_global &&
      span > P::numeric_table(b - P::bin_block0) && takes_buckets(products, nnz, pa))
    atomicAdd(&bucket[b], 1u);
  return b;
}

/// The numeric classification's paths: without the wide pwarp bins when `fold_from` (the
/// analysis' counters, given when the symbolic phase ran without the host reading them) has a
/// block row: the device-side form of fold_wide_rows' decision.
__device__ __forceinline__ paths numeric_paths(paths pa, const counters* fold_from) {
  if (fold_from && any_block_rows(fold_from->bin_count)) pa.wide_pwarp = 0;
  return pa;
}

template <class I>
__global__ void k_classify_numeric(std::int64_t nrows, const std::int64_t* products,
                                   const int2* range, const I* rp, I* lists, counters* cnt,
                                   paths given, const counters* fold_from) {
  const paths pa = numeric_paths(given, fold_from);
  __shared__ unsigned hist[P::num_bins], bucket[P::num_bins];
  __shared__ unsigned long long base[P::num_bins];
  __shared__ unsigned long long block_max, block_global;
  for (int t = threadIdx.x; t < P::num_bins; t += blockDim.x) hist[t] = bucket[t] = 0;
  if (threadIdx.x == 0) block_max = block_global = 0;
  __syncthreads();
  const std::int64_t row = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  int b = P::bin_empty;
  unsigned local = 0;
  if (row < nrows) {
    const std::int64_t nnz = std::int64_t(rp[row + 1]) - std::int64_t(rp[row]);
    // Each row adds less than 2^31, so a sum past I's range shows as a decreasing pointer.
    if (nnz < 0) cnt->overflow = 1;
    b = classify_row(nnz, products[row], range[row], pa, &block_max, &block_global, bucket);
    local = atomicAdd(&hist[b], 1u);
  }
  if (row == 0) cnt->nnz = (unsigned long long)rp[nrows];
  __syncthreads();
  for (int t = threadIdx.x; t < P::num_bins; t += blockDim.x) {
    if (hist[t]) base[t] = atomicAdd(&cnt->bin_count[t], (unsigned long long)hist[t]);
    if (bucket[t]) atomicAdd(&cnt->bucket_rows[t], (unsigned long long)bucket[t]);
  }
  if (threadIdx.x == 0) {
    atomicMax(&cnt->max_global, block_max);
    atomicAdd(&cnt->global_nnz, block_global);
  }
  __syncthreads();
  if (b != P::bin_empty)
    lists[std::int64_t(b - 1) * nrows + std::int64_t(base[b] + local)] = I(row);
}

/// The place of this lane's row in its bin's list when every lane of a warp appends one row (bin
/// b; `valid` false: none) to counters in shared memory: one atomic per distinct bin of the warp.
/// k_scan_classify's single block once took an atomic per row, and a mesh's rows all land in one
/// or two bins: 1024 threads then serialise on one shared address, ~8 atomics per thread per tile
/// of 8192 rows (session 9: fused_scan_rows lost 4-28 us on 3elt, fe_4elt2, whitaker3 on an H100,
/// where the two tiles of 10K rows cost the most). All 32 lanes must call it together.
__device__ __forceinline__ unsigned warp_append(unsigned* hist, int b, bool valid) {
  const int lane = threadIdx.x & 31;
  const unsigned peers = __match_any_sync(0xffffffffu, valid ? b : -1);
  const int leader = __ffs(int(peers)) - 1;
  unsigned base = 0;
  if (lane == leader && valid) base = atomicAdd(&hist[b], unsigned(__popc(peers)));
  base = __shfl_sync(0xffffffffu, base, leader);
  return base + unsigned(__popc(peers & ((1u << lane) - 1u)));
}

/// The exclusive scan of the row counts into C's row pointers (rp: n + 1 entries, in place) and
/// the numeric classification in one block of scan_threads (paths::fused_scan_rows: calls of a
/// few thousand rows, where cub's two scan kernels and k_classify_numeric cost more in launches
/// than in work). Tiles of scan_items consecutive rows per thread; one block, so a row's place in
/// its bin's list is its shared counter's old value and the counters are written, not added.
constexpr int scan_threads = 1024, scan_items = 8;
template <class I>
__global__ void __launch_bounds__(scan_threads)
    k_scan_classify(std::int64_t n, const std::int64_t* products, const int2* range, I* rp,
                    I* lists, counters* cnt, paths given, const counters* fold_from) {
  const paths pa = numeric_paths(given, fold_from);
  using Scan = cub::BlockScan<long long, scan_threads, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ unsigned hist[P::num_bins], bucket[P::num_bins];
  __shared__ unsigned long long gmax, gsum;
  for (int t = threadIdx.x; t < P::num_bins; t += blockDim.x) hist[t] = bucket[t] = 0;
  if (threadIdx.x == 0) gmax = gsum = 0;
  __syncthreads();
  long long carry = 0;
  for (std::int64_t tile = 0; tile <= n; tile += std::int64_t(scan_threads) * scan_items) {
    const std::int64_t first = tile + std::int64_t(threadIdx.x) * scan_items;
    long long sum = 0;
#pragma unroll
    for (int i = 0; i < scan_items; ++i) sum += first + i <= n ? (long long)rp[first + i] : 0;
    long long at, tile_total;
    Scan(scan).ExclusiveSum(sum, at, tile_total);
    at += carry;
    // Each thread rewrites only its own rows, so it reads their counts again (no registers held
    // across the classification). Every lane runs all scan_items steps (warp_append).
#pragma unroll 1
    for (int i = 0; i < scan_items; ++i) {
      const std::int64_t row = first + i;
      long long count = 0;
      if (row <= n) {
        count = (long long)rp[row];
        rp[row] = I(at);
        at += count;
      }
      int b = P::bin_empty;
      if (row < n) b = classify_row(count, products[row], range[row], pa, &gmax, &gsum, bucket);
      const unsigned local = warp_append(hist, b, row < n);
      if (row < n && b != P::bin_empty) lists[std::int64_t(b - 1) * n + local] = I(row);
    }
    carry += tile_total;
    __syncthreads();  // the scan's storage is reused by the next tile
  }
  for (int t = threadIdx.x; t < P::num_bins; t += blockDim.x) {
    cnt->bin_count[t] = hist[t];
    cnt->bucket_rows[t] = bucket[t];
  }
  if (threadIdx.x == 0) {
    cnt->nnz = (unsigned long long)carry;
    // The pointers are I: a total past its range needs the 64-bit rerun.
    cnt->overflow = carry > (long long)std::numeric_limits<I>::max();
    cnt->max_global = gmax;
    cnt->global_nnz = gsum;
  }
}

/// Partial-warp rows: `Group` threads per row, a `Table`-slot table each, `per_block` (the
/// block's threads / Group) rows per block (pwarp: 4 x 32; wide pwarp: 8 x 64). `block`: which
/// group of rows of the list (`rows`: a pointer or row_segments) this block takes; `keys`: its
/// tables in shared memory.
template <class I, int Group, int Table, class Rows>
__device__ __forceinline__ void symbolic_pwarp_rows(const csr_ref<I>& A, const csr_ref<I>& B,
                                                    const mask_ref<I>& M, const Rows& rows,
                                                    std::int64_t n, I* row_nnz, int split,
                                                    std::int64_t block, std::int64_t per_block,
                                                    int (*keys)[Table]) {
  const int local_row = threadIdx.x / Group, t = threadIdx.x % Group;
  const std::int64_t r = block * per_block + local_row;
  int* tab = keys[local_row];
  for (int s = t; s < Table; s += Group) tab[s] = empty_key;
  __syncwarp();
  int count = 0;
  if (r < n) {
    const std::int64_t row = rows[r];
    for_each_pwarp_product<Group>(A, B, M, row, t, split, [&](I, I, I, I j) {
      bool ins;
      table_insert(tab, Table - 1, int(j), ins);
      count += ins;
    });
  }
  for (int d = 1; d < Group; d <<= 1) count += __shfl_xor_sync(0xffffffffu, count, d);
  if (r < n && t == 0) row_nnz[rows[r]] = I(count);
}

template <class I, int Group, int Table>
__global__ void __launch_bounds__(P::pwarp_block)
    k_symbolic_pwarp(csr_ref<I> A, csr_ref<I> B, mask_ref<I> M, const I* rows, std::int64_t n,
                     I* row_nnz, int split) {
  __shared__ int keys[P::pwarp_block / Group][Table];
  symbolic_pwarp_rows<I, Group, Table>(A, B, M, rows, n, row_nnz, split, std::int64_t(blockIdx.x),
                                       std::int64_t(blockDim.x / Group), keys);
}

template <class I>
__device__ __forceinline__ void symbolic_row(const csr_ref<I>& A, const csr_ref<I>& B,
                                             const mask_ref<I>& M, std::int64_t row,
                                             std::int64_t products, int* keys, unsigned size,
                                             bool direct, int base, int* cnt, I* row_nnz) {
  for (unsigned s = threadIdx.x; s < size; s += blockDim.x) keys[s] = empty_key;
  if (threadIdx.x == 0) *cnt = 0;
  __syncthreads();
  const int g = lanes_per_entry(products, std::int64_t(A.rp[row + 1] - A.rp[row]));
  int local = 0;
  for_each_product(A, B, M, row, threadIdx.x, blockDim.x, g, [&](I, I, I, I j) {
    bool ins;
    table_insert(keys, size - 1, int(j), ins, direct, base);
    local += ins;
  });
  local = __reduce_add_sync(0xffffffffu, local);
  if ((threadIdx.x & 31) == 0 && local) atomicAdd(cnt, local);
  __syncthreads();
  if (threadIdx.x == 0) row_nnz[row] = I(*cnt);
  __syncthreads();
}

/// Counts a row's distinct columns in a bitmap of `words` 32-bit words over the columns
/// base .. base + 32 words - 1: a product sets its bit with atomicOr and counts when it was clear.
template <class I>
__device__ __forceinline__ void symbolic_row_bitmap(const csr_ref<I>& A, const csr_ref<I>& B,
                                                    const mask_ref<I>& M, std::int64_t row,
                                                    std::int64_t products, unsigned* bits,
                                                    unsigned words, int base, int* cnt,
                                                    I* row_nnz) {
  for (unsigned s = threadIdx.x; s < words; s += blockDim.x) bits[s] = 0u;
  if (threadIdx.x == 0) *cnt = 0;
  __syncthreads();
  const int g = lanes_per_entry(products, std::int64_t(A.rp[row + 1] - A.rp[row]));
  int local = 0;
  for_each_product(A, B, M, row, threadIdx.x, blockDim.x, g, [&](I, I, I, I j) {
    const unsigned off = unsigned(int(j) - base), bit = 1u << (off & 31u);
    local += (atomicOr(&bits[off >> 5], bit) & bit) == 0u;
  });
  local = __reduce_add_sync(0xffffffffu, local);
  if ((threadIdx.x & 31) == 0 && local) atomicAdd(cnt, local);
  __syncthreads();
  if (threadIdx.x == 0) row_nnz[row] = I(*cnt);
}

/// The rows of one block-bin launch, block x taking row x: the bin's own list and, for block bin 0
/// under paths::wide_alone, the wide pwarp bins' lists behind it, read where k_analyze wrote them
/// (fold_wide_rows).
template <class I>
struct row_segments {
  const I* list[3] = {};
  std::int64_t end[3] = {};  ///< rows before the end of each segment
  __host__ __device__ static row_segments one(const I* rows, std::int64_t n) {
    row_segments r;
    r.list[0] = r.list[1] = r.list[2] = rows;
    r.end[0] = r.end[1] = r.end[2] = n;
    return r;
  }
  __device__ std::int64_t operator[](std::int64_t x) const {
    if (x < end[0]) return std::int64_t(list[0][x]);
    if (x < end[1]) return std::int64_t(list[1][x - end[0]]);
    return std::int64_t(list[2][x - end[1]]);
  }
};

/// One row of a block bin with a table of `table_size` keys at `keys` in shared memory.
template <class I>
__device__ __forceinline__ void symbolic_block_row(const csr_ref<I>& A, const csr_ref<I>& B,
                                                   const mask_ref<I>& M, std::int64_t row,
                                                   const std::int64_t* products, const int2* range,
                                                   unsigned table_size, int* keys, int* cnt,
                                                   I* row_nnz, bool bitmap) {
  // Direct addressing when the table covers the row's column span (then only span slots are used).
  const int2 rg = range[row];
  const std::int64_t span = std::int64_t(rg.y) - rg.x + 1;
  const bool direct = span <= std::int64_t(table_size);
  if (!direct && bitmap && span <= 32 * std::int64_t(table_size)) {
    symbolic_row_bitmap(A, B, M, row, products[row], reinterpret_cast<unsigned*>(keys),
                        unsigned((span + 31) / 32), rg.x, cnt, row_nnz);
    return;
  }
  const unsigned size = direct ? unsigned(span) : table_size;
  symbolic_row(A, B, M, row, products[row], keys, size, direct, rg.x, cnt, row_nnz);
}

/// One block per row of `rows` (the synced launch: a block per row, `count` null), or with
/// `count` (the bin's row count on the device, sync_free_plan) a fixed grid walking rows
/// blockIdx.x, + gridDim.x, ... below *count: a block of an empty bin exits at once.
template <class I>
__global__ void k_symbolic_block(csr_ref<I> A, csr_ref<I> B, mask_ref<I> M, row_segments<I> rows,
                                 const std::int64_t* products, const int2* range,
                                 unsigned table_size, I* row_nnz, bool bitmap,
                                 const unsigned long long* count) {
  extern __shared__ int smem_keys[];
  __shared__ int cnt;
  if (!count) {
    symbolic_block_row(A, B, M, rows[blockIdx.x], products, range, table_size, smem_keys, &cnt,
                       row_nnz, bitmap);
    return;
  }
  const std::int64_t m = std::int64_t(*count);
  for (std::int64_t x = blockIdx.x; x < m; x += gridDim.x) {
    symbolic_block_row(A, B, M, rows[x], products, range, table_size, smem_keys, &cnt, row_nnz,
                       bitmap);
    __syncthreads();  // the next row reuses the table and cnt (the bitmap path ends unsynced)
  }
}

/// Block bin 0's rows for one launch: its own list, and under paths::wide_alone with a block row
/// present the wide pwarp bins' lists behind it (fold_wide_rows on the host, k_symbolic_small on
/// the device). `count`: rows per bin (bin_table::count, counters::bin_count).
template <class I, class C>
__host__ __device__ row_segments<I> block0_rows(const I* lists, std::int64_t n, const C* count,
                                                bool fold) {
  const int bins[3] = {P::bin_block0, P::bin_pwarp2, P::bin_pwarp3};
  row_segments<I> r;
  std::int64_t end = 0;
  for (int i = 0; i < 3; ++i) {
    r.list[i] = lists + std::int64_t(bins[i] - 1) * n;
    end += i == 0 || fold ? std::int64_t(count[bins[i]]) : 0;
    r.end[i] = end;
  }
  return r;
}

/// The shared memory of k_symbolic_small: the table of block bin small_block_bins - 1, which also
/// holds a block's partial-warp tables (Threads / Group rows x Table: 2048 keys at 256 threads,
/// 4096 at 512; block bin 0's warps: 4096 / 8192).
constexpr int small_table = P::symbolic_table(P::small_block_bins - 1);
/// k_symbolic_small's wide block (policy::sync_free_threads).
constexpr int small_wide_threads = 2 * P::pwarp_block;
static_assert(P::small_block_bins <= P::num_block_bins - 1 && small_table * 4 <= 48 * 1024,
              "k_symbolic_small's table is static shared memory and leaves the last bin out");
static_assert(small_wide_threads / P::pwarp_group * P::pwarp_table <= small_table &&
                  small_wide_threads / 32 * P::symbolic_table(0) <= small_table &&
                  P::max_products(0) <= P::symbolic_table(0) &&
                  small_wide_threads / P::pwarp2_group * P::pwarp2_table <= small_table &&
                  small_wide_threads / P::pwarp3_group * P::pwarp3_table <= small_table,
              "k_symbolic_small's table holds a block's partial-warp tables");

/// Item `x` of k_symbolic_small (false: past the last). Items, largest rows first: one per row of
/// block bins paths::sync_free_bins - 1 .. 1 (at most small_block_bins - 1); one per 8 rows of
/// block bin 0 (with the folded wide rows: at most 512 products each), a warp per row with a
/// 512-slot hash table and the B rows of short A rows spread over lanes (pwarp_split mode 1), which
/// keeps as many rows in flight as k_symbolic_block's 64-thread blocks where a 256-thread block per
/// row would cut them by 4 (bayer10: 5.7K such rows); then one per group of Threads / Group
/// rows of the pwarp3, pwarp2 (unless folded) and pwarp bins (the pwarp bin in its own shape
/// whatever paths::pwarp_spread_rows: its items share the persistent grid rather than leave SMs
/// idle, and a fourth pwarp path cost the 64-bit kernel 7 registers and spills under ptxas).
/// Uniform over the block (x and the counts are). Threads: the block.
template <class I, int Threads>
__device__ bool symbolic_small_item(std::int64_t x, const csr_ref<I>& A, const csr_ref<I>& B,
                                    const mask_ref<I>& M, const I* lists, std::int64_t n,
                                    const unsigned long long* count, bool fold,
                                    const std::int64_t* products, const int2* range, int* keys,
                                    int* cnt, I* row_nnz, const paths& pa) {
  auto list = [&](int bin) { return lists + std::int64_t(bin - 1) * n; };
  for (int b = pa.sync_free_bins - 1; b >= 1; --b) {
    const int bin = P::bin_block0 + b;
    const std::int64_t m = std::int64_t(count[bin]);
    if (x < m) {
      symbolic_block_row(A, B, M, std::int64_t(list(bin)[x]), products, range,
                         unsigned(P::symbolic_table(b)), keys, cnt, row_nnz, pa.bitmap);
      return true;
    }
    x -= m;
  }
  // Rows of `rows_in` (m of them), Threads / G per item, with G-thread groups and T-slot
  // tables; true when item x was one of them.
  auto pwarp = [&](auto group, auto table, const auto& rows_in, std::int64_t m, int split) {
    constexpr int G = decltype(group)::value, T = decltype(table)::value;
    constexpr std::int64_t per = Threads / G;
    const std::int64_t items = (m + per - 1) / per;
    if (x < items)
      symbolic_pwarp_rows<I, G, T>(A, B, M, rows_in, m, row_nnz, split, x, per,
                                   reinterpret_cast<int(*)[T]>(keys));
    x -= items;
    return x < 0;
  };
  using std::integral_constant;
  const row_segments<I> bin0 = block0_rows(lists, n, count, fold);
  if (pwarp(integral_constant<int, 32>{}, integral_constant<int, P::symbolic_table(0)>{}, bin0,
            bin0.end[2], 1))
    return true;
  auto bin_rows = [&](auto group, auto table, int bin) {
    return pwarp(group, table, list(bin), std::int64_t(count[bin]), pa.pwarp_split);
  };
  if (!fold && bin_rows(integral_constant<int, P::pwarp3_group>{},
                        integral_constant<int, P::pwarp3_table>{}, P::bin_pwarp3))
    return true;
  if (!fold && bin_rows(integral_constant<int, P::pwarp2_group>{},
                        integral_constant<int, P::pwarp2_table>{}, P::bin_pwarp2))
    return true;
  return bin_rows(integral_constant<int, P::pwarp_group>{},
                  integral_constant<int, P::pwarp_table>{}, P::bin_pwarp);
}

/// The symbolic phase of a small call without the host reading k_analyze's counters
/// (paths::sync_free_rows): persistent blocks of `Threads` threads (pwarp_block, or
/// small_wide_threads: paths::sync_free_threads) walk the items of symbolic_small_item, the bins'
/// counts read from `cnt` on the device. Rows of block bins 1-4 take Threads threads instead of
/// their bin's 128-1024 (one launch, one block shape); rows of the bins from paths::sync_free_bins
/// on (at least the last block bin and the global bin) are left to the synced symbolic phase
/// (sync_free_plan), or with paths::sync_free_big_grid all but those two to grid-stride
/// k_symbolic_block launches after it (launch_sync_free_block_bins).
template <class I, int Threads>
__global__ void __launch_bounds__(Threads)
    k_symbolic_small(csr_ref<I> A, csr_ref<I> B, mask_ref<I> M, const I* lists, std::int64_t n,
                     const counters* cnt, const std::int64_t* products, const int2* range,
                     I* row_nnz, paths pa) {
  __shared__ int keys[small_table];
  __shared__ int rc;
  const unsigned long long* count = cnt->bin_count;
  const bool fold = pa.wide_alone && pa.wide_pwarp > 0 && any_block_rows(count);
  for (std::int64_t x = blockIdx.x; symbolic_small_item<I, Threads>(
           x, A, B, M, lists, n, count, fold, products, range, keys, &rc, row_nnz, pa);
       x += gridDim.x)
    __syncthreads();  // the next item reuses the tables
}

template <class I>
__global__ void k_symbolic_global(csr_ref<I> A, csr_ref<I> B, mask_ref<I> M, const I* rows,
                                  std::int64_t n, const std::int64_t* products, int* tables,
                                  std::int64_t max_slots, I* row_nnz) {
  __shared__ int cnt;
  int* keys = tables + std::int64_t(blockIdx.x) * max_slots;
  for (std::int64_t r = blockIdx.x; r < n; r += gridDim.x) {
    const std::int64_t row = rows[r];
    const std::int64_t cap = products[row] < B.ncols ? products[row] : B.ncols;
    const bool direct = B.ncols <= max_slots;
    const std::int64_t size =
        direct ? B.ncols : std::min<std::int64_t>(next_pow2(2 * cap), max_slots);
    symbolic_row(A, B, M, row, products[row], keys, unsigned(size), direct, 0, &cnt, row_nnz);
  }
}

/// `count` counters from `c` to the host (synchronises ctx's stream). `lean`: through the pinned
/// buffer of read_to_host (a pageable copy stages through the driver and costs several
/// microseconds more).
void read_counters(counters* out, const counters* c, std::size_t count, bool lean,
                   const Context& ctx) {
  static_assert(2 * sizeof(counters) <= kPinnedReadBytes, "two counters fit the pinned buffer");
  if (lean) return read_to_host(out, c, count * sizeof(counters), ctx);
  ringblas::detail::copy_bytes(out, Location::host, c, Location::device, count * sizeof(counters),
                               &ctx);
}

/// Bin b's rows are slots (b - 1) n .. (b - 1) n + count - 1 of the lists (k_analyze,
/// k_classify_numeric).
bin_table make_bins(const counters& c, std::int64_t n) {
  bin_table t;
  for (int b = 0; b < P::num_bins; ++b) {
    t.count[b] = std::int64_t(c.bin_count[b]);
    t.offset[b] = b == P::bin_empty ? 0 : std::int64_t(b - 1) * n;
  }
  return t;
}

/// "<phase> rows per bin: ..." for the phase log.
std::string bin_note(const char* phase, const bin_table& t) {
  std::string s = std::string(phase) + " rows per bin: pwarp " +
                  std::to_string(t.count[P::bin_pwarp]) + ", pwarp2 " +
                  std::to_string(t.count[P::bin_pwarp2]) + ", pwarp3 " +
                  std::to_string(t.count[P::bin_pwarp3]) + ", blocks";
  for (int b = 0; b < P::num_block_bins; ++b) s += " " + std::to_string(t.count[P::bin_block0 + b]);
  return s + ", global " + std::to_string(t.count[P::bin_global]);
}

/// paths::wide_alone: when a row of the analysis needs a block (or the global bin), block bin 0's
/// launch also takes the rows k_analyze put in the wide pwarp bins (bin 0's kernel handles any row
/// of up to 512 products): `bin0` reads their lists behind bin 0's own, `t` counts them in bin 0,
/// and the function returns true for the numeric classification to run without wide bins. The
/// call then runs as without them, but for those rows' promotion to a direct table in the
/// symbolic phase. Nothing is copied or launched: session 8 copied the lists onto bin 0's (2
/// cudaMemcpyAsync, the only work the switch added to such calls), and on an H100 matrices with
/// block rows lost 10-30 us under it (hep-th 0.166 -> 0.196 ms, G51 0.099 -> 0.114, fidapex6
/// 0.103 -> 0.122; spgemm_vs_speck_s9_h100.md).
template <class I>
bool fold_wide_rows(bin_table& t, const I* lists, std::int64_t n, row_segments<I>& bin0) {
  if (!any_block_rows(t.count)) return false;
  bin0 = block0_rows(lists, n, t.count, true);
  t.count[P::bin_block0] = bin0.end[2];
  t.count[P::bin_pwarp2] = t.count[P::bin_pwarp3] = 0;
  return true;
}

int nonempty_groups(const bin_table& t) {
  int n = 0;
  for (int b = 1; b < P::num_bins; ++b) n += t.count[b] > 0;
  return n;
}

}  // namespace

unsigned global_blocks(std::int64_t rows, std::int64_t max_slots, std::size_t slot_bytes,
                       std::size_t budget_bytes, const Context& ctx) {
  const auto& props = device_props(ctx.device);
  std::int64_t g = std::min<std::int64_t>(rows, std::int64_t(props.sm_count) * P::global_blocks_per_sm);
  const std::int64_t per_block = max_slots * std::int64_t(slot_bytes);
  g = std::min<std::int64_t>(g, std::int64_t(budget_bytes) / std::max<std::int64_t>(per_block, 1));
  return unsigned(std::max<std::int64_t>(g, 0));
}

int pwarp_launch_threads(std::int64_t m, int group, const paths& pa, const Context& ctx) {
  if (pa.pwarp_threads > 0) return pa.pwarp_threads;
  const std::int64_t want = std::int64_t(device_props(ctx.device).sm_count) * P::pwarp_min_waves;
  int threads = P::pwarp_block;
  while (threads > P::pwarp_block / 4 && threads > group &&
         std::int64_t(grid_for(std::size_t(m), std::size_t(threads / group))) < want)
    threads /= 2;
  return threads;
}

std::int64_t pwarp_spread_rows(int per_sm, const Context& ctx) {
  return per_sm > 0 ? std::int64_t(per_sm) * device_props(ctx.device).sm_count : 0;
}

void note_pwarp_launch(const char* phase, int bin, std::int64_t rows, int group, int threads) {
  if (!phase_log::on()) return;
  phase_log::note(std::string(phase) + " pwarp launch: bin " + std::to_string(bin) + ", " +
                  std::to_string(rows) + " rows, " + std::to_string(group) +
                  " threads per row, blocks of " + std::to_string(threads));
}

std::size_t resolve_budget(std::size_t budget, std::size_t need, bool global_tables) {
  if (budget != budget_unknown) return budget;
  if (need <= P::small_need && !global_tables) return P::assumed_budget;
  return device_free_bytes() / 10 * 9;
}

int phase_streams(int streams, int kernels, bool global_rows, int min_kernels) {
  const int total = kernels + int(global_rows);
  if (total < std::max(min_kernels, 2)) return 0;
  return std::min(streams, total - 1);
}

namespace {

/// The plan's `ncounters` counters, row products, row ranges and bin lists (n slots per bin):
/// one pool allocation each, or one for all with each array at a 256-byte boundary (`one`,
/// paths::one_workspace: 3 host pool calls fewer per call), then also the temporary storage of
/// cub's scan of C's row counts when the call takes it (1 more fewer: scan_classify).
template <class I>
void allocate_arrays(plan<I>& p, std::size_t n, std::size_t ncounters, const paths& pa,
                     const Context& ctx) {
  const std::size_t bytes[4] = {ncounters * sizeof(counters), n * sizeof(std::int64_t),
                                n * sizeof(int2), n * std::size_t(P::num_bins - 1) * sizeof(I)};
  auto up = [](std::size_t b) { return (b + 255) / 256 * 256; };
  unsigned char* at[4];
  if (pa.one_workspace) {
    if (n == 0 || std::int64_t(n) > pa.fused_scan_rows)  // a query on the host, no GPU work
      RINGBLAS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, p.scan_bytes, (I*)nullptr,
                                                      (I*)nullptr, n + 1, stream_of(ctx)));
    std::size_t total = up(p.scan_bytes);
    for (std::size_t b : bytes) total += up(b);
    p.store[0] = device_array<unsigned char>(total, ctx);
    at[0] = p.store[0].data();
    for (int i = 1; i < 4; ++i) at[i] = at[i - 1] + up(bytes[i - 1]);
    if (p.scan_bytes) p.scan_temp = at[3] + up(bytes[3]);
  } else {
    for (int i = 0; i < 4; ++i) {
      p.store[i] = device_array<unsigned char>(bytes[i], ctx);
      at[i] = p.store[i].data();
    }
  }
  p.cnt = reinterpret_cast<counters*>(at[0]);
  p.row_products = reinterpret_cast<std::int64_t*>(at[1]);
  p.row_range = reinterpret_cast<int2*>(at[2]);
  p.rows = reinterpret_cast<I*>(at[3]);
}

/// Zeroes the plan's counters and runs k_analyze (with `lean`, it also zeroes C's row pointers):
/// products, column ranges and the symbolic bins' lists and counts.
template <class I>
void analyze(plan<I>& p, const csr_ref<I>& A, const csr_ref<I>& B, const paths& pa, bool lean,
             const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  RINGBLAS_CUDA_TRY(cudaMemsetAsync(p.cnt, 0, (lean ? 2 : 1) * sizeof(counters), s));
  if (p.nrows > 0) {
    k_analyze<I><<<grid_for(std::size_t(p.nrows) * 32, analyze_block), analyze_block, 0, s>>>(
        A, B, p.row_products, p.row_range, p.rows, p.cnt, pa, lean ? p.row_ptr.data() : nullptr);
    RINGBLAS_CHECK_LAUNCH("k_analyze", s, ctx.debug_sync);
  } else if (lean) {
    p.row_ptr.fill_zero(ctx);
  }
}

/// The analysis' totals into p and the budget resolved; false (p.too_large) when C's bound and
/// the per-row workspace exceed it.
template <class I>
bool take_analysis(plan<I>& p, const counters& c, std::size_t budget_bytes, std::size_t entry_bytes,
                   std::size_t row_bytes) {
  p.products = std::int64_t(c.total_products);
  p.products_cap = std::int64_t(c.total_cap);
  const std::int64_t need =
      p.products_cap * std::int64_t(entry_bytes) + p.nrows * std::int64_t(row_bytes);
  const bool global_tables =
      c.bin_count[P::bin_global] > 0 || p.products > (std::int64_t(1) << 24);
  p.budget = resolve_budget(budget_bytes, std::size_t(need), global_tables);
  p.too_large = need > std::int64_t(p.budget) && p.nrows > 1;  // the caller splits the rows
  return !p.too_large;
}

/// C's row pointers from the symbolic counts (exclusive scan in place) and the numeric bins'
/// lists and counters (`cnt2`): k_scan_classify up to paths::fused_scan_rows rows, else cub's
/// scan and k_classify_numeric. `fold_from`: see numeric_paths.
template <class I>
void scan_classify(plan<I>& p, counters* cnt2, const paths& numeric_pa, const counters* fold_from,
                   const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const std::int64_t n = p.nrows;
  I* row_nnz = p.row_ptr.data();
  if (n > 0 && n <= numeric_pa.fused_scan_rows) {
    k_scan_classify<I><<<1, scan_threads, 0, s>>>(n, p.row_products, p.row_range, row_nnz, p.rows,
                                                  cnt2, numeric_pa, fold_from);
    RINGBLAS_CHECK_LAUNCH("k_scan_classify", s, ctx.debug_sync);
    return;
  }
  std::size_t bytes = p.scan_bytes;
  device_array<unsigned char> tmp;  // unless allocate_arrays set it aside
  if (!p.scan_temp) {
    RINGBLAS_CUDA_TRY(
        cub::DeviceScan::ExclusiveSum(nullptr, bytes, row_nnz, row_nnz, std::size_t(n) + 1, s));
    tmp = device_array<unsigned char>(bytes, ctx);
  }
  RINGBLAS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(p.scan_temp ? p.scan_temp : tmp.data(), bytes,
                                                  row_nnz, row_nnz, std::size_t(n) + 1, s));
  if (n > 0) {
    k_classify_numeric<I><<<grid_for(std::size_t(n), 256), 256, 0, s>>>(
        n, p.row_products, p.row_range, row_nnz, p.rows, cnt2, numeric_pa, fold_from);
    RINGBLAS_CHECK_LAUNCH("k_classify_numeric", s, ctx.debug_sync);
  }
}

/// The numeric classification's counters into p (p.need_wide when nnz(C) overflows I).
template <class I>
void take_numeric(plan<I>& p, const counters& c) {
  if (c.overflow) {
    p.need_wide = true;  // nnz(C) needs 64-bit row pointers: the caller reruns with them
    return;
  }
  p.nnz = std::int64_t(c.nnz);
  p.numeric_bins = make_bins(c, p.nrows);
  for (int b = 0; b < P::num_bins; ++b) p.bucket_rows[b] = std::int64_t(c.bucket_rows[b]);
  p.numeric_groups = nonempty_groups(p.numeric_bins);
  if (phase_log::on()) phase_log::note(bin_note("numeric", p.numeric_bins));
  p.global_max_nnz = std::int64_t(c.max_global);
  p.global_nnz = std::int64_t(c.global_nnz);
}

/// The plan after the host has read the analysis' counters `c` (sync 1): budget, the bins'
/// launch sizes, the symbolic kernels, the scan and classification, sync 2.
template <class I>
plan<I> synced_plan(plan<I> p, const counters& c, const csr_ref<I>& A, const csr_ref<I>& B,
                    const mask_ref<I>& M, std::size_t budget_bytes, std::size_t entry_bytes,
                    std::size_t row_bytes, const paths& pa, int streams, int min_kernels, bool lean,
                    const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const std::int64_t n = p.nrows;
  const std::size_t ncounters = lean ? 2 : 1;
  if (!take_analysis(p, c, budget_bytes, entry_bytes, row_bytes)) return p;
  const std::size_t budget = p.budget;
  bin_table sb = make_bins(c, n);
  paths numeric_pa = pa;  // the numeric classification's paths
  row_segments<I> bin0 =
      row_segments<I>::one(p.rows + sb.offset[P::bin_block0], sb.count[P::bin_block0]);
  if (pa.wide_alone && pa.wide_pwarp > 0 && fold_wide_rows(sb, p.rows, n, bin0))
    numeric_pa.wide_pwarp = 0;
  p.symbolic_groups = nonempty_groups(sb);
  if (phase_log::on()) phase_log::note(bin_note("symbolic", sb));

  if (!lean) {
    p.row_ptr = device_array<I>(std::size_t(n) + 1, ctx);
    p.row_ptr.fill_zero(ctx);
  }
  I* row_nnz = p.row_ptr.data();
  const I* sr = p.rows;
  {
    // Set once per device (an attribute of the function; each call costs a driver call).
    static std::atomic<std::uint64_t> set{0};
    const std::uint64_t bit = std::uint64_t(1) << (ctx.device & 63);
    if (!(set.load() & bit)) {
      const std::size_t max_smem =
          std::size_t(P::symbolic_table(P::num_block_bins - 1)) * sizeof(int);
      RINGBLAS_CUDA_TRY(cudaFuncSetAttribute(
          k_symbolic_block<I>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(max_smem)));
      set.fetch_or(bit);
    }
  }
  // Block bins (largest rows first, so that they start early) and the pwarp bins, each on the
  // next side stream; the global bin below stays on s (its tables are freed in order on s).
  int kernels = (sb.count[P::bin_pwarp] > 0) + (sb.count[P::bin_pwarp2] > 0) +
                (sb.count[P::bin_pwarp3] > 0);
  for (int b = 0; b < P::num_block_bins; ++b) kernels += sb.count[P::bin_block0 + b] > 0;
  const bool global_rows = sb.count[P::bin_global] > 0;
  bin_fork fork(s, ctx.device, phase_streams(streams, kernels, global_rows, min_kernels),
                !global_rows);
  for (int b = P::num_block_bins - 1; b >= 0; --b) {
    const int bin = P::bin_block0 + b;
    if (auto m = sb.count[bin]) {
      const unsigned table = unsigned(P::symbolic_table(b));
      cudaStream_t bs = fork.next();
      const row_segments<I> rows = b == 0 ? bin0 : row_segments<I>::one(sr + sb.offset[bin], m);
      k_symbolic_block<I><<<unsigned(m), P::block_threads(b), table * sizeof(int), bs>>>(
          A, B, M, rows, p.row_products, p.row_range, table, row_nnz, pa.bitmap, nullptr);
      RINGBLAS_CHECK_LAUNCH("k_symbolic_block", bs, ctx.debug_sync);
    }
  }
  // The partial-warp bins as in the numeric phase (run_pass): blocks of pwarp_launch_threads,
  // in the shapes of for_each_pwarp_launch.
  auto pwarp_launch = [&](auto group, auto table, int bin, int split) {
    constexpr int G = decltype(group)::value;
    const std::int64_t m = sb.count[bin];
    const int threads = pwarp_launch_threads(m, G, pa, ctx);
    cudaStream_t bs = fork.next();
    k_symbolic_pwarp<I, G, decltype(table)::value>
        <<<grid_for(std::size_t(m), std::size_t(threads / G)), threads, 0, bs>>>(
            A, B, M, sr + sb.offset[bin], m, row_nnz, split);
    RINGBLAS_CHECK_LAUNCH("k_symbolic_pwarp", bs, ctx.debug_sync);
    note_pwarp_launch("symbolic", bin, m, G, threads);
  };
  for_each_pwarp_launch(sb, pa, pwarp_launch);
  if (auto m = sb.count[P::bin_global]) {
    // Global rows use a direct table of ncols slots when that is no larger than the hash table
    // the largest row needs, or small anyway (at most policy::direct_global_slots).
    std::int64_t max_slots = next_pow2(2 * std::int64_t(c.max_global));
    if (B.ncols <= std::max<std::int64_t>(max_slots, P::direct_global_slots)) max_slots = B.ncols;
    const std::size_t committed = std::size_t(n) * row_bytes;
    const unsigned g = global_blocks(
        m, max_slots, sizeof(int), budget > committed ? budget - committed : 0, ctx);
    if (g == 0 && n > 1) {
      fork.join();
      p.too_large = true;  // fewer rows at a time leave room for the table
      return p;
    }
    if (g == 0)
      throw OutOfMemory("spgemm_hash: a symbolic hash table of " +
                            std::to_string(max_slots * sizeof(int)) +
                            " bytes does not fit the workspace budget of " +
                            std::to_string(budget) + " bytes",
                        std::size_t(max_slots) * sizeof(int));
    device_array<int> tables(std::size_t(g) * std::size_t(max_slots), ctx);
    k_symbolic_global<I><<<g, P::global_threads, 0, s>>>(A, B, M, sr + sb.offset[P::bin_global], m,
                                                         p.row_products, tables.data(), max_slots,
                                                         row_nnz);
    RINGBLAS_CHECK_LAUNCH("k_symbolic_global", s, ctx.debug_sync);
    if (g < m)
      p.symbolic_note = std::to_string(m) + " global rows in chunks of " + std::to_string(g);
  }
  fork.join();
  phase_log::mark("plan: symbolic launched", s);
  if (!lean) RINGBLAS_CUDA_TRY(cudaMemsetAsync(p.cnt, 0, ncounters * sizeof(counters), s));
  scan_classify(p, p.cnt + (lean ? 1 : 0), numeric_pa, nullptr, ctx);
  phase_log::mark("plan: scan+classify launched", s);
  counters cn;
  read_counters(&cn, p.cnt + (lean ? 1 : 0), 1, lean, ctx);
  phase_log::mark("plan: counters read", s);
  take_numeric(p, cn);
  return p;
}

/// k_symbolic_small<I, Threads> on s with as many persistent blocks per SM as are resident at
/// once (the occupancy of the first device that asks; 32 KiB of shared memory and 36 / 47
/// registers x 256 threads each: 6 / 5 on an H100; 32-bit indices at 512 threads: 32 registers,
/// 4), since a block that waits for a slot would start its share of the items last.
template <class I, int Threads>
void launch_symbolic_small(plan<I>& p, const csr_ref<I>& A, const csr_ref<I>& B,
                           const mask_ref<I>& M, const paths& pa, const Context& ctx) {
  static const int per_sm = [] {
    int b = 0;
    RINGBLAS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &b, k_symbolic_small<I, Threads>, Threads, 0));
    return std::max(b, 1);
  }();
  const unsigned grid = unsigned(
      std::min<std::int64_t>(p.nrows, std::int64_t(device_props(ctx.device).sm_count) * per_sm));
  cudaStream_t s = stream_of(ctx);
  k_symbolic_small<I, Threads><<<grid, Threads, 0, s>>>(
      A, B, M, p.rows, p.nrows, p.cnt, p.row_products, p.row_range, p.row_ptr.data(), pa);
  RINGBLAS_CHECK_LAUNCH("k_symbolic_small", s, ctx.debug_sync);
  if (phase_log::on())
    phase_log::note("symbolic (sync-free) k_symbolic_small: " + std::to_string(grid) +
                    " blocks of " + std::to_string(Threads));
}

/// Resident blocks per SM of k_symbolic_block for block bin b (1 .. num_block_bins - 2: tables of
/// at most 32 KiB, no attribute needed), of the first device that asks.
template <class I>
int block_bin_blocks_per_sm(int b) {
  static const auto blocks = [] {
    std::array<int, P::num_block_bins> r{};
    for (int i = 1; i < P::num_block_bins - 1; ++i) {
      RINGBLAS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &r[i], k_symbolic_block<I>, P::block_threads(i),
          std::size_t(P::symbolic_table(i)) * sizeof(int)));
      r[i] = std::max(r[i], 1);
    }
    return r;
  }();
  return blocks[b];
}

/// paths::sync_free_big_grid: block bins sync_free_bins .. num_block_bins - 2 (largest first), on
/// s after k_symbolic_small, in their own block shapes and tables, a fixed grid each walking the
/// bin's rows grid-stride with the count read on the device. Returns the first bin left to the
/// rerun with the sync.
template <class I>
int launch_sync_free_block_bins(plan<I>& p, const csr_ref<I>& A, const csr_ref<I>& B,
                                const mask_ref<I>& M, const paths& pa, const Context& ctx) {
  if (pa.sync_free_big_grid <= 0) return P::bin_block0 + pa.sync_free_bins;
  cudaStream_t s = stream_of(ctx);
  const int sms = device_props(ctx.device).sm_count;
  for (int b = P::num_block_bins - 2; b >= pa.sync_free_bins; --b) {
    const int bin = P::bin_block0 + b;
    const unsigned table = unsigned(P::symbolic_table(b));
    const unsigned grid =
        unsigned(sms * std::min(pa.sync_free_big_grid, block_bin_blocks_per_sm<I>(b)));
    // The bin's list has room for n rows; the count bounds the walk.
    const auto rows = row_segments<I>::one(p.rows + std::int64_t(bin - 1) * p.nrows, p.nrows);
    k_symbolic_block<I><<<grid, P::block_threads(b), table * sizeof(int), s>>>(
        A, B, M, rows, p.row_products, p.row_range, table, p.row_ptr.data(), pa.bitmap,
        &p.cnt->bin_count[bin]);
    RINGBLAS_CHECK_LAUNCH("k_symbolic_block (grid-stride)", s, ctx.debug_sync);
  }
  return P::bin_block0 + P::num_block_bins - 1;
}

/// The symbolic phase and the classification of a small call without a host sync between them
/// and the analysis (paths::sync_free_rows), then both counters in one read. A row that
/// k_symbolic_small and the grid-stride block bins leave out (the last block bin, the global bin)
/// makes the plan run again with the sync.
template <class I>
plan<I> sync_free_plan(plan<I> p, const csr_ref<I>& A, const csr_ref<I>& B, const mask_ref<I>& M,
                       std::size_t budget_bytes, std::size_t entry_bytes, std::size_t row_bytes,
                       const paths& pa, int streams, int min_kernels, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const std::int64_t n = p.nrows;
  // 64-bit indices keep 256 threads: at 512 their 55 registers leave 2 blocks per SM.
  bool wide = false;
  if constexpr (sizeof(I) == 4) {
    wide = pa.sync_free_threads >= small_wide_threads;
    if (wide) launch_symbolic_small<I, small_wide_threads>(p, A, B, M, pa, ctx);
  }
  if (!wide) launch_symbolic_small<I, P::pwarp_block>(p, A, B, M, pa, ctx);
  const int rerun_from = launch_sync_free_block_bins(p, A, B, M, pa, ctx);
  phase_log::mark("plan: symbolic launched (sync-free)", s);
  const bool fold = pa.wide_alone && pa.wide_pwarp > 0;
  scan_classify(p, p.cnt + 1, pa, fold ? p.cnt : nullptr, ctx);
  phase_log::mark("plan: scan+classify launched", s);
  counters c[2];
  read_counters(c, p.cnt, 2, true, ctx);
  phase_log::mark("plan: counters read", s);
  for (int b = rerun_from; b <= P::bin_global; ++b)
    if (c[0].bin_count[b]) {
      // The classification refilled the bins' lists and the scan ran over the symbolic counts:
      // the analysis again (same counts as c[0], which stands) and on as with the sync.
      analyze(p, A, B, pa, true, ctx);
      plan<I> q = synced_plan(std::move(p), c[0], A, B, M, budget_bytes, entry_bytes, row_bytes, pa,
                              streams, min_kernels, true, ctx);
      q.symbolic_note += std::string(q.symbolic_note.empty() ? "" : "; ") +
                         "symbolic phase again with the sync (a row past k_symbolic_small)";
      return q;
    }
  if (!take_analysis(p, c[0], budget_bytes, entry_bytes, row_bytes)) return p;
  bin_table sb = make_bins(c[0], n);
  row_segments<I> bin0;
  if (fold) fold_wide_rows(sb, p.rows, n, bin0);
  p.symbolic_groups = nonempty_groups(sb);
  if (phase_log::on()) phase_log::note(bin_note("symbolic (sync-free)", sb));
  take_numeric(p, c[1]);
  return p;
}

}  // namespace

template <class I>
plan<I> make_plan(const csr_ref<I>& A, const csr_ref<I>& B, const mask_ref<I>& M,
                  std::size_t budget_bytes, std::size_t entry_bytes, std::size_t row_bytes,
                  const paths& pa, int streams, int min_kernels, bool lean, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  plan<I> p;
  const std::int64_t n = A.nrows;
  p.nrows = n;
  p.ncols = B.ncols;
  // Counters of the analysis [0] and of the numeric classification [1]: one memset for both on
  // the lean path; else one array zeroed before each.
  // Row lists per bin (n slots each), filled by k_analyze for the symbolic phase and refilled by
  // k_classify_numeric for the numeric phase once the symbolic kernels are done with them.
  allocate_arrays(p, std::size_t(n), lean ? 2 : 1, pa, ctx);
  if (lean) p.row_ptr = device_array<I>(std::size_t(n) + 1, ctx);
  phase_log::mark("plan: allocated", s);
  analyze(p, A, B, pa, lean, ctx);
  phase_log::mark("plan: analyze launched", s);
  if (lean && n > 0 && n <= pa.sync_free_rows)
    return sync_free_plan(std::move(p), A, B, M, budget_bytes, entry_bytes, row_bytes, pa, streams,
                          min_kernels, ctx);
  counters c;
  read_counters(&c, p.cnt, 1, lean, ctx);
  phase_log::mark("plan: counters read", s);
  return synced_plan(std::move(p), c, A, B, M, budget_bytes, entry_bytes, row_bytes, pa, streams,
                     min_kernels, lean, ctx);
}

template plan<std::int32_t> make_plan(const csr_ref<std::int32_t>&, const csr_ref<std::int32_t>&,
                                      const mask_ref<std::int32_t>&, std::size_t, std::size_t,
                                      std::size_t, const paths&, int, int, bool,
                                      const Context&);
template plan<std::int64_t> make_plan(const csr_ref<std::int64_t>&, const csr_ref<std::int64_t>&,
                                      const mask_ref<std::int64_t>&, std::size_t, std::size_t,
                                      std::size_t, const paths&, int, int, bool,
                                      const Context&);

}  // namespace ringblas::cuda::spgemm_hash
