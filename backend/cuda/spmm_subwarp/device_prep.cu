// Device-side preparation of SpMM / SpMV operands: index narrowing, typecasts, cuda::transpose.
#include <limits>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/spmm_subwarp/device_prep.hpp"
#include "semirings/cast.hpp"

namespace ringblas::cuda::detail {
namespace {

constexpr int kThreads = 256;
inline unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}
inline cudaStream_t stream_of(const Context& ctx) { return static_cast<cudaStream_t>(ctx.stream); }

template <class To, class From>
__global__ void cast_kernel(To* dst, const From* src, std::size_t n) {
  std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k < n) dst[k] = sr::cast<To>(src[k]);
}

__global__ void narrow_kernel(std::int32_t* dst, const std::int64_t* src, std::size_t n) {
  std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k < n) dst[k] = static_cast<std::int32_t>(src[k]);
}

__global__ void expand_rows_kernel(std::int32_t* rows, const std::int32_t* row_ptr, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p) rows[p] = i;
}

void require_fits(Index nrows, Index ncols, Index nnz, const char* op) {
  constexpr Index lim = std::numeric_limits<std::int32_t>::max() - 1;
  if (nrows > lim || ncols > lim || nnz > lim)
    throw NotImplemented(std::string(op) + ": the cuda kernels use 32-bit indices; a " +
                         std::to_string(nrows) + "x" + std::to_string(ncols) + " matrix with " +
                         std::to_string(nnz) + " entries does not fit");
}

}  // namespace

void cast_into(void* dst, Type to, const void* src, Type from, std::size_t n, Context& ctx) {
  if (n == 0) return;
  if (to == from) {
    RINGBLAS_CUDA_TRY(cudaMemcpyAsync(dst, src, n * type_size(to), cudaMemcpyDeviceToDevice,
                                      stream_of(ctx)));
    return;
  }
  visit_type(to, [&](auto t) {
    visit_type(from, [&](auto f) {
      using To = decltype(t);
      using From = decltype(f);
      cast_kernel<To, From><<<blocks_for(n), kThreads, 0, stream_of(ctx)>>>(
          static_cast<To*>(dst), static_cast<const From*>(src), n);
      RINGBLAS_CHECK_LAUNCH("cast_kernel", stream_of(ctx), ctx.debug_sync);
    });
  });
}

DevCsr device_csr(const Matrix& A, Type type, bool need_values, bool transpose, const char* op,
                  Context& ctx) {
  require_fits(A.nrows(), A.ncols(), A.nnz(), op);
  if (transpose) {
    // Aᵀ through the one shared transpose (backend/cuda/common/device_matrix.hpp), kept alive
    // by the DevCsr.
    Matrix hold;
    prepare_operand(A, true, IndexType::i32, need_values ? std::optional<Type>(type) : std::nullopt,
                    hold, ctx);
    DevCsr d;
    d.nrows = hold.nrows();
    d.ncols = hold.ncols();
    d.nnz = hold.nnz();
    d.type = type;
    d.device_copy = std::move(hold);
    d.row_ptr = d.device_copy->row_ptr().as<std::int32_t>();
    d.col_idx = d.device_copy->col_idx().as<std::int32_t>();
    if (need_values && d.nnz) d.values = d.device_copy->values().data();
    return d;
  }
  DevCsr d;
  d.nrows = A.nrows();
  d.ncols = A.ncols();
  d.nnz = A.nnz();
  d.type = type;
  const Matrix* src = &A;
  if (A.location() == Location::host) {
    d.device_copy = A.to(Location::device, ctx);
    src = &*d.device_copy;
  }
  const std::size_t nrp = static_cast<std::size_t>(A.nrows() + 1), nnz = static_cast<std::size_t>(A.nnz());
  if (src->index_type() == IndexType::i32) {
    d.row_ptr = src->row_ptr().as<std::int32_t>();
    d.col_idx = src->col_idx().as<std::int32_t>();
  } else {
    Buffer rp(nrp * 4, Location::device, &ctx), ci(std::max<std::size_t>(nnz, 1) * 4, Location::device, &ctx);
    narrow_kernel<<<blocks_for(nrp), kThreads, 0, stream_of(ctx)>>>(
        rp.as<std::int32_t>(), src->row_ptr().as<std::int64_t>(), nrp);
    RINGBLAS_CHECK_LAUNCH("narrow_kernel", stream_of(ctx), ctx.debug_sync);
    if (nnz) {
      narrow_kernel<<<blocks_for(nnz), kThreads, 0, stream_of(ctx)>>>(
          ci.as<std::int32_t>(), src->col_idx().as<std::int64_t>(), nnz);
      RINGBLAS_CHECK_LAUNCH("narrow_kernel", stream_of(ctx), ctx.debug_sync);
    }
    d.row_ptr = rp.as<std::int32_t>();
    d.col_idx = ci.as<std::int32_t>();
    d.owned.push_back(std::move(rp));
    d.owned.push_back(std::move(ci));
  }
  if (need_values && nnz) {
    if (src->type() == type) {
      d.values = src->values().data();
    } else {
      Buffer v(nnz * type_size(type), Location::device, &ctx);
      cast_into(v.data(), type, src->values().data(), src->type(), nnz, ctx);
      d.values = v.data();
      d.owned.push_back(std::move(v));
    }
  }
  return d;
}

Buffer expand_rows(const DevCsr& a, Context& ctx) {
  Buffer rows(std::max<std::size_t>(a.nnz, 1) * 4, Location::device, &ctx);
  if (a.nrows > 0 && a.nnz > 0) {
    expand_rows_kernel<<<blocks_for(a.nrows), kThreads, 0, stream_of(ctx)>>>(
        rows.as<std::int32_t>(), a.row_ptr, static_cast<int>(a.nrows));
    RINGBLAS_CHECK_LAUNCH("expand_rows_kernel", stream_of(ctx), ctx.debug_sync);
  }
  return rows;
}

DevDense device_dense(const DenseMatrix& B, Type type, Context& ctx) {
  DevDense d;
  d.nrows = B.nrows();
  d.ncols = B.ncols();
  d.rs = row_stride(B);
  d.cs = col_stride(B);
  d.type = type;
  const std::size_t n = static_cast<std::size_t>(B.nrows() * B.ncols());
  if (n == 0) return d;
  if (B.location() == Location::device && B.type() == type) {
    d.values = B.values().data();
    return d;
  }
  Buffer src = B.location() == Location::device ? Buffer() : B.values().to(Location::device, ctx);
  const void* p = B.location() == Location::device ? B.values().data() : src.data();
  if (B.type() == type) {
    d.owned = std::move(src);
  } else {
    d.owned = Buffer(n * type_size(type), Location::device, &ctx);
    cast_into(d.owned.data(), type, p, B.type(), n, ctx);
  }
  d.values = d.owned.data();
  return d;
}

DevDense device_dense_vector(const DenseVector& v, Type type, Context& ctx) {
  if (v.location() == Location::device && v.type() == type) {
    // Used in place: wrapping it in a DenseMatrix would copy the buffer, and Buffer's copy
    // synchronises the host with the device (a stall per SpMM with a bias epilogue).
    DevDense d;
    d.nrows = v.size();
    d.ncols = 1;
    d.rs = 1;
    d.cs = 1;
    d.type = type;
    if (v.size()) d.values = v.values().data();
    return d;
  }
  DenseMatrix m = DenseMatrix::from_buffer(v.size(), 1, v.type(), Layout::row_major, v.values());
  DevDense d = device_dense(m, type, ctx);
  if (d.values == m.values().data()) {  // m is a local copy: keep its data alive
    d.owned = std::move(m.values());
    d.values = d.owned.data();
  }
  return d;
}

}  // namespace ringblas::cuda::detail
