// cuda::transpose by TransposeMethod::partition (32-bit indices, at most 2^24 columns). It makes
// two stable counting passes instead of a radix sort with separate pack and unpack steps.
// - Pass A groups the entries by the high column bits (bucket b = col >> L). It reads the CSR
//   directly (the row of each entry comes from a binary search of the row pointers) and writes a
//   (row, col) key and the value.
// - Pass B orders each bucket by the low L bits and writes the row and the value straight into
//   the CSC. The CSC's column pointers come from pass B's counts.
// - With at most 2^10 columns, pass B runs alone on the CSR.
// Each pass has three steps:
// 1. count: a histogram of the digits of each tile of 4,096 entries, in shared memory;
// 2. an exclusive scan of the counts, laid out in output order (segment, digit, tile), so the
//    scan gives every (tile, digit) its first output position;
// 3. fill: a stable block radix sort of the tile's digits, then each entry written at its
//    digit's position plus its rank. Consecutive sorted entries go to consecutive places.
// A tile never spans two segments (pass B's segments are pass A's buckets), and a segment owns
// the same range in the input and in the output.
// Model (transpose_topk_notes.md): about 74 B per fp64 entry, against 144 for the radix8 sort.
// Blocks run roughly in tile order, so the short runs that a tile writes into each digit's range
// are completed by the neighbouring tiles while those sectors are still in L2. That reading
// comes from the design, not from a measurement.
#include <algorithm>
#include <cstdint>
#include <cub/block/block_radix_sort.cuh>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/scan_total.cuh"
#include "backend/cuda/common/transpose_partition.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda {
namespace {

constexpr int threads = 256, items = 16, tile = threads * items;
constexpr int max_digit_bits = 12;  // per pass: 24-bit columns at most

/// A pass's input: segments [lo[s], lo[s + 1]) (s < nseg), each cut into tiles of `tile` entries;
/// tile_start[s] is segment s's first tile (nseg + 1 values). lo == nullptr means one segment,
/// [0, n).
struct Segments {
  const std::int32_t* lo = nullptr;
  const std::int32_t* tile_start = nullptr;
  int nseg = 1;
  std::int32_t n = 0;
};

/// Tile `id` of a pass: its segment's first tile and tile count, its index t in the segment, and
/// its entries [begin, end). valid = false past the last tile (grids are sized by a bound).
struct TileRef {
  std::int32_t first_tile = 0, ntiles = 0, t = 0, begin = 0, end = 0;
  bool valid = false;
};

__device__ TileRef locate(const Segments& g, std::int32_t id) {
  TileRef r;
  if (!g.lo) {
    r.ntiles = (g.n + tile - 1) / tile;
    r.t = id;
    r.begin = id * tile;
    r.end = min(g.n, r.begin + tile);
    r.valid = id < r.ntiles;
    return r;
  }
  if (id >= g.tile_start[g.nseg]) return r;
  int lo = 0, hi = g.nseg;  // tile_start[lo] <= id < tile_start[hi]: lo is a non-empty segment
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (g.tile_start[mid] <= id)
      lo = mid;
    else
      hi = mid;
  }
  r.first_tile = g.tile_start[lo];
  r.ntiles = g.tile_start[lo + 1] - r.first_tile;
  r.t = id - r.first_tile;
  r.begin = g.lo[lo] + r.t * tile;
  r.end = min(g.lo[lo + 1], r.begin + tile);
  r.valid = true;
  return r;
}

/// The count (or, after the scan, the first output position) of digit d in tile r.
__device__ std::size_t slot(const TileRef& r, int digits, int d) {
  return std::size_t(r.first_tile) * digits + std::size_t(d) * r.ntiles + r.t;
}

/// Column of entry p: from the CSR's column indices, or from pass A's (row << 32 | col) keys.
template <bool FromCsr>
__device__ std::uint32_t column(const std::int32_t* ci, const std::uint64_t* keys, std::int32_t p) {
  if constexpr (FromCsr)
    return std::uint32_t(ci[p]);
  else
    return std::uint32_t(keys[p]);
}

/// The last row r in [lo, hi] with rp[r] <= p (rp[lo] <= p): the row holding entry p.
__device__ std::int32_t row_of(const std::int32_t* rp, std::int32_t lo, std::int32_t hi,
                               std::int32_t p) {
  while (lo < hi) {
    const std::int32_t mid = lo + (hi - lo + 1) / 2;
    if (rp[mid] <= p)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/// counts[slot(tile, d)] = entries of the tile whose digit (col >> shift) & (2^bits - 1) is d.
template <bool FromCsr>
__global__ void __launch_bounds__(threads)
    k_count(Segments g, const std::int32_t* ci, const std::uint64_t* keys, int shift, int bits,
            std::uint32_t* counts) {
  __shared__ std::uint32_t hist[1 << max_digit_bits];
  const TileRef r = locate(g, std::int32_t(blockIdx.x));
  if (!r.valid) return;  // uniform across the block
  const int digits = 1 << bits;
  for (int d = threadIdx.x; d < digits; d += threads) hist[d] = 0;
  __syncthreads();
  for (std::int32_t p = r.begin + std::int32_t(threadIdx.x); p < r.end; p += threads)
    atomicAdd(&hist[(column<FromCsr>(ci, keys, p) >> shift) & (digits - 1)], 1u);
  __syncthreads();
  for (int d = threadIdx.x; d < digits; d += threads) counts[slot(r, digits, d)] = hist[d];
}

/// Writes each entry of the tile at the scanned position of its digit plus its rank among the
/// tile's entries of that digit (stable: a block radix sort of the digits, the tile's order kept
/// among equal digits). ToCsc: the row into out_rows; else (row << 32 | col) into out_keys.
template <class E, bool FromCsr, bool ToCsc>
__global__ void __launch_bounds__(threads)
    k_fill(Segments g, const std::int32_t* rp, std::int32_t nrows, const std::int32_t* ci,
           const std::uint64_t* keys, const E* v, int shift, int bits, const std::uint32_t* offsets,
           std::uint64_t* out_keys, std::int32_t* out_rows, E* out_v) {
  using Sort = cub::BlockRadixSort<std::uint32_t, threads, items, std::uint16_t>;
  __shared__ union {
    typename Sort::TempStorage sort;
    std::uint16_t digit[tile];  // the sorted digits, after the sort
  } sm;
  __shared__ std::int32_t base[1 << max_digit_bits];
  __shared__ std::int32_t row_lo, row_hi;
  const TileRef r = locate(g, std::int32_t(blockIdx.x));
  if (!r.valid) return;  // uniform across the block
  const int digits = 1 << bits;
  for (int d = threadIdx.x; d < digits; d += threads)
    base[d] = std::int32_t(offsets[slot(r, digits, d)]);
  if (FromCsr && threadIdx.x == 0) {
    row_lo = row_of(rp, 0, nrows - 1, r.begin);
    row_hi = row_of(rp, row_lo, nrows - 1, r.end - 1);
  }
  std::uint32_t key[items];
  std::uint16_t idx[items];
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int local = int(threadIdx.x) * items + i;
    const std::int32_t p = r.begin + local;
    idx[i] = std::uint16_t(local);
    // Past the tile's end: digit `digits`, which sorts after every real one.
    key[i] = p < r.end ? (column<FromCsr>(ci, keys, p) >> shift) & std::uint32_t(digits - 1)
                       : std::uint32_t(digits);
  }
  Sort(sm.sort).SortBlockedToStriped(key, idx, 0, bits + 1);
  __syncthreads();  // the sort's storage now holds the sorted digits
#pragma unroll
  for (int i = 0; i < items; ++i) sm.digit[i * threads + threadIdx.x] = std::uint16_t(key[i]);
  __syncthreads();
  // base[d] -= the first sorted place of digit d, so that sorted place s goes to base[d] + s.
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int s = i * threads + int(threadIdx.x);
    if (key[i] < std::uint32_t(digits) && (s == 0 || sm.digit[s - 1] != key[i])) base[key[i]] -= s;
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < items; ++i) {
    if (key[i] >= std::uint32_t(digits)) continue;
    const int s = i * threads + int(threadIdx.x);
    const std::int32_t q = base[key[i]] + s, p = r.begin + idx[i];
    std::int32_t row;
    std::uint32_t col;
    if constexpr (FromCsr) {
      row = row_of(rp, row_lo, row_hi, p);
      col = std::uint32_t(ci[p]);
    } else {
      row = std::int32_t(keys[p] >> 32);
      col = std::uint32_t(keys[p]);
    }
    if constexpr (ToCsc)
      out_rows[q] = row;
    else
      out_keys[q] = (std::uint64_t(row) << 32) | col;
    out_v[q] = v[p];
  }
}

/// After pass A: bucket b's entries start at lo[b] (lo[nb] = n), and ntiles[b] = its tile count
/// (ntiles[nb] = 0, so that an exclusive scan makes tile_start).
__global__ void k_buckets(int nb, std::int32_t tiles_a, std::int32_t n,
                          const std::uint32_t* offsets_a, std::int32_t* lo, std::int32_t* ntiles) {
  const int b = int(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b > nb) return;
  // Pass A has one segment: slot(tile 0, digit b) = b * tiles_a.
  const std::int32_t begin = b < nb ? std::int32_t(offsets_a[std::size_t(b) * tiles_a]) : n;
  const std::int32_t end = b + 1 < nb ? std::int32_t(offsets_a[std::size_t(b + 1) * tiles_a]) : n;
  lo[b] = begin;
  ntiles[b] = b < nb ? (end - begin + tile - 1) / tile : 0;
}

/// Column pointers from pass B's scanned counts: column c = (segment c >> bits, digit c & mask)
/// starts at its slot in the segment's first tile, or at the segment's start when it is empty.
__global__ void k_column_ptr(Segments g, int bits, std::int32_t ncols, const std::uint32_t* offsets,
                             std::int32_t* cp) {
  const std::int32_t c = std::int32_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c > ncols) return;
  if (c == ncols) {
    cp[c] = g.n;
    return;
  }
  const int digits = 1 << bits, s = g.lo ? c >> bits : 0, d = c & (digits - 1);
  const std::int32_t first = g.lo ? g.tile_start[s] : 0;
  const std::int32_t ntiles = g.lo ? g.tile_start[s + 1] - first : (g.n + tile - 1) / tile;
  cp[c] = ntiles > 0 ? std::int32_t(offsets[std::size_t(first) * digits + std::size_t(d) * ntiles])
                     : g.lo[s];
}

template <class E>
Matrix transpose_partition_typed(const Matrix& a, int column_bits, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const std::int32_t n = std::int32_t(a.nnz()), nrows = std::int32_t(a.nrows()),
                     ncols = std::int32_t(a.ncols());
  // Pass B sorts the low `low` bits (10, or up to 12 when the high part would pass 12); pass A
  // the remaining high bits, if any.
  const int low = column_bits <= 10 ? column_bits : std::max(10, column_bits - max_digit_bits);
  const int high = column_bits - low;
  const auto* rp = a.row_ptr().as<std::int32_t>();
  const auto* ci = a.col_idx().as<std::int32_t>();
  const E* v = a.values().as<E>();
  Buffer t_rp(sizeof(std::int32_t) * (std::size_t(ncols) + 1), Location::device, &ctx);
  Buffer t_ci(sizeof(std::int32_t) * std::size_t(n), Location::device, &ctx);
  Buffer t_v(sizeof(E) * std::size_t(n), Location::device, &ctx);
  const std::int32_t tiles_one = (n + tile - 1) / tile;
  Segments gb;
  gb.n = n;
  device_array<std::uint64_t> keys;
  device_array<E> vals;
  device_array<std::int32_t> bucket_lo, tile_start;
  if (high > 0) {
    const Segments ga = gb;
    const int nb = 1 << high;
    device_array<std::uint32_t> counts(std::size_t(tiles_one) * nb, ctx);
    k_count<true><<<tiles_one, threads, 0, s>>>(ga, ci, nullptr, low, high, counts.data());
    RINGBLAS_CHECK_LAUNCH("k_count<csr>", s, ctx.debug_sync);
    exclusive_scan_in_place(counts.data(), counts.size(), ctx);
    keys = device_array<std::uint64_t>(std::size_t(n), ctx);
    vals = device_array<E>(std::size_t(n), ctx);
    k_fill<E, true, false><<<tiles_one, threads, 0, s>>>(
        ga, rp, nrows, ci, nullptr, v, low, high, counts.data(), keys.data(), nullptr, vals.data());
    RINGBLAS_CHECK_LAUNCH("k_fill<csr, keys>", s, ctx.debug_sync);
    bucket_lo = device_array<std::int32_t>(std::size_t(nb) + 1, ctx);
    tile_start = device_array<std::int32_t>(std::size_t(nb) + 1, ctx);
    k_buckets<<<grid_for(std::size_t(nb) + 1, threads), threads, 0, s>>>(
        nb, tiles_one, n, counts.data(), bucket_lo.data(), tile_start.data());
    RINGBLAS_CHECK_LAUNCH("k_buckets", s, ctx.debug_sync);
    exclusive_scan_in_place(tile_start.data(), tile_start.size(), ctx);
    gb.lo = bucket_lo.data();
    gb.tile_start = tile_start.data();
    gb.nseg = nb;
  }
  // Pass B's tiles: at most one partial tile per bucket beyond the full ones. Slots past the
  // real tiles are zeroed: they come after every real slot, so they change no scanned value.
  const std::int32_t tiles_b = tiles_one + (high > 0 ? (1 << high) : 0);
  const int digits = 1 << low;
  device_array<std::uint32_t> counts(std::size_t(tiles_b) * digits, ctx);
  counts.fill_zero(ctx);
  if (high > 0)
    k_count<false><<<tiles_b, threads, 0, s>>>(gb, nullptr, keys.data(), 0, low, counts.data());
  else
    k_count<true><<<tiles_b, threads, 0, s>>>(gb, ci, nullptr, 0, low, counts.data());
  RINGBLAS_CHECK_LAUNCH("k_count", s, ctx.debug_sync);
  exclusive_scan_in_place(counts.data(), counts.size(), ctx);
  if (high > 0)
    k_fill<E, false, true><<<tiles_b, threads, 0, s>>>(gb, nullptr, 0, nullptr, keys.data(),
                                                       vals.data(), 0, low, counts.data(), nullptr,
                                                       t_ci.as<std::int32_t>(), t_v.as<E>());
  else
    k_fill<E, true, true><<<tiles_b, threads, 0, s>>>(gb, rp, nrows, ci, nullptr, v, 0, low,
                                                      counts.data(), nullptr,
                                                      t_ci.as<std::int32_t>(), t_v.as<E>());
  RINGBLAS_CHECK_LAUNCH("k_fill<csc>", s, ctx.debug_sync);
  k_column_ptr<<<grid_for(std::size_t(ncols) + 1, threads), threads, 0, s>>>(
      gb, low, ncols, counts.data(), t_rp.as<std::int32_t>());
  RINGBLAS_CHECK_LAUNCH("k_column_ptr", s, ctx.debug_sync);
  return Matrix::from_buffers(a.ncols(), a.nrows(), a.type(), a.index_type(), a.nnz(),
                              std::move(t_rp), std::move(t_ci), std::move(t_v));
}

}  // namespace

Matrix transpose_partition(const Matrix& a, int column_bits, const Context& ctx) {
  if (a.index_type() != IndexType::i32 || a.nnz() == 0 || column_bits > partition_max_column_bits)
    throw InvalidValue("cuda::transpose_partition: needs 32-bit indices, entries and at most " +
                       std::to_string(partition_max_column_bits) + "-bit column indices");
  switch (type_size(a.type())) {
    case 1:
      return transpose_partition_typed<std::uint8_t>(a, column_bits, ctx);
    case 4:
      return transpose_partition_typed<std::uint32_t>(a, column_bits, ctx);
    case 8:
      return transpose_partition_typed<std::uint64_t>(a, column_bits, ctx);
    default:
      throw InvalidValue("cuda::transpose_partition: values of 1, 4 or 8 bytes");
  }
}

}  // namespace ringblas::cuda
