// Element-wise add / multiply of two CSR matrices and the Kronecker product, on the device.
//
// merge, short rows: one thread per row walks the two sorted rows together (merge_rows /
// intersect_rows of common/row_merge.cuh, the walk cuda::write_back uses too). Long rows
// (Policy::merge_warp_min_avg): one warp per row, lanes take 32 entries of A (then of B) at a
// time and binary-search each in the other row; warp ballots count the common columns, and an
// entry's place in the sorted union is (its index in its row) + (entries of the other row before
// it) - (common columns before it). Both: count, exclusive scan (CUB), fill.
// kronecker: row counts lenA(ia) x lenB(ib), scan, then one thread per output entry.
// No shared memory. Output rows are sorted with no duplicates because the inputs' rows are.
#include <string>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/elementwise/agent.cuh"
#include "backend/cuda/elementwise/elementwise.hpp"
#include "backend/cuda/elementwise/launch.cuh"
#include "ringblas/error.hpp"

namespace ringblas::cuda::elementwise {
namespace {

/// Fill = false: out_rp[r] = entries of row r of T. Fill = true: writes them from out_rp[r].
template <class V, class I, bool Union, bool Fill>
__global__ void k_merge(Index nrows, BinaryOpCode op, const I* a_rp, const I* a_ci, const V* a_v,
                        const I* b_rp, const I* b_ci, const V* b_v, I* out_rp, I* o_ci, V* o_v) {
  const Index r = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  I o = Fill ? out_rp[r] : I(0);
  auto emit = [&](I j, I pa, I pb) {
    if constexpr (Fill) {
      o_ci[o] = j;
      if (pa >= 0 && pb >= 0)
        o_v[o] = binary_op_at<V>(op, a_v[pa], b_v[pb], r, j, r, j);
      else
        o_v[o] = pa >= 0 ? a_v[pa] : b_v[pb];
    }
    ++o;
  };
  if constexpr (Union)
    merge_rows(a_ci, a_rp[r], a_rp[r + 1], b_ci, b_rp[r], b_rp[r + 1], emit);
  else
    intersect_rows(a_ci, a_rp[r], a_rp[r + 1], b_ci, b_rp[r], b_rp[r + 1], emit);
  if constexpr (!Fill) out_rp[r] = o;
}

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

/// One warp per row. Fill = false: out_rp[r] = entries of row r of T. Fill = true: writes them.
template <class V, class I, bool Union, bool Fill>
__global__ void k_merge_warp(Index nrows, BinaryOpCode op, const I* a_rp, const I* a_ci,
                             const V* a_v, const I* b_rp, const I* b_ci, const V* b_v, I* out_rp,
                             I* o_ci, V* o_v) {
  const Index r = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32, below = (1u << lane) - 1u;
  if (r >= nrows) return;  // r is the same for the whole warp
  const I a0 = a_rp[r], a1 = a_rp[r + 1], b0 = b_rp[r], b1 = b_rp[r + 1];
  const I base = Fill ? out_rp[r] : I(0);
  I common = 0;  // entries of A found in B so far in this row (the same in every lane)
  for (I s = a0; s < a1; s += 32) {
    const I p = s + I(lane);
    bool found = false;
    I lb = b0;
    if (p < a1) {
      lb = lower_bound_in(b_ci, b0, b1, a_ci[p]);
      found = lb < b1 && b_ci[lb] == a_ci[p];
    }
    const unsigned hits = __ballot_sync(0xffffffffu, found);
    if constexpr (Fill) {
      const I before = common + I(__popc(hits & below));
      if (p < a1 && (Union || found)) {
        const I pos = Union ? base + (p - a0) + (lb - b0) - before : base + before;
        const I j = a_ci[p];
        o_ci[pos] = j;
        o_v[pos] = found ? binary_op_at<V>(op, a_v[p], b_v[lb], r, j, r, j) : a_v[p];
      }
    }
    common += I(__popc(hits));
  }
  if constexpr (Fill && Union) {
    I seen = 0;  // entries of B found in A so far
    for (I s = b0; s < b1; s += 32) {
      const I q = s + I(lane);
      bool found = false;
      I lb = a0;
      if (q < b1) {
        lb = lower_bound_in(a_ci, a0, a1, b_ci[q]);
        found = lb < a1 && a_ci[lb] == b_ci[q];
      }
      const unsigned hits = __ballot_sync(0xffffffffu, found);
      if (q < b1 && !found) {
        const I pos = base + (q - b0) + (lb - a0) - (seen + I(__popc(hits & below)));
        o_ci[pos] = b_ci[q];
        o_v[pos] = b_v[q];
      }
      seen += I(__popc(hits));
    }
  }
  if constexpr (!Fill)
    if (lane == 0) out_rp[r] = Union ? (a1 - a0) + (b1 - b0) - common : common;
}

template <class V, class I, bool Union>
Matrix merge_typed(const Matrix& A, const Matrix& B, BinaryOpCode op, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const Index n = A.nrows();
  device_array<I> rp(std::size_t(n) + 1, ctx);
  rp.fill_zero(ctx);
  const unsigned grid = blocks_for(std::size_t(n));
  const I *a_rp = A.row_ptr().as<I>(), *a_ci = A.col_idx().as<I>();
  const I *b_rp = B.row_ptr().as<I>(), *b_ci = B.col_idx().as<I>();
  const bool warp =
      n > 0 && double(A.nnz() + B.nnz()) >= double(Policy::merge_warp_min_avg) * double(n);
  const unsigned wgrid = blocks_for(std::size_t(n) * 32);
  if (n > 0 && warp) {
    k_merge_warp<V, I, Union, false><<<wgrid, Policy::block, 0, s>>>(
        n, op, a_rp, a_ci, nullptr, b_rp, b_ci, nullptr, rp.data(), nullptr, nullptr);
    RINGBLAS_CHECK_LAUNCH("k_merge_warp<count>", s, ctx.debug_sync);
  } else if (n > 0) {
    k_merge<V, I, Union, false><<<grid, Policy::block, 0, s>>>(
        n, op, a_rp, a_ci, nullptr, b_rp, b_ci, nullptr, rp.data(), nullptr, nullptr);
    RINGBLAS_CHECK_LAUNCH("k_merge<count>", s, ctx.debug_sync);
  }
  const I nnz = exclusive_scan_total(rp.data(), std::size_t(n) + 1, ctx);
  device_array<I> ci(std::size_t(nnz), ctx);
  device_array<V> vals(std::size_t(nnz), ctx);
  if (nnz > 0 && warp) {
    k_merge_warp<V, I, Union, true>
        <<<wgrid, Policy::block, 0, s>>>(n, op, a_rp, a_ci, A.values().as<V>(), b_rp, b_ci,
                                         B.values().as<V>(), rp.data(), ci.data(), vals.data());
    RINGBLAS_CHECK_LAUNCH("k_merge_warp<fill>", s, ctx.debug_sync);
  } else if (nnz > 0) {
    k_merge<V, I, Union, true><<<grid, Policy::block, 0, s>>>(n, op, a_rp, a_ci, A.values().as<V>(),
                                                              b_rp, b_ci, B.values().as<V>(),
                                                              rp.data(), ci.data(), vals.data());
    RINGBLAS_CHECK_LAUNCH("k_merge<fill>", s, ctx.debug_sync);
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
/// pointers, then its pair (pa, pb) from its place t in the row: pa = t / lenB, pb = t % lenB.
template <class V, class I>
__global__ void k_kron_fill(std::size_t nnz, I nrows, Index mb, Index nb, BinaryOpCode op,
                            const I* a_rp, const I* a_ci, const V* a_v, const I* b_rp,
                            const I* b_ci, const V* b_v, const I* out_rp, I* o_ci, V* o_v) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= nnz) return;
  const I r = row_of(out_rp, nrows, I(e));
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
    k_kron_fill<V, I><<<blocks_for(std::size_t(nnz)), Policy::block, 0, s>>>(
        std::size_t(nnz), I(n), mb, nb, op, A.row_ptr().as<I>(), A.col_idx().as<I>(),
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
