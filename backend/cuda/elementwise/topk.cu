// select row_topk on the device: the k largest entries of each row, ties to the smaller column.
//
// Order: an order-preserving unsigned key per entry (agent.cuh key_of: NaN lowest, -0 = +0),
// then the column. Output row r holds min(len_r, k) entries, so T's row pointers are a scan of
// those sizes (no pass over the entries, one host read of nnz(T)); every row is then written
// straight into T, in column order:
// - a row of at most k entries is copied (a group of lanes per row, coalesced);
// - a short row (<= Policy::topk_short_row entries) is held in registers by a group of 8 lanes,
//   or a warp when rows average Policy::topk_warp_min_avg entries or more (1, 2, 4, ... entries
//   per lane, the smallest that holds the row),
//   which finds the k-th largest key bit by bit (common/group_select.cuh) and writes the keys
//   above it and the first equal ones by ballots;
// - a long row (rare: the size pass lists them, and their count comes back with nnz(T)) takes a
//   block, which runs the same bitwise search over the row in global memory (block-wide counts;
//   a row of a few thousand entries stays in L1 across the rounds) and compacts the kept entries
//   in column order by block scans.
// col_topk is row_topk between two transposes (entry.cpp). Deterministic. Shared memory: CUB's
// block reduce / scan storage in the long-row kernel.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <string>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/group_select.cuh"
#include "backend/cuda/elementwise/agent.cuh"
#include "backend/cuda/elementwise/elementwise.hpp"
#include "backend/cuda/elementwise/launch.cuh"
#include "ringblas/error.hpp"

namespace ringblas::cuda::elementwise {
namespace {

/// A row for the block path: more entries than k and than the register path holds.
template <class I>
__device__ __forceinline__ bool needs_block(I len, Index k) {
  return Index(len) > k && len > I(Policy::topk_short_row);
}

/// sizes[r] = min(len_r, k) for r < n; the rows for the block path are appended to long_rows,
/// *long_count counting them.
template <class I>
__global__ void k_topk_sizes(std::size_t nrows, Index k, const I* rp, I* sizes, I* long_count,
                             I* long_rows) {
  const std::size_t r = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const I len = rp[r + 1] - rp[r];
  sizes[r] = Index(len) < k ? len : I(k);
  // I is 32 or 64 bits: the count (< 2^31 rows) lives in its low word, little-endian.
  if (needs_block(len, k)) long_rows[atomicAdd(reinterpret_cast<unsigned*>(long_count), 1u)] = I(r);
}

/// The top k of one row of `items` entries (k < items <= G * R) from position b, held R per lane
/// (item t of a lane is the row's entry t * G + lane), written in column order to T from o.
template <class V, class I, int G, int R>
__device__ __forceinline__ void topk_in_registers(I b, int items, Index k, const I* ci, const V* x,
                                                  I o, I* o_ci, V* o_v) {
  using K = typename order_key<V>::type;
  static_assert(R <= 32, "validity is one bit per item");
  const int lane = int(threadIdx.x % G);
  K key[R];
  unsigned valid = 0;
#pragma unroll
  for (int t = 0; t < R; ++t) {
    key[t] = 0;
    const int q = t * G + lane;
    if (q < items) {
      key[t] = key_of(x[b + I(q)]);
      valid |= 1u << t;
    }
  }
  unsigned take_equal = 0;
  const K kth = group_kth_largest<G, R>(key, valid, unsigned(k), take_equal);
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

/// A group of G lanes per row writes the row's top k into T at out_rp[r] (rows for the block
/// path are left to k_topk_long). The register path is instantiated for 1, 2, 4, ... items
/// per lane up to Policy::topk_short_row / G and picked per row, so that a short row pays for
/// the items it has (every round of the search visits each register slot).
template <class V, class I, int G>
__global__ void __launch_bounds__(Policy::block)
    k_topk_short(std::size_t nrows, Index k, const I* rp, const I* ci, const V* x, const I* out_rp,
                 I* o_ci, V* o_v) {
  constexpr int R = Policy::topk_short_row / G;
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
  if (needs_block(len, k)) return;
  const int items = int(len), per_lane = (items + G - 1) / G;
  // Instantiated for 1, 2, 4, 8, 16 and R entries per lane (the smallest that holds the row).
  if (per_lane <= 1)
    topk_in_registers<V, I, G, 1>(b, items, k, ci, x, o, o_ci, o_v);
  else if (per_lane <= 2)
    topk_in_registers<V, I, G, 2>(b, items, k, ci, x, o, o_ci, o_v);
  else if (per_lane <= 4)
    topk_in_registers<V, I, G, 4>(b, items, k, ci, x, o, o_ci, o_v);
  else if (per_lane <= 8)
    topk_in_registers<V, I, G, (R < 8 ? R : 8)>(b, items, k, ci, x, o, o_ci, o_v);
  else if (per_lane <= 16)
    topk_in_registers<V, I, G, (R < 16 ? R : 16)>(b, items, k, ci, x, o, o_ci, o_v);
  else
    topk_in_registers<V, I, G, R>(b, items, k, ci, x, o, o_ci, o_v);
}

/// One block per listed long row: the k-th largest key by the bitwise search of
/// common/group_select.cuh with block-wide counts over the row in global memory, then the row in
/// chunks of the block, each entry's place among the kept ones (and among the keys equal to the
/// k-th) by block scans, written in column order to T at out_rp[r].
template <class V, class I>
__global__ void __launch_bounds__(Policy::block)
    k_topk_long(Index k, const I* long_rows, const I* rp, const I* ci, const V* x, const I* out_rp,
                I* o_ci, V* o_v) {
  using K = typename order_key<V>::type;
  using reduce_t = cub::BlockReduce<unsigned, Policy::block>;
  using scan_t = cub::BlockScan<unsigned, Policy::block>;
  __shared__ union {
    typename reduce_t::TempStorage reduce;
    typename scan_t::TempStorage scan;
  } tmp;
  __shared__ unsigned broadcast;
  const I r = long_rows[blockIdx.x];
  const I b = rp[r], e = rp[r + 1];
  // Sum of per-thread counts, the same in every thread.
  auto block_sum = [&](unsigned mine) {
    const unsigned total = reduce_t(tmp.reduce).Sum(mine);
    if (threadIdx.x == 0) broadcast = total;
    __syncthreads();
    const unsigned all = broadcast;
    __syncthreads();
    return all;
  };
  K t = 0;
  for (int bit = 8 * int(sizeof(K)) - 1; bit >= 0; --bit) {
    const K cand = t | (K(1) << bit);
    unsigned n = 0;
    for (I p = b + I(threadIdx.x); p < e; p += I(Policy::block)) n += key_of(x[p]) >= cand;
    const Index count = Index(block_sum(n));
    if (count >= k) t = cand;
    if (count == k) break;
  }
  unsigned gt = 0;
  for (I p = b + I(threadIdx.x); p < e; p += I(Policy::block)) gt += key_of(x[p]) > t;
  const unsigned take_equal = unsigned(k) - block_sum(gt);
  unsigned equal_before = 0, kept_before = 0;
  const I o = out_rp[r];
  for (I s = b; s < e; s += I(Policy::block)) {
    const I p = s + I(threadIdx.x);
    const bool v = p < e;
    const K key = v ? key_of(x[p]) : K(0);
    const unsigned eq = v && key == t ? 1u : 0u;
    unsigned eq_rank = 0, eq_total = 0, keep_rank = 0, keep_total = 0;
    scan_t(tmp.scan).ExclusiveSum(eq, eq_rank, eq_total);
    __syncthreads();
    const unsigned keep = (v && key > t) || (eq && equal_before + eq_rank < take_equal) ? 1u : 0u;
    scan_t(tmp.scan).ExclusiveSum(keep, keep_rank, keep_total);
    __syncthreads();
    if (keep) {
      const I at = o + I(kept_before + keep_rank);
      o_ci[at] = ci[p];
      o_v[at] = x[p];
    }
    equal_before += eq_total;
    kept_before += keep_total;
  }
}

/// k_topk_short with G lanes per row over n rows.
template <class V, class I, int G>
void launch_short(std::size_t n, Index k, const I* rp, const I* a_ci, const V* x, const I* out_rp,
                  I* o_ci, V* o_v, cudaStream_t s) {
  k_topk_short<V, I, G>
      <<<blocks_for(n * G), Policy::block, 0, s>>>(n, k, rp, a_ci, x, out_rp, o_ci, o_v);
}

template <class V, class I>
Matrix topk_typed(const Matrix& A, Index k, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const std::size_t nnz = std::size_t(A.nnz()), n = std::size_t(A.nrows());
  const I* rp = A.row_ptr().as<I>();
  // side[1]: how many rows take the block path, listed in long_rows.
  device_array<I> out_rp(n + 1, ctx), side(2, ctx), long_rows(n, ctx);
  side.fill_zero(ctx);
  if (n == 0 || nnz == 0 || k == 0) {
    out_rp.fill_zero(ctx);
  } else {
    k_topk_sizes<I><<<blocks_for(n), Policy::block, 0, s>>>(n, k, rp, out_rp.data(),
                                                            side.data() + 1, long_rows.data());
    RINGBLAS_CHECK_LAUNCH("k_topk_sizes", s, ctx.debug_sync);
  }
  I block_rows = 0;  // rows for the block path
  const I total = exclusive_scan_total(out_rp.data(), n + 1, ctx, side.data(), &block_rows);
  device_array<I> ci(std::size_t(total), ctx);
  device_array<V> vals(std::size_t(total), ctx);
  if (total > 0) {
    const I* a_ci = A.col_idx().as<I>();
    const V* x = A.values().as<V>();
    const bool warp = double(nnz) >= Policy::topk_warp_min_avg * double(n);
    auto launch = warp ? launch_short<V, I, 32> : launch_short<V, I, 8>;
    launch(n, k, rp, a_ci, x, out_rp.data(), ci.data(), vals.data(), s);
    RINGBLAS_CHECK_LAUNCH("k_topk_short", s, ctx.debug_sync);
    if (block_rows > 0) {
      k_topk_long<V, I><<<unsigned(block_rows), Policy::block, 0, s>>>(
          k, long_rows.data(), rp, a_ci, x, out_rp.data(), ci.data(), vals.data());
      RINGBLAS_CHECK_LAUNCH("k_topk_long", s, ctx.debug_sync);
    }
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
    return visit_index_type(A.index_type(), [&](auto i) {
      return topk_typed<decltype(v), decltype(i)>(A, k, ctx);
    });
  });
}

}  // namespace ringblas::cuda::elementwise
