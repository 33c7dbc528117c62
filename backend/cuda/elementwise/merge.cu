// Element-wise add / multiply of two CSR matrices and the Kronecker product, on the device.
//
// merge: a group of G lanes per row (G = 32 when rows are long on average,
// Policy::merge_warp_min_avg; else 8, and 32 for the rows too long for 8 lanes to stage) stages
// both rows' columns in shared memory (rows up to Policy::merge_stage_per_lane * G entries; longer
// rows are searched in global memory); lanes take G entries of A (then of B) at a time and
// binary-search each in the other row; ballots count the common columns, and an entry's place in
// the sorted union is (its index in its row) + (entries of the other row before it) - (common
// columns before it). The count pass needs only |A ∩ B| per row, which lanes find by merge path
// (a binary search for each lane's start on the merged sequence, then a walk). Count, exclusive
// scan (CUB), fill.
//
// When the count shows one pattern for A and B (nnz(T) = nnz(A) = nnz(B)), the fill is an
// entry-by-entry pass instead (columns copied, values combined).
//
// kronecker: row counts lenA(ia) x lenB(ib), scan, then one thread per output entry.
//
// Shared memory: 2 * Policy::merge_stage_per_lane * Policy::block indices per block (16 KiB for
// 32-bit indices). Output rows are sorted with no duplicates because the inputs' rows are.
#include <limits>
#include <string>
#include <type_traits>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/group_select.cuh"
#include "backend/cuda/elementwise/agent.cuh"
#include "backend/cuda/elementwise/elementwise.hpp"
#include "backend/cuda/elementwise/launch.cuh"
#include "ringblas/error.hpp"

namespace ringblas::cuda::elementwise {
namespace {

template <class I>
__device__ __forceinline__ I lower_bound_in(const I* ci, I lo, I hi, I j) {
  while (lo < hi) {
    const I mid = lo + (hi - lo) / 2;
    if (ci[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// The entries of a sorted row of n columns before column j, and whether j is one of them.
template <class I>
__device__ __forceinline__ I place_in(const I* row, I n, I j, bool& found) {
  const I u = lower_bound_in(row, I(0), n, j);
  found = u < n && row[u] == j;
  return u;
}

/// Merge path (Green et al., ICS 2012) over sorted rows ra[0, na) and rb[0, nb), A first on
/// ties: the i with ra[0, i) and rb[0, d - i) the first d entries of the merged sequence, given
/// lo <= i <= hi (within max(0, d - nb) .. min(d, na)).
template <class I>
__device__ __forceinline__ I merge_path_split_in(const I* ra, const I* rb, I d, I lo, I hi) {
  while (lo < hi) {
    const I mid = lo + (hi - lo) / 2;
    if (ra[mid] <= rb[d - 1 - mid])
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}
template <class I>
__device__ __forceinline__ I merge_path_split(const I* ra, I na, const I* rb, I nb, I d) {
  return merge_path_split_in(ra, rb, d, d > nb ? d - nb : I(0), d < na ? d : na);
}

/// Steps d0 .. d1 - 1 of the merged sequence from its split i (merge_path_split(.., d0)), each
/// column read once: visit(i, j, from_a, pair, column) takes ra[i] (from_a) or rb[j]; `pair`:
/// the other row has the column too (for an A entry rb[j]; for a B entry ra[i - 1], the A entry
/// taken just before it, since ties take A first).
template <class I, class Visit>
__device__ __forceinline__ void merge_path_walk(const I* ra, I na, const I* rb, I nb, I i, I d0,
                                                I d1, Visit&& visit) {
  constexpr I end = I(~std::make_unsigned_t<I>(0) >> 1);  // above every column
  I j = d0 - i;
  I x = i < na ? ra[i] : end, y = j < nb ? rb[j] : end, prev = i > 0 ? ra[i - 1] : I(-1);
  for (I d = d0; d < d1; ++d) {
    if (x <= y) {
      visit(i, j, true, x == y, x);
      prev = x;
      x = ++i < na ? ra[i] : end;
    } else {
      visit(i, j, false, prev == y, y);
      y = ++j < nb ? rb[j] : end;
    }
  }
}

/// When both rows (na, nb entries) fit `cap` entries, a group of G lanes copies their columns to
/// sa and sb in shared memory (one coalesced pass, every load in flight at once), so that the
/// searches and walks that follow read shared memory rather than chains of dependent global
/// loads, and points ra and rb at the copies; true when it did.
template <int G, class I>
__device__ __forceinline__ bool stage_rows(const I*& ra, I na, const I*& rb, I nb, I* sa, I* sb,
                                           I cap) {
  if (na > cap || nb > cap) return false;
  const I lane = I(threadIdx.x % G);
  for (I t = lane; t < na; t += I(G)) sa[t] = ra[t];
  for (I t = lane; t < nb; t += I(G)) sb[t] = rb[t];
  __syncwarp(group_mask<G>());
  ra = sa;
  rb = sb;
  return true;
}

/// A group of G lanes per row of this launch's class (from_len <= max(lenA, lenB) < to_len);
/// longer rows are counted in *longer_rows when it is given.
/// Fill = false: out_rp[r] = entries of row r of T. Fill = true: writes them from out_rp[r].
template <class V, class I, bool Union, bool Fill, int G>
__global__ void __launch_bounds__(Policy::block)
    k_merge_group(Index nrows, Index from_len, Index to_len, I* longer_rows, BinaryOpCode op,
                  const I* a_rp, const I* a_ci, const V* a_v, const I* b_rp, const I* b_ci,
                  const V* b_v, I* out_rp, I* o_ci, V* o_v) {
  // Rows that fit are staged in shared memory for the binary searches (stage_rows).
  constexpr int cap = Policy::merge_stage_per_lane * G;
  __shared__ I stage[Policy::block / G][2][cap];
  const Index r = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / G;
  if (r >= nrows) return;  // r is the same for the whole group
  const unsigned lane = threadIdx.x % G, gm = group_mask<G>(), below = lanes_below_me() & gm;
  const I a0 = a_rp[r], b0 = b_rp[r], na = a_rp[r + 1] - a0, nb = b_rp[r + 1] - b0;
  // This launch's rows: the longer of the two rows has from_len <= length < to_len.
  const Index longer = Index(na > nb ? na : nb);
  if (longer < from_len || longer >= to_len) {
    // Rows left to a launch of wider groups are counted, so that the fill can skip that launch
    // when there are none (I: 32 or 64 bits; the count lives in its low word, little-endian).
    if (longer_rows && lane == 0 && longer >= to_len)
      atomicAdd(reinterpret_cast<unsigned*>(longer_rows), 1u);
    return;
  }
  const I* ra = a_ci + a0;  // the rows' columns, t = 0 .. na - 1 (nb)
  const I* rb = b_ci + b0;
  stage_rows<G>(ra, na, rb, nb, stage[threadIdx.x / G][0], stage[threadIdx.x / G][1], I(cap));
  if constexpr (!Fill) {
    // The count needs only |A ∩ B|: merge path, lane l taking diagonals [d0, d1), counting an
    // equal pair when it takes the pair's A entry (so a pair split between two lanes counts once).
    // Long rows cost a search plus len / G steps per lane.
    const I total = na + nb, per = (total + I(G) - 1) / I(G);
    const I d0 = I(lane) * per < total ? I(lane) * per : total;
    const I d1 = d0 + per < total ? d0 + per : total;
    const I i0 = merge_path_split(ra, na, rb, nb, d0);
    unsigned found = 0;
    merge_path_walk(ra, na, rb, nb, i0, d0, d1,
                    [&](I, I, bool from_a, bool pair, I) { found += from_a && pair ? 1u : 0u; });
    const I common = I(__reduce_add_sync(gm, found));
    if (lane == 0) out_rp[r] = Union ? na + nb - common : common;
    return;
  }
  const I base = out_rp[r];
  I common = 0;  // entries of A found in B so far in this row (the same in every lane)
  for (I s = 0; s < na; s += I(G)) {
    const I t = s + I(lane);
    bool found = false;
    I u = 0, j = 0;  // u: entries of B before column j
    if (t < na) {
      j = ra[t];
      u = place_in(rb, nb, j, found);
    }
    const unsigned hits = __ballot_sync(gm, found) & gm;
    if constexpr (Fill) {
      const I before = common + I(__popc(hits & below));
      if (t < na && (Union || found)) {
        const I pos = Union ? base + t + u - before : base + before;
        o_ci[pos] = j;
        o_v[pos] = found ? binary_op_at<V>(op, a_v[a0 + t], b_v[b0 + u], r, j, r, j) : a_v[a0 + t];
      }
    }
    common += I(__popc(hits));
  }
  if constexpr (Fill && Union) {
    I seen = 0;  // entries of B found in A so far
    for (I s = 0; s < nb; s += I(G)) {
      const I t = s + I(lane);
      bool found = false;
      I u = 0, j = 0;  // u: entries of A before column j
      if (t < nb) {
        j = rb[t];
        u = place_in(ra, na, j, found);
      }
      const unsigned hits = __ballot_sync(gm, found) & gm;
      if (t < nb && !found) {
        const I pos = base + t + u - (seen + I(__popc(hits & below)));
        o_ci[pos] = j;
        o_v[pos] = b_v[b0 + t];
      }
      seen += I(__popc(hits));
    }
  }
}

/// A and B have one pattern (so T has it too): o_ci[p] = ci[p], z[p] = op(a[p], b[p]),
/// Policy::items entries per thread, block-striped; the row is looked up (within the tile's rows,
/// tile_row) only for positional operators.
template <class V, class I>
__global__ void __launch_bounds__(Policy::block)
    k_merge_same_pattern(std::size_t nnz, BinaryOpCode op, const I* rp, const I* tile_row,
                         const I* ci, const V* a_v, const V* b_v, I* o_ci, V* o_v) {
  constexpr int N = Policy::items;
  const std::size_t base = std::size_t(blockIdx.x) * Policy::block * N + threadIdx.x;
  I c[N];
  V x[N], y[N];
#pragma unroll
  for (int t = 0; t < N; ++t) {
    const std::size_t p = base + std::size_t(t) * Policy::block;
    if (p < nnz) {
      c[t] = ci[p];
      x[t] = a_v[p];
      y[t] = b_v[p];
    }
  }
#pragma unroll
  for (int t = 0; t < N; ++t) {
    const std::size_t p = base + std::size_t(t) * Policy::block;
    if (p < nnz) {
      const std::int64_t i =
          tile_row ? std::int64_t(row_in_tile(rp, tile_row, std::size_t(Policy::block) * N, p)) : 0;
      const std::int64_t j = std::int64_t(c[t]);
      o_ci[p] = c[t];
      o_v[p] = binary_op_at<V>(op, x[t], y[t], i, j, i, j);
    }
  }
}

/// A warp per row when the rows of A and B hold Policy::merge_warp_min_avg entries together on
/// average, else groups of 8 lanes.
bool merge_by_warps(const Matrix& A, const Matrix& B) {
  const Index n = A.nrows();
  return n > 0 && double(A.nnz() + B.nnz()) >= double(Policy::merge_warp_min_avg) * double(n);
}

template <class V, class I, bool Union>
Matrix merge_typed(const Matrix& A, const Matrix& B, BinaryOpCode op, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const Index n = A.nrows();
  device_array<I> rp(std::size_t(n) + 1, ctx);
  const I *a_rp = A.row_ptr().as<I>(), *a_ci = A.col_idx().as<I>();
  const I *b_rp = B.row_ptr().as<I>(), *b_ci = B.col_idx().as<I>();
  const V *a_v = A.values().as<V>(), *b_v = B.values().as<V>();
  // A warp per row when rows are long on average (merge_by_warps); else groups of 8 lanes for the
  // rows they can stage, and a warp for the longer rows of a skewed matrix (a power-law graph's
  // hubs), in a second launch.
  const bool warp = merge_by_warps(A, B);
  const Index split = warp ? 0 : Index(Policy::merge_stage_per_lane) * 8 + 1;
  const Index all = std::numeric_limits<Index>::max();
  device_array<I> side(2, ctx);  // side[1]: rows the 8-lane groups leave to warps
  side.fill_zero(ctx);
  I wide_rows = warp ? I(n) : I(0);
  auto launch = [&](auto fill, I* o_ci, V* o_v) {
    constexpr bool Fill = decltype(fill)::value;
    if (!warp)
      k_merge_group<V, I, Union, Fill, 8><<<blocks_for(std::size_t(n) * 8), Policy::block, 0, s>>>(
          n, 0, split, Fill ? nullptr : side.data() + 1, op, a_rp, a_ci, a_v, b_rp, b_ci, b_v,
          rp.data(), o_ci, o_v);
    // The count pass always runs the warps' launch (the number of long rows is not known yet).
    if (!Fill || wide_rows > 0)
      k_merge_group<V, I, Union, Fill, 32>
          <<<blocks_for(std::size_t(n) * 32), Policy::block, 0, s>>>(
              n, split, all, nullptr, op, a_rp, a_ci, a_v, b_rp, b_ci, b_v, rp.data(), o_ci, o_v);
    RINGBLAS_CHECK_LAUNCH(Fill ? "k_merge_group<fill>" : "k_merge_group<count>", s, ctx.debug_sync);
  };
  if (n > 0)
    launch(std::false_type{}, nullptr, nullptr);
  else
    rp.fill_zero(ctx);
  I long_rows = 0;
  const I nnz = exclusive_scan_total(rp.data(), std::size_t(n) + 1, ctx, side.data(), &long_rows);
  if (!warp) wide_rows = long_rows;
  device_array<I> ci(std::size_t(nnz), ctx);
  device_array<V> vals(std::size_t(nnz), ctx);
  // |A ∪ B| = |A| = |B| (or |A ∩ B| = |A| = |B|) only when A and B have one pattern: then T has it
  // too (its row pointers are the scan just made), and no row needs a merge.
  if (nnz > 0 && Index(nnz) == A.nnz() && Index(nnz) == B.nnz()) {
    const std::size_t tile = std::size_t(Policy::block) * Policy::items;
    device_array<I> tiles;
    if (is_positional(op)) tiles = tile_rows(rp.data(), I(n), std::size_t(nnz), tile, ctx);
    k_merge_same_pattern<V, I><<<grid_for(std::size_t(nnz), tile), Policy::block, 0, s>>>(
        std::size_t(nnz), op, rp.data(), is_positional(op) ? tiles.data() : nullptr, a_ci, a_v, b_v,
        ci.data(), vals.data());
    RINGBLAS_CHECK_LAUNCH("k_merge_same_pattern", s, ctx.debug_sync);
  } else if (nnz > 0) {
    launch(std::true_type{}, ci.data(), vals.data());
  }
  return Matrix::from_buffers(n, A.ncols(), A.type(), index_type_of<I>::value, Index(nnz),
                              rp.release(), ci.release(), vals.release());
}

/// out_rp[r] = lenA(ia) * lenB(ib) for output row r = ia * mb + ib.
template <class I>
__global__ void k_kron_count(Index nrows, Index mb, const I* a_rp, const I* b_rp, I* out_rp) {
  const Index r = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const Index ia = r / mb, ib = r % mb;
  out_rp[r] = (a_rp[ia + 1] - a_rp[ia]) * (b_rp[ib + 1] - b_rp[ib]);
}

/// One thread per entry e of T (coalesced writes): its row r by binary search of T's row
/// pointers within its tile's rows (launch.cuh tile_rows), then its pair (pa, pb) from its place t
/// in the row: pa = t / lenB, pb = t % lenB.
template <class V, class I>
__global__ void k_kron_fill(std::size_t nnz, const I* tile_row, Index mb, Index nb, BinaryOpCode op,
                            const I* a_rp, const I* a_ci, const V* a_v, const I* b_rp,
                            const I* b_ci, const V* b_v, const I* out_rp, I* o_ci, V* o_v) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= nnz) return;
  const I r = row_in_tile(out_rp, tile_row, Policy::block, e);
  const Index ia = Index(r) / mb, ib = Index(r) % mb;
  const I b0 = b_rp[ib], len_b = b_rp[ib + 1] - b0, t = I(e) - out_rp[r];
  const I pa = a_rp[ia] + t / len_b, pb = b0 + t % len_b;
  const Index ja = a_ci[pa], jb = b_ci[pb];
  o_ci[e] = I(ja * nb + jb);
  o_v[e] = binary_op_at<V>(op, a_v[pa], b_v[pb], ia, ja, ib, jb);
}

template <class V, class I>
Matrix kron_typed(const Matrix& A, const Matrix& B, BinaryOpCode op, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const Index n = A.nrows() * B.nrows(), mb = B.nrows(), nb = B.ncols();
  device_array<I> rp(std::size_t(n) + 1, ctx);
  rp.fill_zero(ctx);
  const unsigned grid = blocks_for(std::size_t(n));
  if (n > 0) {
    k_kron_count<I>
        <<<grid, Policy::block, 0, s>>>(n, mb, A.row_ptr().as<I>(), B.row_ptr().as<I>(), rp.data());
    RINGBLAS_CHECK_LAUNCH("k_kron_count", s, ctx.debug_sync);
  }
  const I nnz = exclusive_scan_total(rp.data(), std::size_t(n) + 1, ctx);
  device_array<I> ci(std::size_t(nnz), ctx);
  device_array<V> vals(std::size_t(nnz), ctx);
  if (nnz > 0) {
    const device_array<I> tiles = tile_rows(rp.data(), I(n), std::size_t(nnz), Policy::block, ctx);
    k_kron_fill<V, I><<<blocks_for(std::size_t(nnz)), Policy::block, 0, s>>>(
        std::size_t(nnz), tiles.data(), mb, nb, op, A.row_ptr().as<I>(), A.col_idx().as<I>(),
        A.values().as<V>(), B.row_ptr().as<I>(), B.col_idx().as<I>(), B.values().as<V>(), rp.data(),
        ci.data(), vals.data());
    RINGBLAS_CHECK_LAUNCH("k_kron_fill", s, ctx.debug_sync);
  }
  return Matrix::from_buffers(n, A.ncols() * nb, A.type(), index_type_of<I>::value, Index(nnz),
                              rp.release(), ci.release(), vals.release());
}

void require_same(const Matrix& A, const Matrix& B, const char* where) {
  if (A.location() != Location::device || B.location() != Location::device ||
      A.index_type() != B.index_type() || A.type() != B.type())
    throw InvalidValue(std::string(where) +
                       ": operands must be on the device with one index and value type");
}

}  // namespace

Matrix merge(const Matrix& A, const Matrix& B, BinaryOpCode op, Merge how, const Context& ctx) {
  require_same(A, B, "cuda elementwise::merge");
  if (A.nrows() != B.nrows() || A.ncols() != B.ncols())
    throw DimensionMismatch("cuda elementwise::merge: operands differ in shape");
  return visit_type(A.type(), [&](auto v) {
    return visit_index_type(A.index_type(), [&](auto i) {
      using V = decltype(v);
      using I = decltype(i);
      return how == Merge::union_of ? merge_typed<V, I, true>(A, B, op, ctx)
                                    : merge_typed<V, I, false>(A, B, op, ctx);
    });
  });
}

Matrix kronecker(const Matrix& A, const Matrix& B, BinaryOpCode op, const Context& ctx) {
  require_same(A, B, "cuda elementwise::kronecker");
  return visit_type(A.type(), [&](auto v) {
    return visit_index_type(A.index_type(), [&](auto i) {
      return kron_typed<decltype(v), decltype(i)>(A, B, op, ctx);
    });
  });
}

}  // namespace ringblas::cuda::elementwise
