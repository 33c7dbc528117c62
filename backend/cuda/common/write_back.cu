// C<M, replace> = C accum T on the device: one thread per row merges the sorted rows of C, T and
// the structural mask (merge_rows in row_merge.cuh, shared with the element-wise family), in two
// passes (count, then fill after an exclusive scan). Output rows are sorted with no duplicates
// because all three inputs are. An empty C (the common case: a fresh output) takes a warp per
// row that filters T by the mask instead.
#include <cstdint>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/row_merge.cuh"
#include "backend/cuda/common/scan_total.cuh"
#include "backend/cuda/common/write_back.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda {
namespace {

constexpr int block = 128;

struct WriteBackArgs {
  Index nrows;
  bool has_mask, complement, has_accum, replace;
  BinaryOpCode accum;
};

/// Fill = false: counts[r] = entries of output row r. Fill = true: writes them at out_rp[r].
template <class V, class I, bool Fill>
__global__ void k_write_back(WriteBackArgs a, const I* c_rp, const I* c_ci, const V* c_v,
                             const I* t_rp, const I* t_ci, const V* t_v, const I* m_rp,
                             const I* m_ci, I* out_rp, I* o_ci, V* o_v) {
  Index r = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= a.nrows) return;
  I pc = c_rp[r], ce = c_rp[r + 1], pt = t_rp[r], te = t_rp[r + 1];
  I pm = 0, me = 0;
  if (a.has_mask) {
    pm = m_rp[r];
    me = m_rp[r + 1];
  }
  I o = Fill ? out_rp[r] : I(0);
  merge_rows(c_ci, pc, ce, t_ci, pt, te, [&](I j, I qc, I qt) {
    const bool has_c = qc >= 0, has_t = qt >= 0;
    bool allowed = !a.complement;
    if (a.has_mask) {
      while (pm < me && m_ci[pm] < j) ++pm;
      allowed = (pm < me && m_ci[pm] == j) != a.complement;
    }
    bool emit = false;
    V z{};
    if (allowed) {
      if (has_t && has_c) {
        emit = true;
        // Positional accumulators are rejected on the host, so the indices are never read.
        if constexpr (Fill)
          z = a.has_accum ? binary_op_at<V>(a.accum, c_v[qc], t_v[qt], 0, 0, 0, 0) : t_v[qt];
      } else if (has_t) {
        emit = true;
        if constexpr (Fill) z = t_v[qt];
      } else if (a.has_accum) {
        emit = true;
        if constexpr (Fill) z = c_v[qc];
      }
    } else if (has_c && !a.replace) {
      emit = true;
      if constexpr (Fill) z = c_v[qc];
    }
    if (emit) {
      if constexpr (Fill) {
        o_ci[o] = j;
        o_v[o] = z;
      }
      ++o;
    }
  });
  if constexpr (!Fill) out_rp[r] = o;
}

/// C empty: C<M> = T keeps the entries of T the mask admits, whatever the accumulator and
/// replace (C has no entry to accumulate into or keep). A warp per row, a binary search of each
/// T entry in the mask's row: entry-parallel, so long rows (Markov clustering's expansions) do
/// not serialise on one thread as the three-way merge does. Fill = false counts, true writes.
template <class V, class I, bool Fill>
__global__ void k_filter_rows(Index nrows, bool has_mask, bool complement, const I* t_rp,
                              const I* t_ci, const V* t_v, const I* m_rp, const I* m_ci,
                              I* out_rp, I* o_ci, V* o_v) {
  const Index r = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31u;
  if (r >= nrows) return;  // uniform across the warp
  const I ts = t_rp[r], te = t_rp[r + 1];
  const I ms = has_mask ? m_rp[r] : I(0), me = has_mask ? m_rp[r + 1] : I(0);
  I o = Fill ? out_rp[r] : I(0);
  // Unrolled so that a long row's loads of several chunks are in flight at once.
#pragma unroll 4
  for (I base = ts; base < te; base += 32) {
    const I k = base + I(lane);
    bool keep = false;
    if (k < te) {
      bool found = false;
      if (has_mask) {
        const I j = t_ci[k];
        I lo = ms, hi = me;
        // The same place in the mask's row first: a mask with T's pattern (a masked copy, as
        // Markov clustering's pruning does) is found at once, else the probe halves the search.
        const I guess = ms + (k - ts);
        if (guess < me) {
          const I g = m_ci[guess];
          if (g == j)
            lo = hi = guess;
          else if (g < j)
            lo = guess + 1;
          else
            hi = guess;
        }
        while (lo < hi) {
          const I mid = lo + (hi - lo) / 2;
          if (m_ci[mid] < j) lo = mid + 1;
          else hi = mid;
        }
        found = lo < me && m_ci[lo] == j;
      }
      // No mask admits everything, and its complement nothing (GrB: an absent mask is all true).
      keep = has_mask ? found != complement : !complement;
    }
    const unsigned ballot = __ballot_sync(0xffffffffu, keep);
    if constexpr (Fill) {
      if (keep) {
        const I at = o + I(__popc(ballot & ((1u << lane) - 1u)));
        o_ci[at] = t_ci[k];
        o_v[at] = t_v[k];
      }
    }
    o += I(__popc(ballot));
  }
  if constexpr (!Fill)
    if (lane == 0) out_rp[r] = o;
}

template <class V, class I>
Matrix write_back_typed(const Matrix& C, const DeviceMask& mask, const WriteBackArgs& args,
                        const Matrix& T, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const Index n = C.nrows();
  device_array<I> rp(std::size_t(n) + 1, ctx);
  rp.fill_zero(ctx);
  const I* m_rp = mask.present ? mask.row_ptr.as<I>() : nullptr;
  const I* m_ci = mask.present ? mask.col_idx.as<I>() : nullptr;
  const unsigned grid = grid_for(std::size_t(n), block);
  if (C.nnz() == 0) {  // nothing to merge with: filter T's entries by the mask
    const unsigned wgrid = grid_for(std::size_t(n) * 32, block);
    const I* t_rp = T.row_ptr().as<I>();
    if (n > 0) {
      k_filter_rows<V, I, false><<<wgrid, block, 0, s>>>(n, args.has_mask, args.complement, t_rp,
                                                        T.col_idx().as<I>(), T.values().as<V>(),
                                                        m_rp, m_ci, rp.data(), nullptr, nullptr);
      RINGBLAS_CHECK_LAUNCH("k_filter_rows<count>", s, ctx.debug_sync);
    }
    const I nnz = exclusive_scan_total(rp.data(), std::size_t(n) + 1, ctx);
    device_array<I> ci(std::size_t(nnz), ctx);
    device_array<V> vals(std::size_t(nnz), ctx);
    if (n > 0 && nnz > 0) {
      k_filter_rows<V, I, true><<<wgrid, block, 0, s>>>(n, args.has_mask, args.complement, t_rp,
                                                       T.col_idx().as<I>(), T.values().as<V>(),
                                                       m_rp, m_ci, rp.data(), ci.data(),
                                                       vals.data());
      RINGBLAS_CHECK_LAUNCH("k_filter_rows<fill>", s, ctx.debug_sync);
    }
    return Matrix::from_buffers(n, C.ncols(), C.type(), index_type_of<I>::value, Index(nnz),
                                rp.release(), ci.release(), vals.release());
  }
  if (n > 0) {
    k_write_back<V, I, false><<<grid, block, 0, s>>>(
        args, C.row_ptr().as<I>(), C.col_idx().as<I>(), C.values().as<V>(), T.row_ptr().as<I>(),
        T.col_idx().as<I>(), T.values().as<V>(), m_rp, m_ci, rp.data(), nullptr, nullptr);
    RINGBLAS_CHECK_LAUNCH("k_write_back<count>", s, ctx.debug_sync);
  }
  // Reads back only the total (it used to copy all n + 1 row pointers to the host).
  const I nnz = exclusive_scan_total(rp.data(), std::size_t(n) + 1, ctx);
  device_array<I> ci(std::size_t(nnz), ctx);
  device_array<V> vals(std::size_t(nnz), ctx);
  if (n > 0 && nnz > 0) {
    k_write_back<V, I, true><<<grid, block, 0, s>>>(
        args, C.row_ptr().as<I>(), C.col_idx().as<I>(), C.values().as<V>(), T.row_ptr().as<I>(),
        T.col_idx().as<I>(), T.values().as<V>(), m_rp, m_ci, rp.data(), ci.data(), vals.data());
    RINGBLAS_CHECK_LAUNCH("k_write_back<fill>", s, ctx.debug_sync);
  }
  return Matrix::from_buffers(n, C.ncols(), C.type(), index_type_of<I>::value, Index(nnz),
                              rp.release(), ci.release(), vals.release());
}

}  // namespace

void write_back(Matrix& C, const DeviceMask& mask, Accum accum, bool replace, Matrix T,
                const Context& ctx) {
  if (accum && is_positional(*accum))
    throw NotImplemented("cuda write_back: positional accumulator " +
                         std::string(binary_op_name(*accum)) + " is not supported");
  if (T.location() != Location::device)
    throw InvalidValue("cuda write_back: T must be on the device");
  if (T.nrows() != C.nrows() || T.ncols() != C.ncols())
    throw DimensionMismatch("cuda write_back: T is " + std::to_string(T.nrows()) + "x" +
                            std::to_string(T.ncols()) + " but C is " +
                            std::to_string(C.nrows()) + "x" + std::to_string(C.ncols()));
  T = cast_values(std::move(T), C.type(), ctx);
  if (!needs_write_back(mask, accum)) {
    C = std::move(T);
    return;
  }
  // One index width for C, T and the mask: 64-bit when the merged result might need it.
  const Index lim = Index(1) << 31;
  IndexType it = T.index_type();
  if (C.index_type() == IndexType::i64 && C.nnz() + T.nnz() >= lim) it = IndexType::i64;
  if (mask.present && mask.itype != it) it = IndexType::i64;
  Matrix hold_c, hold_t;
  const Matrix& c = prepare_operand(C, false, it, std::nullopt, hold_c, ctx);
  const Matrix& t = prepare_operand(T, false, it, std::nullopt, hold_t, ctx);
  DeviceMask wide;
  const DeviceMask* m = &mask;
  if (mask.present && mask.itype != it) {
    // Widen the mask's arrays to the common width (rare: only when sizes need 64 bits).
    Matrix mm = Matrix::from_buffers(mask.nrows, mask.ncols, Type::boolean, mask.itype, mask.nnz,
                                     Buffer(mask.row_ptr), Buffer(mask.col_idx),
                                     Buffer(std::size_t(mask.nnz), Location::device, &ctx));
    wide = make_device_mask(&mm, true, mask.complement, it, ctx);
    m = &wide;
  }
  WriteBackArgs args{C.nrows(), m->present, m->complement, accum.has_value(), replace,
                     accum.value_or(BinaryOpCode::second)};
  Matrix out = visit_type(C.type(), [&](auto v) {
    return visit_index_type(it, [&](auto i) {
      return write_back_typed<decltype(v), decltype(i)>(c, *m, args, t, ctx);
    });
  });
  C = std::move(out);
}

}  // namespace ringblas::cuda
