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
// tiles (MergeKernel::tiles, variant ewise_onepass; not the default until timed): one kernel
// merges and writes, a group of lanes merging its rows in windows of G steps held in registers
// (merge_tiles: a merge path over two G-entry tiles by shuffles, no search per entry), each
// tile of rows finding its offset in T by decoupled look-back, T allocated for its upper bound
// (k_merge_tiles, merge_tiles_typed).
//
// kronecker: row counts lenA(ia) x lenB(ib), scan, then one thread per output entry.
//
// Shared memory: 2 * Policy::merge_stage_per_lane * Policy::block indices per block (16 KiB for
// 32-bit indices). Output rows are sorted with no duplicates because the inputs' rows are.
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/group_select.cuh"
#include "backend/cuda/common/host_read.hpp"
#include "backend/cuda/common/tile_lookback.cuh"
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

/// Merges sorted rows ra[0, na) and rb[0, nb) with a group of G lanes in windows of G merged
/// steps, A first on ties, each column read once from global memory and kept in registers: lane
/// l holds entry ia + l of A's tile and jb + l of B's (padded with `end`). In a window, lane l
/// ranks its A entry among B's tile (entries below it: log2(G) + 1 rounds of one shuffle), which
/// places it at step l + rank of the merged tiles; one OR-reduction of the places under G gives
/// every lane the window's A steps as a bit mask, so that lane l holds step d0 + l: A's entry i
/// (i = A steps before it) when its bit is set, else B's entry j = l - i. Then the window's A
/// steps and B steps are shifted out of the tiles (a shuffle) and the lanes left empty load the
/// next entries (one contiguous load).
/// visit(step, from_a, pair, col, i, j) is called by every lane of the group once per window
/// (it may hold ballots): `step` false past the row pair's end; i, j: the step's entries of A and
/// B in their rows (j, for an A step, the B entry it pairs with when `pair`; i, for a B step, is
/// meaningless); `pair`: the other row has the column too (an A step: b[j] is its column; a B
/// step: the step before it, the A entry taken just before, has it, since ties take A first).
/// `in_global`: the rows are in global memory (not staged), so that each window's refill would
/// wait a full memory latency: the lanes prefetch into L1 the lines `ahead` entries past both
/// tiles (a window takes at most G entries of a row, `lines` 128-byte lines), a few windows
/// before the refills read them.
template <int G, class I, class Visit>
__device__ __forceinline__ void merge_tiles(const I* ra, I na, const I* rb, I nb, bool in_global,
                                            Visit&& visit) {
  constexpr I end = I(~std::make_unsigned_t<I>(0) >> 1);  // above every column
  constexpr int line = 128 / int(sizeof(I)), lines = G > line ? G / line : 1;
  constexpr int ahead = 4 * (G > line ? G : line);
  static_assert(2 * lines <= G, "one lane per line prefetched");
  const unsigned gm = group_mask<G>();
  const int lane = int(threadIdx.x % G);
  const I total = na + nb;
  I ia = 0, jb = 0;  // entries of A and B taken by the windows so far (the same in every lane)
  I x = I(lane) < na ? ra[lane] : end, y = I(lane) < nb ? rb[lane] : end;
  I prev = I(-1);  // the last step's column (no step before the first)
  for (I d0 = 0; d0 < total; d0 += I(G)) {
    if (in_global && lane < 2 * lines) {
      const bool side_a = lane < lines;
      const I at = (side_a ? ia : jb) + I(ahead + (lane % lines) * line);
      if (at < (side_a ? na : nb))
        asm volatile("prefetch.global.L1 [%0];" ::"l"((side_a ? ra : rb) + at));
    }
    // rank: B's tile entries below x (ties: A first), by a binary search over the lanes' y
    // (G - 1 at most from the halving rounds, then one compare for G).
    int rank = 0;
#pragma unroll
    for (int h = G / 2; h >= 1; h /= 2)
      if (__shfl_sync(gm, y, rank + h - 1, G) < x) rank += h;
    if (__shfl_sync(gm, y, rank, G) < x) ++rank;
    const int place = lane + rank;
    const unsigned a_steps = __reduce_or_sync(gm, place < G ? 1u << place : 0u);
    const bool from_a = (a_steps >> lane) & 1u;
    const int i = __popc(a_steps & ((1u << lane) - 1u)), j = lane - i;
    const I ai = __shfl_sync(gm, x, i, G), bj = __shfl_sync(gm, y, j, G);
    const I col = from_a ? ai : bj;
    const I up = __shfl_up_sync(gm, col, 1, G);
    // An A step pairs with B's next entry bj; a B step with the step before it.
    const bool pair = (from_a ? bj : lane == 0 ? prev : up) == col;
    visit(d0 + I(lane) < total, from_a, pair, col, ia + I(i), jb + I(j));
    // Shift out what the window took: ca steps of A, G - ca of B.
    const int ca = __popc(a_steps), cb = G - ca;
    prev = __shfl_sync(gm, col, G - 1, G);
    const I xs = __shfl_down_sync(gm, x, unsigned(ca), G);
    const I ys = __shfl_down_sync(gm, y, unsigned(cb), G);
    ia += I(ca);
    jb += I(cb);
    x = lane + ca < G ? xs : (ia + I(lane) < na ? ra[ia + lane] : end);
    y = lane + cb < G ? ys : (jb + I(lane) < nb ? rb[jb + lane] : end);
  }
}

/// The first warp of a block (threadIdx.x < 32) turns the outputs of the tile's R rows,
/// row_off[0, R), into their offsets in T: a scan over the rows and the decoupled look-back
/// (common/tile_lookback.cuh) for the tile's offset. The last tile writes out_rp[nrows] = nnz(T).
template <class I, int R>
__device__ __forceinline__ void tile_row_offsets(I* row_off, typename TileLookback<I>::State& tiles,
                                                 typename TileLookback<I>::TempStorage& lookback,
                                                 Index nrows, I* out_rp) {
  static_assert(R <= 32, "the tile's rows are scanned by one warp");
  if (threadIdx.x >= 32) return;
  const I c = threadIdx.x < R ? row_off[threadIdx.x] : I(0);
  I s = c;  // inclusive scan over the tile's rows
  for (int o = 1; o < 32; o *= 2) {
    const I y = __shfl_up_sync(0xffffffffu, s, o);
    if (int(threadIdx.x) >= o) s += y;
  }
  const I aggregate = __shfl_sync(0xffffffffu, s, 31);
  const I base = tile_exclusive_prefix<I>(tiles, lookback, aggregate);
  if (threadIdx.x < R) row_off[threadIdx.x] = base + s - c;
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) out_rp[nrows] = base + aggregate;
}

/// MergeKernel::tiles, one pass: a block is a tile of R = Policy::block / G rows, a group of G
/// lanes per row merging it by windows (merge_tiles). When both rows fit the group's staging
/// (Policy::merge_stage_per_lane * G entries each), their columns are copied to shared memory
/// (stage_rows) and the group keeps, for each output, its entries of A and B there (16 bits
/// each); the tile's offset in T comes from the decoupled look-back; then the group writes its
/// row from shared memory (coalesced: consecutive lanes, consecutive positions), reading the
/// values of the outputs only. Rows that do not fit are merged in global memory by the whole warp
/// (one such row after another), twice: counting, then writing as they go. Columns are read from
/// global memory once (twice for rows that do not fit), values once.
template <class V, class I, bool Union, int G>
__global__ void __launch_bounds__(Policy::block)
    k_merge_tiles(Index nrows, BinaryOpCode op, typename TileLookback<I>::State tiles,
                  const I* a_rp, const I* a_ci, const V* a_v, const I* b_rp, const I* b_ci,
                  const V* b_v, I* out_rp, I* o_ci, V* o_v) {
  constexpr int R = Policy::block / G;
  constexpr int cap = Policy::merge_stage_per_lane * G;
  constexpr unsigned none = 0xffffu;  // no entry of that operand (a source's 16-bit half)
  static_assert(cap < int(none), "a staged entry's place fits 16 bits");
  __shared__ I stage[R][2][cap];
  __shared__ unsigned out_src[R][cap];  // the outputs' entries of A (low 16 bits) and B (high)
  __shared__ I row_off[R];              // the rows' output counts, then their offsets in T
  __shared__ typename TileLookback<I>::TempStorage lookback;
  const int g = int(threadIdx.x) / G;
  const unsigned lane = threadIdx.x % G, gm = group_mask<G>(), below = lanes_below_me() & gm;
  const Index r = Index(blockIdx.x) * R + g;
  // Rows past nrows are empty (their lanes still take part in the tile's scan).
  I a0 = 0, b0 = 0, na = 0, nb = 0;
  if (r < nrows) {
    a0 = a_rp[r];
    b0 = b_rp[r];
    na = a_rp[r + 1] - a0;
    nb = b_rp[r + 1] - b0;
  }
  const I* ra = a_ci + a0;
  const I* rb = b_ci + b0;
  // Staged only when the pair's outputs fit out_src too (a union has up to na + nb of them).
  const bool staged =
      na + nb <= I(cap) && stage_rows<G>(ra, na, rb, nb, stage[g][0], stage[g][1], I(cap));
  // An output for every A entry and every unpaired B entry (union), or every pair (intersection).
  auto emits = [](bool from_a, bool pair) { return Union ? from_a || !pair : from_a && pair; };
  unsigned* const src = out_src[g];
  I count = 0;  // the row's outputs so far (the same in every lane)
  // (The staged rows by their shared-memory names, so that the refills are shared loads.)
  const I* const sa = stage[g][0];
  const I* const sb = stage[g][1];
  if (staged)
    merge_tiles<G>(sa, na, sb, nb, false, [&](bool step, bool from_a, bool pair, I, I i, I j) {
      const bool e = step && emits(from_a, pair);
      const unsigned em = __ballot_sync(gm, e) & gm;
      if (e)
        src[count + I(__popc(em & below))] =
            (from_a ? unsigned(i) : none) | (from_a && !pair ? none : unsigned(j)) << 16;
      count += I(__popc(em));
    });
  // Rows that do not fit are merged in global memory by the whole warp, one after the other
  // (windows of 32 steps: an 8-lane group would walk a power-law hub row 8 steps at a time),
  // counting now and writing after the look-back. `long_rows`: their groups' first lanes.
  constexpr unsigned all = 0xffffffffu;
  const int wl = int(threadIdx.x % 32);
  const unsigned long_rows = __ballot_sync(all, !staged && lane == 0);
  // Row `leader`'s merge by the warp: visit as merge_tiles's, with the row's number and offsets.
  auto warp_merge = [&](int leader, auto&& visit) {
    const Index lr = __shfl_sync(all, r, leader);
    const I la0 = __shfl_sync(all, a0, leader), lb0 = __shfl_sync(all, b0, leader);
    const I lna = __shfl_sync(all, na, leader), lnb = __shfl_sync(all, nb, leader);
    merge_tiles<32>(a_ci + la0, lna, b_ci + lb0, lnb, true,
                    [&](bool step, bool from_a, bool pair, I col, I i, I j) {
                      visit(lr, la0, lb0, step && emits(from_a, pair), from_a, pair, col, i, j);
                    });
  };
  for (unsigned left = long_rows; left != 0; left &= left - 1) {
    const int leader = __ffs(left) - 1;
    I n = 0;
    warp_merge(leader, [&](Index, I, I, bool e, bool, bool, I, I, I) {
      n += I(__popc(__ballot_sync(all, e)));
    });
    if (wl == leader) count = n;
  }
  if (lane == 0) row_off[g] = count;
  __syncthreads();
  tile_row_offsets<I, R>(row_off, tiles, lookback, nrows, out_rp);
  __syncthreads();
  const I base = row_off[g];
  if (r < nrows && lane == 0) out_rp[r] = base;
  // T's entry pos of row rr (its rows of A and B at ao, bo): column col from A's entry i
  // (has_a) and / or B's entry j (has_b).
  auto write = [&](Index rr, I ao, I bo, I pos, I col, bool has_a, bool has_b, I i, I j) {
    o_ci[pos] = col;
    if (!has_b)
      o_v[pos] = a_v[ao + i];
    else if (!has_a)
      o_v[pos] = b_v[bo + j];
    else
      o_v[pos] = binary_op_at<V>(op, a_v[ao + i], b_v[bo + j], rr, col, rr, col);
  };
  // Staged rows (rows past nrows among them, with no outputs): from shared memory, coalesced.
  if (staged)
    for (I k = I(lane); k < count; k += I(G)) {
      const unsigned i = src[k] & none, j = src[k] >> 16;
      write(r, a0, b0, base + k, i != none ? sa[i] : sb[j], i != none, j != none, I(i), I(j));
    }
  for (unsigned left = long_rows; left != 0; left &= left - 1) {
    const int leader = __ffs(left) - 1;
    I out = __shfl_sync(all, base, leader);
    warp_merge(leader, [&](Index lr, I la0, I lb0, bool e, bool from_a, bool pair, I col, I i,
                           I j) {
      const unsigned em = __ballot_sync(all, e);
      if (e)
        write(lr, la0, lb0, out + I(__popc(em & lanes_below_me())), col, from_a, !from_a || pair,
              i, j);
      out += I(__popc(em));
    });
  }
}

template <class V, class I, bool Union, int G>
void launch_merge_tiles(const Matrix& A, const Matrix& B, BinaryOpCode op, I* rp, I* ci, V* vals,
                        const Context& ctx) {
  constexpr int R = Policy::block / G;
  const Index n = A.nrows();
  const int ntiles = int((n + R - 1) / R);
  TileLookback<I> tiles(ntiles, ctx);
  k_merge_tiles<V, I, Union, G><<<unsigned(ntiles), Policy::block, 0, stream_of(ctx)>>>(
      n, op, tiles.state, A.row_ptr().as<I>(), A.col_idx().as<I>(), A.values().as<V>(),
      B.row_ptr().as<I>(), B.col_idx().as<I>(), B.values().as<V>(), rp, ci, vals);
  RINGBLAS_CHECK_LAUNCH("k_merge_tiles", stream_of(ctx), ctx.debug_sync);
}

/// MergeKernel::tiles. T is allocated for its upper bound before the merge: nnz(A) + nnz(B)
/// (union) or min(nnz(A), nnz(B)) (intersection); nnz(T) is read back once at the end. The
/// buffers are kept at that capacity (as SuiteSparse keeps a matrix's allocation larger than its
/// entries) while it is at most Policy::merge_onepass_max_slack * nnz(T), which a union always
/// is (|A ∪ B| >= (|A| + |B|) / 2); an intersection much smaller than its bound is copied into
/// exact buffers, so that T never holds (or moves to the host) more than that slack.
template <class V, class I, bool Union>
Matrix merge_tiles_typed(const Matrix& A, const Matrix& B, BinaryOpCode op, const Context& ctx) {
  const Index n = A.nrows();
  const Index bound = Union ? A.nnz() + B.nnz() : std::min(A.nnz(), B.nnz());
  device_array<I> rp(std::size_t(n) + 1, ctx), ci(std::size_t(bound), ctx);
  device_array<V> vals(std::size_t(bound), ctx);
  I nnz = 0;
  if (n == 0) {
    rp.fill_zero(ctx);
  } else {
    if (merge_by_warps(A, B))
      launch_merge_tiles<V, I, Union, 32>(A, B, op, rp.data(), ci.data(), vals.data(), ctx);
    else
      launch_merge_tiles<V, I, Union, 8>(A, B, op, rp.data(), ci.data(), vals.data(), ctx);
    nnz = read_value(rp.data() + n, ctx);
  }
  if (double(bound) > Policy::merge_onepass_max_slack * double(nnz)) {
    cudaStream_t s = stream_of(ctx);
    device_array<I> ci_exact(std::size_t(nnz), ctx);
    device_array<V> vals_exact(std::size_t(nnz), ctx);
    if (nnz > 0) {
      RINGBLAS_CUDA_TRY(cudaMemcpyAsync(ci_exact.data(), ci.data(), std::size_t(nnz) * sizeof(I),
                                        cudaMemcpyDeviceToDevice, s));
      RINGBLAS_CUDA_TRY(cudaMemcpyAsync(vals_exact.data(), vals.data(),
                                        std::size_t(nnz) * sizeof(V), cudaMemcpyDeviceToDevice, s));
    }
    ci = std::move(ci_exact);
    vals = std::move(vals_exact);
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

Matrix merge(const Matrix& A, const Matrix& B, BinaryOpCode op, Merge how, const Context& ctx,
             MergeKernel kernel) {
  require_same(A, B, "cuda elementwise::merge");
  if (A.nrows() != B.nrows() || A.ncols() != B.ncols())
    throw DimensionMismatch("cuda elementwise::merge: operands differ in shape");
  return visit_type(A.type(), [&](auto v) {
    return visit_index_type(A.index_type(), [&](auto i) {
      using V = decltype(v);
      using I = decltype(i);
      const bool u = how == Merge::union_of;
      if (kernel == MergeKernel::tiles)
        return u ? merge_tiles_typed<V, I, true>(A, B, op, ctx)
                 : merge_tiles_typed<V, I, false>(A, B, op, ctx);
      return u ? merge_typed<V, I, true>(A, B, op, ctx) : merge_typed<V, I, false>(A, B, op, ctx);
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
