// Variant row_filter of the element-wise family: the entries of A that a per-entry test keeps,
// row by row, with a value written for each. Two passes over A and no intermediate array of
// A's size (issue 9: select and masked apply at copy bandwidth):
//   count: a group of G lanes per row reads only what the test needs (the values, or the mask's
//          values) and writes the row's count;
//   scan:  CUB exclusive sum of the counts (the one host read, nnz(T));
//   fill:  the same groups read the row's columns and values, Policy::items chunks of G at a
//          time (their loads in flight together), and write the kept entries by a ballot.
// Bytes for nnz entries of 4-byte values and indices, a fraction k kept: 4 nnz (count) + 8 nnz
// (fill reads) + 8 k nnz (writes), against 8 nnz + 8 k nnz ideal; select's DeviceSelect path
// writes and re-reads 4 k nnz positions besides and gathers by position.
// G = 32 when rows average at least Policy::merge_warp_min_avg entries, else 8 (short rows would
// leave most of a warp idle). Rows stay in column order. No shared memory.
#include <cstdint>
#include <string>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/group_select.cuh"
#include "backend/cuda/elementwise/agent.cuh"
#include "backend/cuda/elementwise/elementwise.hpp"
#include "backend/cuda/elementwise/launch.cuh"
#include "ringblas/error.hpp"

namespace ringblas::cuda::elementwise {
namespace {

/// select by value: keeps entry p when the predicate holds for its value.
template <class V>
struct KeepByValue {
  SelectArgs<V> a;
  const V* x;
  __device__ bool operator()(std::size_t p) const { return select_keeps(a, x[p], 0, 0); }
};

/// A value mask with A's pattern: keeps entry p when the mask's value p is nonzero (GrB's cast
/// of a mask value to bool), or when it is zero for a complemented mask. Read as an unsigned word
/// of the mask type's width (1, 4 or 8 bytes; uniform across the grid), `magnitude` clearing a
/// float's sign bit (-0 is zero, NaN is not), so that the mask's type costs no instantiations.
struct KeepByMask {
  const void* m;
  int width;
  std::uint64_t magnitude;
  bool complement;
  __device__ bool operator()(std::size_t p) const {
    const std::uint64_t w = width == 1   ? static_cast<const std::uint8_t*>(m)[p]
                            : width == 4 ? static_cast<const std::uint32_t*>(m)[p]
                                         : static_cast<const std::uint64_t*>(m)[p];
    return ((w & magnitude) != 0) != complement;
  }
};

/// The kept entry's value unchanged.
template <class V>
struct EmitCopy {
  const V* x;
  __device__ V operator()(std::size_t p, std::int64_t, std::int64_t) const { return x[p]; }
};

/// map_value out of line: inlined into k_row_fill's row loop, its switches over the map's
/// runtime kind and operator are loop-invariant, and the compiler copied the loop for each case
/// (cicc ran for over 15 minutes on this file); a call per kept entry costs a few instructions
/// of a pass bound by memory.
template <class V>
__device__ __noinline__ V map_value_out_of_line(MapArgs<V> a, V x, std::int64_t i,
                                                std::int64_t j) {
  return map_value(a, x, i, j);
}

/// The kept entry's value mapped (apply: z = f(a, i, j)).
template <class V>
struct EmitMap {
  MapArgs<V> a;
  const V* x;
  __device__ V operator()(std::size_t p, std::int64_t i, std::int64_t j) const {
    return map_value_out_of_line(a, x[p], i, j);
  }
};

/// A group of G lanes per row: out_rp[r] = entries of row r that keep(p) keeps. Lanes count on
/// their own and reduce once, so that nothing orders the loads of a long row.
template <int G, class I, class Keep>
__global__ void __launch_bounds__(Policy::block)
    k_row_count(Index nrows, const I* rp, Keep keep, I* out_rp) {
  const Index r = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / G;
  if (r >= nrows) return;  // r is the same for the whole group
  const unsigned lane = threadIdx.x % G;
  const I e = rp[r + 1];
  unsigned n = 0;
#pragma unroll 4
  for (I p = rp[r] + I(lane); p < e; p += I(G)) n += keep(std::size_t(p)) ? 1u : 0u;
  const unsigned total = __reduce_add_sync(group_mask<G>(), n);
  if (lane == 0) out_rp[r] = I(total);
}

/// The same groups write row r's kept entries (column, emit(p, r, column)) from out_rp[r] on,
/// Policy::items chunks of G at a time: every chunk's loads first (they do not depend on the
/// write positions), then a ballot per chunk.
template <int G, class V, class I, class Keep, class Emit>
__global__ void __launch_bounds__(Policy::block)
    k_row_fill(Index nrows, const I* rp, const I* ci, Keep keep, Emit emit, const I* out_rp,
               I* o_ci, V* o_v) {
  const Index r = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / G;
  if (r >= nrows) return;
  const unsigned lane = threadIdx.x % G, gm = group_mask<G>(), below = lanes_below_me() & gm;
  const I b = rp[r], e = rp[r + 1];
  constexpr int U = Policy::items;
  I o = out_rp[r];
  for (I base = b; base < e; base += I(G * U)) {  // the bounds are the group's: uniform
    bool k[U];
    I c[U];
    V z[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const I p = base + I(u * G) + I(lane);
      k[u] = p < e && keep(std::size_t(p));
      if (k[u]) {
        c[u] = ci[p];
        z[u] = emit(std::size_t(p), std::int64_t(r), std::int64_t(c[u]));
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const unsigned hits = __ballot_sync(gm, k[u]) & gm;
      if (k[u]) {
        const I at = o + I(__popc(hits & below));
        o_ci[at] = c[u];
        o_v[at] = z[u];
      }
      o += I(__popc(hits));
    }
  }
}

/// Both passes at group size G (a warp, or 8 lanes for short rows).
template <int G, class V, class I, class Keep, class Emit>
struct RowFilter {
  static void count(const Matrix& A, Keep keep, I* out_rp, const Context& ctx) {
    cudaStream_t s = stream_of(ctx);
    const Index n = A.nrows();
    k_row_count<G, I><<<blocks_for(std::size_t(n) * G), Policy::block, 0, s>>>(
        n, A.row_ptr().as<I>(), keep, out_rp);
    RINGBLAS_CHECK_LAUNCH("k_row_count", s, ctx.debug_sync);
  }
  static void fill(const Matrix& A, Keep keep, Emit emit, const I* out_rp, I* o_ci, V* o_v,
                   const Context& ctx) {
    cudaStream_t s = stream_of(ctx);
    const Index n = A.nrows();
    k_row_fill<G, V, I><<<blocks_for(std::size_t(n) * G), Policy::block, 0, s>>>(
        n, A.row_ptr().as<I>(), A.col_idx().as<I>(), keep, emit, out_rp, o_ci, o_v);
    RINGBLAS_CHECK_LAUNCH("k_row_fill", s, ctx.debug_sync);
  }
};

/// T = the entries of A (device) that keep(p) keeps, valued emit(p, i, j), in A's types.
template <class V, class I, class Keep, class Emit>
Matrix filter_rows(const Matrix& A, Keep keep, Emit emit, const Context& ctx) {
  using Warp = RowFilter<32, V, I, Keep, Emit>;
  using Eight = RowFilter<8, V, I, Keep, Emit>;
  const Index n = A.nrows();
  const bool warp = n > 0 && double(A.nnz()) >= double(Policy::merge_warp_min_avg) * double(n);
  device_array<I> rp(std::size_t(n) + 1, ctx);
  if (n > 0 && A.nnz() > 0)
    warp ? Warp::count(A, keep, rp.data(), ctx) : Eight::count(A, keep, rp.data(), ctx);
  else
    rp.fill_zero(ctx);
  // rp[n] is never read: the scan's last output is the sum of the n counts before it.
  const I nnz = exclusive_scan_total(rp.data(), std::size_t(n) + 1, ctx);
  device_array<I> ci(std::size_t(nnz), ctx);
  device_array<V> vals(std::size_t(nnz), ctx);
  if (nnz > 0) {
    if (warp)
      Warp::fill(A, keep, emit, rp.data(), ci.data(), vals.data(), ctx);
    else
      Eight::fill(A, keep, emit, rp.data(), ci.data(), vals.data(), ctx);
  }
  return Matrix::from_buffers(n, A.ncols(), A.type(), index_type_of<I>::value, Index(nnz),
                              rp.release(), ci.release(), vals.release());
}

void require_device(const Matrix& A, const char* where) {
  if (A.location() != Location::device)
    throw InvalidValue(std::string(where) + ": the operand must be on the device");
}

}  // namespace

Matrix select_rows(const Matrix& A, SelectOpCode op, const Scalar& thunk, const Context& ctx) {
  require_device(A, "cuda elementwise::select_rows");
  if (select_is_positional(op) || op == SelectOpCode::row_topk || op == SelectOpCode::col_topk)
    throw InvalidValue("cuda elementwise::select_rows: value predicates only");
  return visit_type(A.type(), [&](auto v) {
    return visit_index_type(A.index_type(), [&](auto i) {
      using V = decltype(v);
      const V* x = A.values().as<V>();
      return filter_rows<V, decltype(i)>(A, KeepByValue<V>{select_args<V>(op, thunk), x},
                                         EmitCopy<V>{x}, ctx);
    });
  });
}

Matrix map_value_masked(const Matrix& A, const Matrix& M, bool complement, const MapOp& f,
                        const Context& ctx) {
  require_device(A, "cuda elementwise::map_value_masked");
  require_device(M, "cuda elementwise::map_value_masked (mask)");
  if (M.nnz() != A.nnz() || M.nrows() != A.nrows())
    throw InvalidValue("cuda elementwise::map_value_masked: the mask must have A's pattern");
  const bool is_float = M.type() == Type::fp32 || M.type() == Type::fp64;
  const int width = int(type_size(M.type()));
  const std::uint64_t all = width == 8 ? ~std::uint64_t(0) : (std::uint64_t(1) << (8 * width)) - 1;
  const KeepByMask keep{M.values().data(), width,
                        is_float ? all >> 1 : all,  // a float's sign bit cleared
                        complement};
  // The identity (a masked copy, Markov clustering's pruning) copies values without the call.
  const bool copy = f.kind == MapOp::Kind::unary && f.unary == UnaryOpCode::identity;
  return visit_type(A.type(), [&](auto v) {
    return visit_index_type(A.index_type(), [&](auto i) {
      using V = decltype(v);
      using I = decltype(i);
      const V* x = A.values().as<V>();
      return copy ? filter_rows<V, I>(A, keep, EmitCopy<V>{x}, ctx)
                  : filter_rows<V, I>(A, keep, EmitMap<V>{map_args<V>(f), x}, ctx);
    });
  });
}

}  // namespace ringblas::cuda::elementwise
