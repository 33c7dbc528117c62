// select row_topk on the device: the k largest entries of each row, ties to the smaller column.
//
// Order: an order-preserving unsigned key per entry (agent.cuh key_of: NaN lowest, -0 = +0),
// then the column. Output row r holds min(len_r, k) entries, so T's row pointers are a scan of
// those sizes (no pass over the entries, one host read of nnz(T)); every row is then written
// straight into T, in column order:
// - a row of at most k entries is copied (a group of lanes per row, coalesced);
// - a short row (<= Policy::topk_short_row entries) is held in registers by a group of G lanes
//   (G = 8 or 32 from the average row length, Policy::topk_group_min_avg), which finds the k-th
//   largest key bit by bit (common/group_select.cuh) and writes the keys above it and the first
//   equal ones by warp ballots;
// - a long row (rare: read once on the host as a count from the size pass) goes through a stable
//   segmented sort (CUB DeviceSegmentedSort::StableSortPairsDescending over the long rows only:
//   other rows are passed as empty segments) that flags its first k positions, and a warp per
//   long row compacts the flagged entries into T.
// col_topk is row_topk between two transposes (entry.cpp). Deterministic. No shared memory.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_segmented_sort.cuh>
#include <string>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/group_select.cuh"
#include "backend/cuda/elementwise/agent.cuh"
#include "backend/cuda/elementwise/elementwise.hpp"
#include "backend/cuda/elementwise/launch.cuh"
#include "ringblas/error.hpp"

namespace ringblas::cuda::elementwise {
namespace {

/// A row that needs the sort: more entries than k and than the register path holds.
template <class I>
__host__ __device__ __forceinline__ bool needs_sort(I len, Index k) {
  return Index(len) > k && len > I(Policy::topk_short_row);
}

/// sizes[r] = min(len_r, k) for r < n; *sorted_rows counts the rows that need the sort.
template <class I>
__global__ void k_topk_sizes(std::size_t nrows, Index k, const I* rp, I* sizes, I* sorted_rows) {
  const std::size_t r = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const I len = rp[r + 1] - rp[r];
  sizes[r] = Index(len) < k ? len : I(k);
  // I is 32 or 64 bits: the count (< 2^31 rows) lives in its low word, little-endian.
  if (needs_sort(len, k)) atomicAdd(reinterpret_cast<unsigned*>(sorted_rows), 1u);
}

/// A group of G lanes per row writes the row's top k into T at out_rp[r] (rows that need the
/// sort are left to k_topk_long_write). Item t of a lane is the row's entry t * G + lane.
template <class V, class I, int G>
__global__ void __launch_bounds__(Policy::block)
    k_topk_short(std::size_t nrows, Index k, const I* rp, const I* ci, const V* x, const I* out_rp,
                 I* o_ci, V* o_v) {
  using K = typename order_key<V>::type;
  constexpr int R = Policy::topk_short_row / G;
  static_assert(R <= 32, "validity is one bit per item");
  const std::size_t r = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / G;
  if (r >= nrows) return;  // whole groups leave together
  const int lane = int(threadIdx.x % G);
  const I b = rp[r], e = rp[r + 1], len = e - b, o = out_rp[r];
  if (Index(len) <= k) {
    for (I p = b + I(lane); p < e; p += I(G)) {
      o_ci[o + (p - b)] = ci[p];
      o_v[o + (p - b)] = x[p];
    }
    return;
  }
  if (needs_sort(len, k)) return;
  const int items = int(len);
  K key[R];
  unsigned valid = 0;
#pragma unroll
  for (int t = 0; t < R; ++t) {
    key[t] = 0;
    const int q = t * G + lane;
    if (t * G < items && q < items) {
      key[t] = key_of(x[b + I(q)]);
      valid |= 1u << t;
    }
  }
  unsigned take_equal = 0;
  const K kth = group_kth_largest<G, R>(key, valid, unsigned(k), items, take_equal);
  const unsigned gm = group_mask<G>(), below = lanes_below_me() & gm;
  unsigned equal_seen = 0, written = 0;
#pragma unroll
  for (int t = 0; t < R; ++t) {
    if (t * G >= items) break;
    const bool v = (valid >> t) & 1u;
    const bool eq = v && key[t] == kth;
    const unsigned eq_mask = __ballot_sync(gm, eq) & gm;
    const bool keep =
        (v && key[t] > kth) || (eq && equal_seen + unsigned(__popc(eq_mask & below)) < take_equal);
    const unsigned keep_mask = __ballot_sync(gm, keep) & gm;
    if (keep) {
      const I at = o + I(written + unsigned(__popc(keep_mask & below)));
      const I p = b + I(t * G + lane);
      o_ci[at] = ci[p];
      o_v[at] = x[p];
    }
    written += unsigned(__popc(keep_mask));
    equal_seen += unsigned(__popc(eq_mask));
  }
}

/// Keys and positions of the entries of the rows that need the sort (a warp per row).
template <class V, class I, class K>
__global__ void k_topk_long_keys(std::size_t nrows, Index k, const I* rp, const V* x, K* keys,
                                 I* positions) {
  const std::size_t r = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (r >= nrows) return;
  const I b = rp[r], e = rp[r + 1];
  if (!needs_sort(e - b, k)) return;
  for (I p = b + I(threadIdx.x % 32); p < e; p += 32) {
    keys[p] = key_of(x[p]);
    positions[p] = p;
  }
}

/// Segment ends for the sort: a sorted row's end, or its begin (an empty segment) for the others.
template <class I>
struct sorted_row_end {
  const I* rp;
  Index k;
  __host__ __device__ I operator()(I r) const {
    return needs_sort(rp[r + 1] - rp[r], k) ? rp[r + 1] : rp[r];
  }
};

/// flags[p] = 1 for the first k sorted positions of each row that needs the sort.
template <class I>
__global__ void k_topk_long_flags(std::size_t nrows, Index k, const I* rp, const I* sorted,
                                  unsigned char* flags) {
  const std::size_t r = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const I b = rp[r];
  if (!needs_sort(rp[r + 1] - b, k)) return;
  for (I q = b; q < b + I(k); ++q) flags[sorted[q]] = 1;
}

/// A warp per row that needs the sort: its flagged entries, in column order, into T at out_rp[r].
template <class V, class I>
__global__ void k_topk_long_write(std::size_t nrows, Index k, const I* rp, const I* ci, const V* x,
                                  const unsigned char* flags, const I* out_rp, I* o_ci, V* o_v) {
  const std::size_t r = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (r >= nrows) return;
  const I b = rp[r], e = rp[r + 1];
  if (!needs_sort(e - b, k)) return;
  const unsigned below = lanes_below_me();
  I o = out_rp[r];
  for (I s = b; s < e; s += 32) {
    const I p = s + I(threadIdx.x % 32);
    const bool keep = p < e && flags[p] != 0;
    const unsigned m = __ballot_sync(0xffffffffu, keep);
    if (keep) {
      const I at = o + I(__popc(m & below));
      o_ci[at] = ci[p];
      o_v[at] = x[p];
    }
    o += I(__popc(m));
  }
}

template <class V, class I>
void topk_long_rows(const Matrix& A, Index k, const I* out_rp, I* o_ci, V* o_v,
                    const Context& ctx) {
  using K = typename order_key<V>::type;
  cudaStream_t s = stream_of(ctx);
  const std::size_t nnz = std::size_t(A.nnz()), n = std::size_t(A.nrows());
  const I *rp = A.row_ptr().as<I>(), *ci = A.col_idx().as<I>();
  const V* x = A.values().as<V>();
  device_array<K> keys(nnz, ctx), keys_out(nnz, ctx);
  device_array<I> positions(nnz, ctx), sorted(nnz, ctx);
  device_array<unsigned char> flags(nnz, ctx);
  flags.fill_zero(ctx);
  const unsigned warps = blocks_for(n * 32);
  k_topk_long_keys<V, I, K>
      <<<warps, Policy::block, 0, s>>>(n, k, rp, x, keys.data(), positions.data());
  RINGBLAS_CHECK_LAUNCH("k_topk_long_keys", s, ctx.debug_sync);
  const auto ends =
      thrust::make_transform_iterator(thrust::counting_iterator<I>(0), sorted_row_end<I>{rp, k});
  std::size_t bytes = 0;
  RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::StableSortPairsDescending(
      nullptr, bytes, keys.data(), keys_out.data(), positions.data(), sorted.data(),
      std::int64_t(nnz), std::int64_t(n), rp, ends, s));
  {
    device_array<unsigned char> tmp(bytes, ctx);
    RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::StableSortPairsDescending(
        tmp.data(), bytes, keys.data(), keys_out.data(), positions.data(), sorted.data(),
        std::int64_t(nnz), std::int64_t(n), rp, ends, s));
  }
  k_topk_long_flags<I>
      <<<blocks_for(n), Policy::block, 0, s>>>(n, k, rp, sorted.data(), flags.data());
  RINGBLAS_CHECK_LAUNCH("k_topk_long_flags", s, ctx.debug_sync);
  k_topk_long_write<V, I>
      <<<warps, Policy::block, 0, s>>>(n, k, rp, ci, x, flags.data(), out_rp, o_ci, o_v);
  RINGBLAS_CHECK_LAUNCH("k_topk_long_write", s, ctx.debug_sync);
}

template <class V, class I>
Matrix topk_typed(const Matrix& A, Index k, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const std::size_t nnz = std::size_t(A.nnz()), n = std::size_t(A.nrows());
  const I* rp = A.row_ptr().as<I>();
  device_array<I> out_rp(n + 1, ctx), side(2, ctx);  // side[1]: rows that need the sort
  side.fill_zero(ctx);
  if (n == 0 || nnz == 0 || k == 0) {
    out_rp.fill_zero(ctx);
  } else {
    k_topk_sizes<I>
        <<<blocks_for(n), Policy::block, 0, s>>>(n, k, rp, out_rp.data(), side.data() + 1);
    RINGBLAS_CHECK_LAUNCH("k_topk_sizes", s, ctx.debug_sync);
  }
  I sorted_rows = 0;
  const I total = exclusive_scan_total(out_rp.data(), n + 1, ctx, side.data(), &sorted_rows);
  device_array<I> ci(std::size_t(total), ctx);
  device_array<V> vals(std::size_t(total), ctx);
  if (total > 0) {
    const I* a_ci = A.col_idx().as<I>();
    const V* x = A.values().as<V>();
    if (double(nnz) < Policy::topk_group_min_avg * double(n))
      k_topk_short<V, I, 8><<<blocks_for(n * 8), Policy::block, 0, s>>>(
          n, k, rp, a_ci, x, out_rp.data(), ci.data(), vals.data());
    else
      k_topk_short<V, I, 32><<<blocks_for(n * 32), Policy::block, 0, s>>>(
          n, k, rp, a_ci, x, out_rp.data(), ci.data(), vals.data());
    RINGBLAS_CHECK_LAUNCH("k_topk_short", s, ctx.debug_sync);
    if (sorted_rows > 0) topk_long_rows<V, I>(A, k, out_rp.data(), ci.data(), vals.data(), ctx);
  }
  return Matrix::from_buffers(Index(n), A.ncols(), A.type(), index_type_of<I>::value, Index(total),
                              out_rp.release(), ci.release(), vals.release());
}

}  // namespace

Matrix row_topk(const Matrix& A, Index k, const Context& ctx) {
  if (k < 0)
    throw InvalidValue("cuda elementwise::row_topk: k must be >= 0, got " + std::to_string(k));
  if (A.location() != Location::device)
    throw InvalidValue("cuda elementwise::row_topk: the operand must be on the device");
  return visit_type(A.type(), [&](auto v) {
    return visit_index_type(
        A.index_type(), [&](auto i) { return topk_typed<decltype(v), decltype(i)>(A, k, ctx); });
  });
}

}  // namespace ringblas::cuda::elementwise
