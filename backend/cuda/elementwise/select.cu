// select by a predicate on the device (top-k is topk.cu). Rows stay sorted.
//
// Positional predicates (tril, triu, diag, offdiag) keep one contiguous range of each sorted row
// (offdiag: the row less at most one entry): one thread per row finds it by binary search of the
// row's columns, an exclusive scan (CUB) of the range sizes gives T's row pointers (one host
// read of nnz(T)), and one thread per entry of T copies its source entry (its row by a binary
// search limited to the rows of its tile, launch.cuh tile_rows). Reads only what T keeps plus
// O(log) per row.
//
// Value predicates: CUB DeviceSelect::If over the positions (one pass reading the values,
// decoupled look-back) writes the kept positions in order and their count (one host read, which
// sizes T exactly); a thread per kept entry gathers its column and value, and T's row pointer r
// is the number of kept positions below A's row pointer r (a binary search per row).
// No shared memory.
#include <thrust/iterator/counting_iterator.h>

#include <cub/device/device_select.cuh>
#include <limits>
#include <string>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/host_read.hpp"
#include "backend/cuda/elementwise/agent.cuh"
#include "backend/cuda/elementwise/elementwise.hpp"
#include "backend/cuda/elementwise/launch.cuh"
#include "ringblas/error.hpp"

namespace ringblas::cuda::elementwise {
namespace {

/// First p in [lo, hi) with ci[p] >= j (Strict: ci[p] > j), compared in 64 bits.
template <bool Strict, class I>
__device__ __forceinline__ I search_row(const I* ci, I lo, I hi, std::int64_t j) {
  while (lo < hi) {
    const I mid = lo + (hi - lo) / 2;
    const std::int64_t c = std::int64_t(ci[mid]);
    if (Strict ? c <= j : c < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// Row r keeps [from, to) less `hole` (-1: none): sizes[r] = its count, first[r] = from.
template <class I>
__global__ void k_select_ranges(I nrows, SelectOpCode op, std::int64_t k, const I* rp, const I* ci,
                                I* sizes, I* first, I* hole) {
  const I r = I(std::size_t(blockIdx.x) * blockDim.x + threadIdx.x);
  if (r >= nrows) return;
  const I b = rp[r], e = rp[r + 1];
  // The kept columns compare with i + k (j - i <= k is j <= i + k), saturated: i >= 0, so only
  // a k near the int64 maximum can overflow, and then every column qualifies.
  const std::int64_t i = std::int64_t(r), top = std::numeric_limits<std::int64_t>::max();
  const std::int64_t d = k > top - i ? top : i + k;
  I from = b, to = e, h = I(-1);
  if (op == SelectOpCode::tril) {
    to = search_row<true>(ci, b, e, d);
  } else if (op == SelectOpCode::triu) {
    from = search_row<false>(ci, b, e, d);
  } else {
    const I p = search_row<false>(ci, b, e, d);
    const bool on = p < e && std::int64_t(ci[p]) == d;
    if (op == SelectOpCode::diag) {
      from = p;
      to = on ? p + 1 : p;
    } else if (on) {
      h = p;
    }
  }
  sizes[r] = to - from - (h >= 0 ? I(1) : I(0));
  first[r] = from;
  hole[r] = h;
}

/// One thread per entry e of T: its row (searched within its tile's rows), then its source
/// entry, from[r] + its place in the row, one further past the hole.
template <class V, class I>
__global__ void k_select_ranges_copy(std::size_t total, const I* out_rp, const I* tile_row,
                                     const I* first, const I* hole, const I* ci, const V* x,
                                     I* o_ci, V* o_v) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= total) return;
  const I r = row_in_tile(out_rp, tile_row, Policy::block, e);
  I src = first[r] + (I(e) - out_rp[r]);
  const I h = hole[r];
  if (h >= 0 && src >= h) ++src;
  o_ci[e] = ci[src];
  o_v[e] = x[src];
}

template <class V, class I>
Matrix select_positional(const Matrix& A, SelectOpCode op, std::int64_t k, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const std::size_t n = std::size_t(A.nrows());
  device_array<I> rp(n + 1, ctx), first(n, ctx), hole(n, ctx);
  if (n == 0 || A.nnz() == 0) {
    rp.fill_zero(ctx);
  } else {
    k_select_ranges<I><<<blocks_for(n), Policy::block, 0, s>>>(I(n), op, k, A.row_ptr().as<I>(),
                                                               A.col_idx().as<I>(), rp.data(),
                                                               first.data(), hole.data());
    RINGBLAS_CHECK_LAUNCH("k_select_ranges", s, ctx.debug_sync);
  }
  const I total = exclusive_scan_total(rp.data(), n + 1, ctx);
  device_array<I> ci(std::size_t(total), ctx);
  device_array<V> vals(std::size_t(total), ctx);
  if (total > 0) {
    const device_array<I> tiles =
        tile_rows(rp.data(), I(n), std::size_t(total), Policy::block, ctx);
    k_select_ranges_copy<V, I><<<blocks_for(std::size_t(total)), Policy::block, 0, s>>>(
        std::size_t(total), rp.data(), tiles.data(), first.data(), hole.data(), A.col_idx().as<I>(),
        A.values().as<V>(), ci.data(), vals.data());
    RINGBLAS_CHECK_LAUNCH("k_select_ranges_copy", s, ctx.debug_sync);
  }
  return Matrix::from_buffers(Index(n), A.ncols(), A.type(), index_type_of<I>::value, Index(total),
                              rp.release(), ci.release(), vals.release());
}

/// The value predicate at entry p (DeviceSelect's predicate on positions).
template <class V, class I>
struct keeps_at {
  SelectArgs<V> a;
  const V* x;
  __device__ bool operator()(I p) const { return select_keeps(a, x[p], 0, 0); }
};

/// Columns and values of the kept entries, by their source positions (increasing: nearly
/// sequential reads).
template <class V, class I>
__global__ void k_gather_kept(std::size_t kept, const I* pos, const I* ci, const V* x, I* o_ci,
                              V* o_v) {
  const std::size_t q = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= kept) return;
  const I p = pos[q];
  o_ci[q] = ci[p];
  o_v[q] = x[p];
}

/// out_rp[r] = number of kept source positions below rp[r], for r <= n.
template <class I>
__global__ void k_kept_below(std::size_t nrows, const I* rp, const I* kept_pos, I kept, I* out_rp) {
  const std::size_t r = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r > nrows) return;
  const I bound = rp[r];
  I lo = 0, hi = kept;
  while (lo < hi) {
    const I mid = lo + (hi - lo) / 2;
    if (kept_pos[mid] < bound)
      lo = mid + 1;
    else
      hi = mid;
  }
  out_rp[r] = lo;
}

template <class V, class I>
Matrix select_values(const Matrix& A, const SelectArgs<V>& args, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const std::size_t n = std::size_t(A.nrows()), nnz = std::size_t(A.nnz());
  const V* x = A.values().as<V>();
  // The kept positions, in order (one pass reading the values), then their count (the host read).
  device_array<I> pos(nnz, ctx), count(1, ctx);
  I kept = 0;
  if (nnz > 0) {
    const thrust::counting_iterator<I> positions(0);
    std::size_t bytes = 0;
    RINGBLAS_CUDA_TRY(cub::DeviceSelect::If(nullptr, bytes, positions, pos.data(), count.data(),
                                            std::int64_t(nnz), keeps_at<V, I>{args, x}, s));
    device_array<unsigned char> tmp(bytes, ctx);
    RINGBLAS_CUDA_TRY(cub::DeviceSelect::If(tmp.data(), bytes, positions, pos.data(), count.data(),
                                            std::int64_t(nnz), keeps_at<V, I>{args, x}, s));
    kept = read_value(count.data(), ctx);
  }
  device_array<I> rp(n + 1, ctx), ci(std::size_t(kept), ctx);
  device_array<V> vals(std::size_t(kept), ctx);
  if (kept > 0) {
    k_gather_kept<V, I><<<blocks_for(std::size_t(kept)), Policy::block, 0, s>>>(
        std::size_t(kept), pos.data(), A.col_idx().as<I>(), x, ci.data(), vals.data());
    RINGBLAS_CHECK_LAUNCH("k_gather_kept", s, ctx.debug_sync);
    k_kept_below<I><<<blocks_for(n + 1), Policy::block, 0, s>>>(n, A.row_ptr().as<I>(), pos.data(),
                                                                kept, rp.data());
    RINGBLAS_CHECK_LAUNCH("k_kept_below", s, ctx.debug_sync);
  } else {
    rp.fill_zero(ctx);
  }
  return Matrix::from_buffers(Index(n), A.ncols(), A.type(), index_type_of<I>::value, Index(kept),
                              rp.release(), ci.release(), vals.release());
}

template <class V, class I>
Matrix select_typed(const Matrix& A, SelectOpCode op, const Scalar& thunk, const Context& ctx) {
  if (select_is_positional(op))
    return select_positional<V, I>(A, op, thunk.as<std::int64_t>(), ctx);
  return select_values<V, I>(A, select_args<V>(op, thunk), ctx);
}

}  // namespace

Matrix select(const Matrix& A, SelectOpCode op, const Scalar& thunk, const Context& ctx) {
  if (op == SelectOpCode::row_topk || op == SelectOpCode::col_topk)
    throw InvalidValue("cuda elementwise::select: top-k goes through row_topk");
  if (A.location() != Location::device)
    throw InvalidValue("cuda elementwise::select: the operand must be on the device");
  return visit_type(A.type(), [&](auto v) {
    return visit_index_type(A.index_type(), [&](auto i) {
      return select_typed<decltype(v), decltype(i)>(A, op, thunk, ctx);
    });
  });
}

}  // namespace ringblas::cuda::elementwise
