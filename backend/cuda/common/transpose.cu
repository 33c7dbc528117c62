// cuda::transpose: aᵀ of a device CSR, three methods (bench:
// tests/bench/bench_reduce_transpose.cu).
//
// scatter (the default): a counting-sort transpose.
//   1. column counts: one atomic per entry into aᵀ's row pointers (coalesced reads of a's
//      column indices), then an exclusive scan gives aᵀ's row pointers;
//   2. scatter: a group of lanes per row of a, rows in order, each entry placed at its column's
//      cursor (one atomic per entry) as (row, value) straight into aᵀ's arrays;
//   3. order: the atomics place a column's entries in arrival order, which is row order except
//      where rows processed at the same time meet in one column. A pass over aᵀ's entries lists
//      the columns holding a descent (a binary search in the row pointers for each descent
//      only), and a CUB segmented sort by row puts just those back in order.
//   The result is deterministic: within a column the rows are distinct, so the sorted order is
//   unique whatever order the atomics gave. Traffic: a's column indices twice, its values and
//   row pointers once, aᵀ written once and its rows read once, plus the re-sorted columns.
// bucket_sort: the column counts and scan as above, then
//   2. a scatter of each entry into its bucket of 2^w consecutive columns (w: about two thousand
//      entries per bucket at the average column length), key = (column within the bucket, row)
//      and value, at the bucket's cursor: far fewer write fronts than columns, so the scattered
//      writes combine in L2;
//   3. one block per bucket sorts its keys in registers (CUB block radix sort over the key's
//      bits only) and writes rows and values to aᵀ, coalesced. Buckets over a block's capacity
//      (hot columns) go to a CUB segmented sort of their keys. Deterministic (keys distinct).
//   Traffic: a's column indices twice, values and row pointers once, a key and a value per
//   entry written and read once, aᵀ written once.
// radix_sort: a stable CUB radix sort of the column indices, the row and a value of at most
//   4 bytes packed into the sort's payload for 32-bit indices, else a sorted permutation and
//   gathers (several passes over 8-16 bytes per entry: kept for comparison in the bench).
// Both keep a's index and value types; rows are sorted within each row of aᵀ.
#include <cstdint>
#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <string>
#include <type_traits>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/device_matrix.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda {
namespace {

constexpr int block = 256;

/// atomicAdd on a 32- or 64-bit index, returning the old value.
template <class I>
__device__ __forceinline__ I atomic_add_index(I* p, I v) {
  if constexpr (sizeof(I) == 4)
    return I(atomicAdd(reinterpret_cast<unsigned*>(p), unsigned(v)));
  else
    return I(atomicAdd(reinterpret_cast<unsigned long long*>(p), (unsigned long long)(v)));
}

/// Sort-key bits that hold every column index below ncols (at least 1).
int column_bits(Index ncols, int max_bits) {
  int end_bit = 1;
  while (end_bit < max_bits && (Index(1) << end_bit) <= ncols) ++end_bit;
  return end_bit;
}

// ---------------------------------------------------------------------------------------------
// scatter

/// counts[c] += 1 for every entry of column c (grid-stride over the entries).
template <class I>
__global__ void k_count_columns(std::size_t nnz, const I* ci, I* counts) {
  for (std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; p < nnz;
       p += std::size_t(gridDim.x) * blockDim.x)
    atomic_add_index(&counts[ci[p]], I(1));
}

/// Each entry (r, c, v) of a, G lanes per row, to aᵀ at its column's cursor: t_ci = r, t_v = v.
template <class I, class E, int G>
__global__ void k_scatter_columns(Index nrows, const I* rp, const I* ci, const E* v, I* cursor,
                                  I* t_ci, E* t_v) {
  const Index r = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / G;
  if (r >= nrows) return;
  const I e = rp[r + 1];
  for (I p = rp[r] + I(threadIdx.x % G); p < e; p += I(G)) {
    const I slot = atomic_add_index(&cursor[ci[p]], I(1));
    t_ci[slot] = I(r);
    t_v[slot] = v[p];
  }
}

/// Lists (once each) the rows of aᵀ holding a descent t_ci[p] > t_ci[p + 1] inside the row.
/// flag[c] marks a listed row; *count counts the list.
template <class I>
__global__ void k_find_unsorted_rows(std::size_t nnz, Index nrows, const I* rp, const I* ci,
                                     unsigned* flag, I* count, I* list) {
  for (std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; p + 1 < nnz;
       p += std::size_t(gridDim.x) * blockDim.x) {
    if (ci[p + 1] >= ci[p]) continue;
    // The row holding p: the largest c with rp[c] <= p (rp[nrows] = nnz > p).
    Index lo = 0, hi = nrows;
    while (lo < hi) {
      const Index mid = (lo + hi + 1) / 2;
      if (std::size_t(rp[mid]) <= p)
        lo = mid;
      else
        hi = mid - 1;
    }
    if (std::size_t(rp[lo + 1]) > p + 1 && atomicExch(&flag[lo], 1u) == 0u)
      list[atomic_add_index(count, I(1))] = I(lo);
  }
}

/// begin/end of the listed rows of aᵀ, for the segmented sort.
template <class I>
__global__ void k_list_bounds(std::size_t n, const I* list, const I* rp, I* begin, I* end) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  begin[k] = rp[list[k]];
  end[k] = rp[list[k] + 1];
}

/// Copies the listed segments [begin, end) from the sort's buffers back (a warp per segment).
template <class I, class E>
__global__ void k_copy_segments(std::size_t n, const I* begin, const I* end, const I* from_ci,
                                const E* from_v, I* to_ci, E* to_v) {
  const std::size_t k = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (k >= n) return;
  for (I p = begin[k] + I(threadIdx.x % 32); p < end[k]; p += 32) {
    to_ci[p] = from_ci[p];
    to_v[p] = from_v[p];
  }
}

/// Sorts by row the rows of aᵀ (t_rp, t_ci, t_v) that the scatter left out of order. One host
/// read: how many there are (CUB's segmented sort reads its segment groups to the host too).
template <class I, class E>
void sort_unsorted_rows(Index nrows, std::size_t nnz, const I* t_rp, I* t_ci, E* t_v,
                        const Context& ctx) {
  if (nnz < 2) return;
  cudaStream_t s = stream_of(ctx);
  device_array<unsigned> flag(std::size_t(nrows), ctx);
  device_array<I> count(1, ctx), list(std::size_t(nrows), ctx);
  flag.fill_zero(ctx);
  count.fill_zero(ctx);
  const unsigned grid = grid_for(nnz, block * 8);
  k_find_unsorted_rows<I>
      <<<grid, block, 0, s>>>(nnz, nrows, t_rp, t_ci, flag.data(), count.data(), list.data());
  RINGBLAS_CHECK_LAUNCH("k_find_unsorted_rows", s, ctx.debug_sync);
  const std::size_t n = std::size_t(count.to_host(ctx)[0]);
  if (n == 0) return;
  device_array<I> begin(n, ctx), end(n, ctx);
  k_list_bounds<I>
      <<<grid_for(n, block), block, 0, s>>>(n, list.data(), t_rp, begin.data(), end.data());
  RINGBLAS_CHECK_LAUNCH("k_list_bounds", s, ctx.debug_sync);
  // The sort ping-pongs between aᵀ's arrays and these (indexed by the same positions).
  device_array<I> alt_ci(nnz, ctx);
  device_array<E> alt_v(nnz, ctx);
  cub::DoubleBuffer<I> keys(t_ci, alt_ci.data());
  cub::DoubleBuffer<E> vals(t_v, alt_v.data());
  std::size_t bytes = 0;
  RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(
      nullptr, bytes, keys, vals, std::int64_t(nnz), std::int64_t(n), begin.data(), end.data(), s));
  device_array<unsigned char> tmp(bytes, ctx);
  RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(tmp.data(), bytes, keys, vals,
                                                        std::int64_t(nnz), std::int64_t(n),
                                                        begin.data(), end.data(), s));
  if (keys.Current() != t_ci || vals.Current() != t_v) {
    k_copy_segments<I, E><<<grid_for(n * 32, block), block, 0, s>>>(
        n, begin.data(), end.data(), keys.Current(), vals.Current(), t_ci, t_v);
    RINGBLAS_CHECK_LAUNCH("k_copy_segments", s, ctx.debug_sync);
  }
}

/// aᵀ's row pointers into rp (ncols + 1 elements): a's column counts, exclusive scan.
template <class I>
void column_counts_scanned(const Matrix& a, I* rp, const Context& ctx) {
  const std::size_t nnz = std::size_t(a.nnz()), nc = std::size_t(a.ncols());
  cudaStream_t s = stream_of(ctx);
  RINGBLAS_CUDA_TRY(cudaMemsetAsync(rp, 0, sizeof(I) * (nc + 1), s));
  if (nnz > 0) {
    k_count_columns<I><<<grid_for(nnz, block * 8), block, 0, s>>>(nnz, a.col_idx().as<I>(), rp);
    RINGBLAS_CHECK_LAUNCH("k_count_columns", s, ctx.debug_sync);
  }
  std::size_t bytes = 0;
  RINGBLAS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, rp, rp, nc + 1, s));
  device_array<unsigned char> tmp(bytes, ctx);
  RINGBLAS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(tmp.data(), bytes, rp, rp, nc + 1, s));
}

/// aᵀ by column counts, scan, scatter and the re-sort of the rows the scatter left unordered.
template <class I, class E>
Matrix transpose_scatter(const Matrix& a, const Context& ctx) {
  const std::size_t nnz = std::size_t(a.nnz()), nc = std::size_t(a.ncols());
  cudaStream_t s = stream_of(ctx);
  Buffer t_rp(sizeof(I) * (nc + 1), Location::device, &ctx);
  Buffer t_ci(sizeof(I) * nnz, Location::device, &ctx);
  Buffer t_v(sizeof(E) * nnz, Location::device, &ctx);
  I* rp = t_rp.as<I>();
  column_counts_scanned<I>(a, rp, ctx);
  if (nnz > 0) {
    device_array<I> cursor(nc, ctx);
    RINGBLAS_CUDA_TRY(
        cudaMemcpyAsync(cursor.data(), rp, sizeof(I) * nc, cudaMemcpyDeviceToDevice, s));
    const Index nr = a.nrows();
    const double avg = double(nnz) / double(nr > 0 ? nr : 1);
    const I* a_rp = a.row_ptr().as<I>();
    const I* a_ci = a.col_idx().as<I>();
    const E* a_v = a.values().as<E>();
    if (avg >= 24) {
      k_scatter_columns<I, E, 32><<<grid_for(std::size_t(nr) * 32, block), block, 0, s>>>(
          nr, a_rp, a_ci, a_v, cursor.data(), t_ci.as<I>(), t_v.as<E>());
    } else if (avg >= 6) {
      k_scatter_columns<I, E, 8><<<grid_for(std::size_t(nr) * 8, block), block, 0, s>>>(
          nr, a_rp, a_ci, a_v, cursor.data(), t_ci.as<I>(), t_v.as<E>());
    } else {
      k_scatter_columns<I, E, 2><<<grid_for(std::size_t(nr) * 2, block), block, 0, s>>>(
          nr, a_rp, a_ci, a_v, cursor.data(), t_ci.as<I>(), t_v.as<E>());
    }
    RINGBLAS_CHECK_LAUNCH("k_scatter_columns", s, ctx.debug_sync);
    sort_unsorted_rows<I, E>(a.ncols(), nnz, rp, t_ci.as<I>(), t_v.as<E>(), ctx);
  }
  return Matrix::from_buffers(a.ncols(), a.nrows(), a.type(), a.index_type(), a.nnz(),
                              std::move(t_rp), std::move(t_ci), std::move(t_v));
}

// ---------------------------------------------------------------------------------------------
// bucket_sort

/// Buckets of 2^wbits consecutive columns of a, each sorted by one block in registers. A large
/// capacity means few buckets, so that the scatter's write fronts (a partly written line of keys
/// and one of values per bucket) stay in L2: 100M entries in 1M columns make 65k buckets, 16 MB
/// of fronts. Shared memory: CUB's exchange of 4096 values, 32 KB for 8-byte values.
struct bucket_policy {
  static constexpr int threads = 512, items = 8, capacity = threads * items;
};

/// log2 of the columns per bucket: the largest power of two whose expected entry count (at the
/// average column length) is at most half a block's capacity, so that nearly every bucket fits.
int bucket_width_bits(std::size_t nnz, Index ncols) {
  const double avg = double(nnz) / double(ncols > 0 ? ncols : 1);
  int bits = 0;
  while (bits < 30 && double(Index(2) << bits) * avg <= bucket_policy::capacity / 2 &&
         (Index(1) << bits) < ncols)
    ++bits;
  return bits;
}

/// cursor[b] = where bucket b (columns b << wbits on) starts in aᵀ.
template <class I>
__global__ void k_bucket_starts(std::size_t nb, int wbits, const I* t_rp, I* cursor) {
  const std::size_t b = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b < nb) cursor[b] = t_rp[b << wbits];
}

/// Each entry (r, c, v) of a, G lanes per row, to its bucket's range of aᵀ at the bucket's cursor
/// as key = (c - first column of the bucket) << row_bits | r and value v.
template <class I, class E, class K, int G>
__global__ void k_scatter_buckets(Index nrows, const I* rp, const I* ci, const E* v, int wbits,
                                  int row_bits, I* cursor, K* key, E* val) {
  const Index r = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / G;
  if (r >= nrows) return;
  const I e = rp[r + 1];
  for (I p = rp[r] + I(threadIdx.x % G); p < e; p += I(G)) {
    const I c = ci[p], b = c >> wbits;
    const I slot = atomic_add_index(&cursor[b], I(1));
    key[slot] = (K(c - (b << wbits)) << row_bits) | K(r);
    val[slot] = v[p];
  }
}

/// One block per bucket: its entries sorted by key (column, then row) in registers and written
/// to aᵀ in place, coalesced. A bucket over the block's capacity is listed for the segmented sort.
template <class I, class E, class K>
__global__ void __launch_bounds__(bucket_policy::threads)
    k_sort_buckets(Index ncols, int wbits, int row_bits, const I* t_rp, const K* key, const E* val,
                   I* t_ci, E* t_v, I* big_count, I* big_list) {
  constexpr int T = bucket_policy::threads, R = bucket_policy::items;
  using sort_t = cub::BlockRadixSort<K, T, R, E>;
  __shared__ typename sort_t::TempStorage tmp;
  const Index c0 = Index(blockIdx.x) << wbits;
  const Index c1 = c0 + (Index(1) << wbits) < ncols ? c0 + (Index(1) << wbits) : ncols;
  const I base = t_rp[c0];
  const Index n = Index(t_rp[c1] - base);
  if (n > bucket_policy::capacity) {
    if (threadIdx.x == 0) big_list[atomic_add_index(big_count, I(1))] = I(blockIdx.x);
    return;
  }
  if (n == 0) return;
  // The input order does not matter (keys are distinct): striped loads, coalesced. Padding keys
  // have every bit set, above any real key in the sorted bits (column_bits: 2^row_bits > nrows,
  // so a real row is below 2^row_bits - 1).
  K k[R];
  E x[R];
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const Index q = Index(i) * T + threadIdx.x;
    k[i] = q < n ? key[base + I(q)] : ~K(0);
    x[i] = q < n ? val[base + I(q)] : E(0);
  }
  sort_t(tmp).SortBlockedToStriped(k, x, 0, row_bits + wbits);
  const K row_mask = (K(1) << row_bits) - 1;
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const Index q = Index(i) * T + threadIdx.x;
    if (q < n) {
      t_ci[base + I(q)] = I(k[i] & row_mask);
      t_v[base + I(q)] = x[i];
    }
  }
}

/// Rows and values of the listed segments out of the sorted keys (a block per segment).
template <class I, class E, class K>
__global__ void k_unpack_segments(const I* begin, const I* end, int row_bits, const K* key,
                                  const E* val, I* t_ci, E* t_v) {
  const K row_mask = (K(1) << row_bits) - 1;
  for (I p = begin[blockIdx.x] + I(threadIdx.x); p < end[blockIdx.x]; p += I(blockDim.x)) {
    t_ci[p] = I(key[p] & row_mask);
    t_v[p] = val[p];
  }
}

/// begin/end in aᵀ of the listed buckets of 2^wbits columns.
template <class I>
__global__ void k_bucket_bounds(std::size_t n, const I* list, const I* rp, Index ncols, int wbits,
                                I* begin, I* end) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const Index c0 = Index(list[k]) << wbits, c1 = c0 + (Index(1) << wbits);
  begin[k] = rp[c0];
  end[k] = rp[c1 < ncols ? c1 : ncols];
}

/// aᵀ by column counts and scan (as scatter), then entries bucketed by ranges of columns (few
/// enough buckets that their write fronts stay in L2) and each bucket sorted by one block.
template <class I, class E, class K>
Matrix transpose_bucket_sort(const Matrix& a, const Context& ctx) {
  const std::size_t nnz = std::size_t(a.nnz()), nc = std::size_t(a.ncols());
  cudaStream_t s = stream_of(ctx);
  Buffer t_rp(sizeof(I) * (nc + 1), Location::device, &ctx);
  Buffer t_ci(sizeof(I) * nnz, Location::device, &ctx);
  Buffer t_v(sizeof(E) * nnz, Location::device, &ctx);
  I* rp = t_rp.as<I>();
  column_counts_scanned<I>(a, rp, ctx);
  if (nnz > 0) {
    const int wbits = bucket_width_bits(nnz, a.ncols());
    const int row_bits = column_bits(a.nrows(), 8 * int(sizeof(K)) - wbits);
    const std::size_t nb = ((nc - 1) >> wbits) + 1;
    device_array<I> cursor(nb, ctx), big(1, ctx), big_list(nb, ctx);
    k_bucket_starts<I><<<grid_for(nb, block), block, 0, s>>>(nb, wbits, rp, cursor.data());
    RINGBLAS_CHECK_LAUNCH("k_bucket_starts", s, ctx.debug_sync);
    big.fill_zero(ctx);
    device_array<K> key(nnz, ctx);
    device_array<E> val(nnz, ctx);
    const Index nr = a.nrows();
    const double avg = double(nnz) / double(nr > 0 ? nr : 1);
    const I* a_rp = a.row_ptr().as<I>();
    const I* a_ci = a.col_idx().as<I>();
    const E* a_v = a.values().as<E>();
    if (avg >= 24)
      k_scatter_buckets<I, E, K, 32><<<grid_for(std::size_t(nr) * 32, block), block, 0, s>>>(
          nr, a_rp, a_ci, a_v, wbits, row_bits, cursor.data(), key.data(), val.data());
    else if (avg >= 6)
      k_scatter_buckets<I, E, K, 8><<<grid_for(std::size_t(nr) * 8, block), block, 0, s>>>(
          nr, a_rp, a_ci, a_v, wbits, row_bits, cursor.data(), key.data(), val.data());
    else
      k_scatter_buckets<I, E, K, 2><<<grid_for(std::size_t(nr) * 2, block), block, 0, s>>>(
          nr, a_rp, a_ci, a_v, wbits, row_bits, cursor.data(), key.data(), val.data());
    RINGBLAS_CHECK_LAUNCH("k_scatter_buckets", s, ctx.debug_sync);
    k_sort_buckets<I, E, K><<<unsigned(nb), bucket_policy::threads, 0, s>>>(
        a.ncols(), wbits, row_bits, rp, key.data(), val.data(), t_ci.as<I>(), t_v.as<E>(),
        big.data(), big_list.data());
    RINGBLAS_CHECK_LAUNCH("k_sort_buckets", s, ctx.debug_sync);
    // Buckets over a block's capacity (hot columns): a CUB segmented sort of their keys.
    const std::size_t n = std::size_t(big.to_host(ctx)[0]);
    if (n > 0) {
      device_array<I> begin(n, ctx), end(n, ctx);
      k_bucket_bounds<I><<<grid_for(n, block), block, 0, s>>>(n, big_list.data(), rp, a.ncols(),
                                                              wbits, begin.data(), end.data());
      RINGBLAS_CHECK_LAUNCH("k_bucket_bounds", s, ctx.debug_sync);
      device_array<K> alt_key(nnz, ctx);
      device_array<E> alt_val(nnz, ctx);
      cub::DoubleBuffer<K> keys(key.data(), alt_key.data());
      cub::DoubleBuffer<E> vals(val.data(), alt_val.data());
      std::size_t bytes = 0;
      RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(nullptr, bytes, keys, vals,
                                                            std::int64_t(nnz), std::int64_t(n),
                                                            begin.data(), end.data(), s));
      device_array<unsigned char> tmp(bytes, ctx);
      RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(tmp.data(), bytes, keys, vals,
                                                            std::int64_t(nnz), std::int64_t(n),
                                                            begin.data(), end.data(), s));
      k_unpack_segments<I, E, K><<<unsigned(n), block, 0, s>>>(begin.data(), end.data(), row_bits,
                                                               keys.Current(), vals.Current(),
                                                               t_ci.as<I>(), t_v.as<E>());
      RINGBLAS_CHECK_LAUNCH("k_unpack_segments", s, ctx.debug_sync);
    }
  }
  return Matrix::from_buffers(a.ncols(), a.nrows(), a.type(), a.index_type(), a.nnz(),
                              std::move(t_rp), std::move(t_ci), std::move(t_v));
}

// ---------------------------------------------------------------------------------------------
// radix_sort

template <class I>
__global__ void k_iota(std::size_t n, I* out) {
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = I(i);
}

/// rows[p] = the row of entry p (one warp per row).
template <class I>
__global__ void k_expand_rows(Index nrows, const I* rp, I* rows) {
  Index r = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (r >= nrows) return;
  for (I p = rp[r] + lane; p < rp[r + 1]; p += 32) rows[p] = I(r);
}

/// out[q] = in[perm[q]] for elements of type E.
template <class E, class I>
__global__ void k_gather(std::size_t n, const I* perm, const E* in, E* out) {
  std::size_t q = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q < n) out[q] = in[perm[q]];
}

/// rp[c] = number of sorted keys < c, for c in [0, ncols].
template <class I>
__global__ void k_lower_bounds(Index ncols, std::size_t nnz, const I* keys, I* rp) {
  Index c = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c > ncols) return;
  std::size_t lo = 0, hi = nnz;
  while (lo < hi) {
    std::size_t mid = (lo + hi) / 2;
    if (Index(keys[mid]) < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  rp[c] = I(lo);
}

/// packed[p] = (row of p) << 32 | the bits of value p (E: 1 or 4 bytes), one warp per row.
template <class E>
__global__ void k_pack_row_value(Index nrows, const std::int32_t* rp, const E* v,
                                 std::uint64_t* packed) {
  const Index r = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (r >= nrows) return;
  for (std::int32_t p = rp[r] + std::int32_t(threadIdx.x % 32); p < rp[r + 1]; p += 32)
    packed[p] = (std::uint64_t(r) << 32) | std::uint64_t(v[p]);
}

/// Row index and value bits back out of the sorted packed pairs.
template <class E>
__global__ void k_unpack_row_value(std::size_t n, const std::uint64_t* packed, std::int32_t* rows,
                                   E* v) {
  const std::size_t q = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= n) return;
  const std::uint64_t x = packed[q];
  rows[q] = std::int32_t(x >> 32);
  v[q] = E(x & 0xffffffffu);
}

/// aᵀ for 32-bit indices and values of at most 4 bytes: the row and the value travel together
/// as one 64-bit payload of a stable radix sort by column, so no gather follows the sort.
template <class E>
Matrix transpose_packed(const Matrix& a, const Context& ctx) {
  const std::size_t nnz = std::size_t(a.nnz());
  cudaStream_t s = stream_of(ctx);
  device_array<std::uint64_t> packed(nnz, ctx), sorted(nnz, ctx);
  device_array<std::int32_t> keys(nnz, ctx);
  Buffer t_rp(sizeof(std::int32_t) * std::size_t(a.ncols() + 1), Location::device, &ctx);
  Buffer t_ci(sizeof(std::int32_t) * nnz, Location::device, &ctx);
  Buffer t_v(sizeof(E) * nnz, Location::device, &ctx);
  if (nnz > 0) {
    k_pack_row_value<E><<<grid_for(std::size_t(a.nrows()) * 32, block), block, 0, s>>>(
        a.nrows(), a.row_ptr().as<std::int32_t>(), a.values().as<E>(), packed.data());
    RINGBLAS_CHECK_LAUNCH("k_pack_row_value", s, ctx.debug_sync);
    const int end_bit = column_bits(a.ncols(), 32);
    const auto* kin = reinterpret_cast<const std::uint32_t*>(a.col_idx().as<std::int32_t>());
    auto* kout = reinterpret_cast<std::uint32_t*>(keys.data());
    std::size_t bytes = 0;
    RINGBLAS_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, kin, kout, packed.data(),
                                                      sorted.data(), nnz, 0, end_bit, s));
    device_array<unsigned char> tmp(bytes, ctx);
    RINGBLAS_CUDA_TRY(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, kin, kout, packed.data(),
                                                      sorted.data(), nnz, 0, end_bit, s));
    k_unpack_row_value<E><<<grid_for(nnz, block), block, 0, s>>>(
        nnz, sorted.data(), t_ci.as<std::int32_t>(), t_v.as<E>());
    RINGBLAS_CHECK_LAUNCH("k_unpack_row_value", s, ctx.debug_sync);
  }
  const std::size_t nb = std::size_t(a.ncols()) + 1;
  k_lower_bounds<std::int32_t>
      <<<grid_for(nb, block), block, 0, s>>>(a.ncols(), nnz, keys.data(), t_rp.as<std::int32_t>());
  RINGBLAS_CHECK_LAUNCH("k_lower_bounds", s, ctx.debug_sync);
  return Matrix::from_buffers(a.ncols(), a.nrows(), a.type(), a.index_type(), a.nnz(),
                              std::move(t_rp), std::move(t_ci), std::move(t_v));
}

template <class I, class E>
Matrix transpose_radix_sort(const Matrix& a, const Context& ctx) {
  using U = std::make_unsigned_t<I>;
  if constexpr (std::is_same_v<I, std::int32_t> && sizeof(E) <= 4)
    return transpose_packed<E>(a, ctx);
  const std::size_t nnz = std::size_t(a.nnz());
  cudaStream_t s = stream_of(ctx);
  device_array<I> rows(nnz, ctx), perm_in(nnz, ctx), perm(nnz, ctx), keys(nnz, ctx);
  Buffer t_rp(sizeof(I) * std::size_t(a.ncols() + 1), Location::device, &ctx);
  Buffer t_ci(sizeof(I) * nnz, Location::device, &ctx);
  Buffer t_v(sizeof(E) * nnz, Location::device, &ctx);
  if (nnz > 0) {
    k_expand_rows<I><<<grid_for(std::size_t(a.nrows()) * 32, block), block, 0, s>>>(
        a.nrows(), a.row_ptr().as<I>(), rows.data());
    RINGBLAS_CHECK_LAUNCH("k_expand_rows", s, ctx.debug_sync);
    k_iota<I><<<grid_for(nnz, block), block, 0, s>>>(nnz, perm_in.data());
    RINGBLAS_CHECK_LAUNCH("k_iota", s, ctx.debug_sync);
    const int end_bit = column_bits(a.ncols(), int(sizeof(I) * 8));
    std::size_t bytes = 0;
    const U* kin = reinterpret_cast<const U*>(a.col_idx().as<I>());
    U* kout = reinterpret_cast<U*>(keys.data());
    RINGBLAS_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, kin, kout, perm_in.data(),
                                                      perm.data(), nnz, 0, end_bit, s));
    device_array<unsigned char> tmp(bytes, ctx);
    RINGBLAS_CUDA_TRY(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, kin, kout, perm_in.data(),
                                                      perm.data(), nnz, 0, end_bit, s));
    k_gather<I, I>
        <<<grid_for(nnz, block), block, 0, s>>>(nnz, perm.data(), rows.data(), t_ci.as<I>());
    RINGBLAS_CHECK_LAUNCH("k_gather", s, ctx.debug_sync);
    k_gather<E, I>
        <<<grid_for(nnz, block), block, 0, s>>>(nnz, perm.data(), a.values().as<E>(), t_v.as<E>());
    RINGBLAS_CHECK_LAUNCH("k_gather", s, ctx.debug_sync);
  }
  const std::size_t nb = std::size_t(a.ncols()) + 1;
  k_lower_bounds<I>
      <<<grid_for(nb, block), block, 0, s>>>(a.ncols(), nnz, keys.data(), t_rp.as<I>());
  RINGBLAS_CHECK_LAUNCH("k_lower_bounds", s, ctx.debug_sync);
  return Matrix::from_buffers(a.ncols(), a.nrows(), a.type(), a.index_type(), a.nnz(),
                              std::move(t_rp), std::move(t_ci), std::move(t_v));
}

/// Calls f.template operator()<I, E>() for a's index type and the unsigned type of its values'
/// width (values move as bits).
template <class F>
Matrix visit_index_and_width(const Matrix& a, F&& f) {
  return visit_index_type(a.index_type(), [&](auto i) {
    using I = decltype(i);
    switch (type_size(a.type())) {
      case 1:
        return f.template operator()<I, std::uint8_t>();
      case 4:
        return f.template operator()<I, std::uint32_t>();
      default:
        return f.template operator()<I, std::uint64_t>();
    }
  });
}

/// The method transpose_method::automatic runs. The radix sort until the GPU round measures the
/// others (bench_reduce_transpose).
constexpr transpose_method default_method = transpose_method::radix_sort;

}  // namespace

Matrix transpose(const Matrix& a, const Context& ctx, transpose_method method) {
  if (a.location() != Location::device)
    throw InvalidValue("cuda::transpose: the matrix must be on the device");
  if (method == transpose_method::automatic) method = default_method;
  return visit_index_and_width(a, [&]<class I, class E>() {
    switch (method) {
      case transpose_method::bucket_sort:
        // 32-bit indices only (fewer instantiations); the key holds the column within the
        // bucket and the row, in 32 bits when they fit.
        if constexpr (std::is_same_v<I, std::int32_t>) {
          const int bits =
              bucket_width_bits(std::size_t(a.nnz()), a.ncols()) + column_bits(a.nrows(), 64);
          if (bits <= 32) return transpose_bucket_sort<I, E, std::uint32_t>(a, ctx);
          return transpose_bucket_sort<I, E, std::uint64_t>(a, ctx);
        }
        return transpose_scatter<I, E>(a, ctx);
      case transpose_method::scatter:
        return transpose_scatter<I, E>(a, ctx);
      default:
        return transpose_radix_sort<I, E>(a, ctx);
    }
  });
}

}  // namespace ringblas::cuda
