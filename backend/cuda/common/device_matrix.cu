// Device-side operand preparation: index widening/narrowing, value casts, transposes
// (transpose.cu), and value masks filtered to their structure.

#include <cstdint>
#include <string>
#include <type_traits>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/common/scan_total.cuh"
#include "ringblas/error.hpp"
#include "semirings/cast.hpp"

namespace ringblas::cuda {
namespace {

constexpr int block = 256;

template <class To, class From>
__global__ void k_convert(std::size_t n, const From* in, To* out) {
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<To>(in[i]);
}

template <class To, class From>
__global__ void k_cast_values(std::size_t n, const From* in, To* out) {
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sr::cast<To, From>(in[i]);
}

/// The entries of a value mask whose value is nonzero, a warp per row (coalesced; long rows in
/// chunks of 32, kept entries placed by ballots). Fill = false: counts[r]; true: writes them.
template <class V, class I, bool Fill>
__global__ void k_mask_rows(Index nrows, const I* rp, const I* ci, const V* v, I* out_rp,
                            I* out_ci) {
  const Index r = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31u;
  if (r >= nrows) return;  // uniform across the warp
  const I e = rp[r + 1];
  I o = Fill ? out_rp[r] : I(0);
  // Unrolled so that a long row's loads of several chunks are in flight at once (each chunk's
  // place depends on the previous one's count, its loads do not).
#pragma unroll 4
  for (I base = rp[r]; base < e; base += 32) {
    const I p = base + I(lane);
    const bool keep = p < e && v[p] != V(0);
    const unsigned ballot = __ballot_sync(0xffffffffu, keep);
    if (Fill && keep) out_ci[o + I(__popc(ballot & ((1u << lane) - 1u)))] = ci[p];
    o += I(__popc(ballot));
  }
  if (!Fill && lane == 0) out_rp[r] = o;
}

template <class To, class From>
Buffer convert_buffer(const Buffer& in, std::size_t n, const Context& ctx) {
  Buffer out(n * sizeof(To), Location::device, &ctx);
  if (n == 0) return out;
  k_convert<To, From>
      <<<grid_for(n, block), block, 0, stream_of(ctx)>>>(n, in.as<From>(), out.as<To>());
  RINGBLAS_CHECK_LAUNCH("k_convert", stream_of(ctx), ctx.debug_sync);
  return out;
}

void require_device(const Matrix& a, const char* where) {
  if (a.location() != Location::device)
    throw InvalidValue(std::string(where) + ": the matrix must be on the device");
}

template <class V, class I>
DeviceMask value_mask_typed(const Matrix& m, DeviceMask out, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const Index n = m.nrows();
  device_array<I> rp(std::size_t(n) + 1, ctx);
  rp.fill_zero(ctx);
  const unsigned warps = grid_for(std::size_t(n) * 32, block);
  if (n > 0) {
    k_mask_rows<V, I, false><<<warps, block, 0, s>>>(n, m.row_ptr().as<I>(), m.col_idx().as<I>(),
                                                     m.values().as<V>(), rp.data(), nullptr);
    RINGBLAS_CHECK_LAUNCH("k_mask_rows<count>", s, ctx.debug_sync);
  }
  const I nnz = exclusive_scan_total(rp.data(), std::size_t(n) + 1, ctx);
  device_array<I> ci(std::size_t(nnz), ctx);
  if (n > 0 && nnz > 0) {
    k_mask_rows<V, I, true><<<warps, block, 0, s>>>(n, m.row_ptr().as<I>(), m.col_idx().as<I>(),
                                                    m.values().as<V>(), rp.data(), ci.data());
    RINGBLAS_CHECK_LAUNCH("k_mask_rows<fill>", s, ctx.debug_sync);
  }
  out.nnz = Index(nnz);
  out.row_ptr = rp.release();
  out.col_idx = ci.release();
  return out;
}

}  // namespace

Matrix with_index_type(Matrix a, IndexType it, const Context& ctx) {
  require_device(a, "cuda::with_index_type");
  if (a.index_type() == it) return a;
  const Index lim = Index(1) << 31;
  if (it == IndexType::i32 && (a.nnz() >= lim || a.nrows() >= lim || a.ncols() >= lim))
    throw InvalidValue("cuda::with_index_type: " + std::to_string(a.nnz()) + " entries of a " +
                       std::to_string(a.nrows()) + "x" + std::to_string(a.ncols()) +
                       " matrix do not fit 32-bit indices");
  const std::size_t nr = std::size_t(a.nrows()) + 1, nz = std::size_t(a.nnz());
  Buffer rp, ci;
  if (it == IndexType::i64) {
    rp = convert_buffer<std::int64_t, std::int32_t>(a.row_ptr(), nr, ctx);
    ci = convert_buffer<std::int64_t, std::int32_t>(a.col_idx(), nz, ctx);
  } else {
    rp = convert_buffer<std::int32_t, std::int64_t>(a.row_ptr(), nr, ctx);
    ci = convert_buffer<std::int32_t, std::int64_t>(a.col_idx(), nz, ctx);
  }
  Index nrows = a.nrows(), ncols = a.ncols(), nnz = a.nnz();
  Type t = a.type();
  return Matrix::from_buffers(nrows, ncols, t, it, nnz, std::move(rp), std::move(ci),
                              std::move(a.values()));
}

Matrix cast_values(Matrix a, Type t, const Context& ctx) {
  require_device(a, "cuda::cast_values");
  if (a.type() == t) return a;
  const std::size_t n = std::size_t(a.nnz());
  Buffer out(type_size(t) * n, Location::device, &ctx);
  if (n > 0) {
    visit_type(t, [&](auto to) {
      visit_type(a.type(), [&](auto from) {
        using To = decltype(to);
        using From = decltype(from);
        k_cast_values<To, From><<<grid_for(n, block), block, 0, stream_of(ctx)>>>(
            n, a.values().as<From>(), out.as<To>());
      });
    });
    RINGBLAS_CHECK_LAUNCH("k_cast_values", stream_of(ctx), ctx.debug_sync);
  }
  Index nrows = a.nrows(), ncols = a.ncols(), nnz = a.nnz();
  IndexType it = a.index_type();
  return Matrix::from_buffers(nrows, ncols, t, it, nnz, std::move(a.row_ptr()),
                              std::move(a.col_idx()), std::move(out));
}

const Matrix& prepare_operand(const Matrix& a, bool transposed, IndexType it,
                              std::optional<Type> values, Matrix& hold, const Context& ctx) {
  const Matrix* cur = &a;
  auto keep = [&](Matrix m) {
    hold = std::move(m);
    cur = &hold;
  };
  // A host matrix without entries (say an output just constructed) is made on the device: there
  // is nothing to copy, and the trace and transfer counters then show no copy.
  if (cur->location() != Location::device)
    keep(cur->nnz() == 0 ? empty_device_matrix(a.nrows(), a.ncols(), a.type(), it, ctx)
                         : cur->to(Location::device, ctx));
  if (cur->index_type() != it) {
    if (cur == &a)
      keep(with_index_type(Matrix(a), it, ctx));
    else
      keep(with_index_type(std::move(hold), it, ctx));
  }
  if (transposed) keep(transpose(*cur, ctx));
  if (values && cur->type() != *values) {
    if (cur == &a)
      keep(cast_values(Matrix(a), *values, ctx));
    else
      keep(cast_values(std::move(hold), *values, ctx));
  }
  return *cur;
}

DeviceMask make_device_mask(const Matrix* M, bool structure, bool complement, IndexType it,
                            const Context& ctx) {
  DeviceMask out;
  out.complement = complement;
  out.itype = it;
  if (!M) return out;
  out.present = true;
  out.nrows = M->nrows();
  out.ncols = M->ncols();
  Matrix hold;
  const Matrix& m = prepare_operand(*M, false, it, std::nullopt, hold, ctx);
  if (structure) {
    out.nnz = m.nnz();
    if (&m == &hold) {
      out.row_ptr = std::move(hold.row_ptr());
      out.col_idx = std::move(hold.col_idx());
    } else {
      out.row_ptr = m.row_ptr();
      out.col_idx = m.col_idx();
    }
    return out;
  }
  return visit_type(m.type(), [&](auto v) {
    return visit_index_type(it, [&](auto i) {
      return value_mask_typed<decltype(v), decltype(i)>(m, std::move(out), ctx);
    });
  });
}

Matrix empty_device_matrix(Index nrows, Index ncols, Type t, IndexType it, const Context& ctx) {
  Buffer rp(index_size(it) * std::size_t(nrows + 1), Location::device, &ctx);
  RINGBLAS_CUDA_TRY(cudaMemsetAsync(rp.data(), 0, rp.size(), stream_of(ctx)));
  return Matrix::from_buffers(nrows, ncols, t, it, 0, std::move(rp),
                              Buffer(0, Location::device, &ctx), Buffer(0, Location::device, &ctx));
}

}  // namespace ringblas::cuda
