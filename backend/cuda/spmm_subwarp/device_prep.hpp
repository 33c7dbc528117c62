// Device-side preparation shared by the SpMM, batched SpMM and SpMV entry points: inputs moved to
// the device (copies counted in ctx), CSR with 32-bit indices, values cast to the semiring's type,
// transposes through cuda::transpose, dense operands with their strides. Plain C++ interface.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ringblas/buffer.hpp"
#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::cuda::detail {

/// A CSR matrix on the device with 32-bit indices and values in `type` (nullptr when the caller
/// does not read them). Owns whatever temporaries it needed; moving it keeps the pointers valid.
struct DevCsr {
  Index nrows = 0, ncols = 0, nnz = 0;
  Type type = Type::fp64;
  const std::int32_t* row_ptr = nullptr;
  const std::int32_t* col_idx = nullptr;
  const void* values = nullptr;
  std::vector<Buffer> owned;
  std::optional<Matrix> device_copy;
};

/// A (or Aᵀ when `transpose`, by the shared cuda::transpose) on the device as DevCsr. Throws NotImplemented when its dimensions
/// or nnz do not fit 32-bit indices (the kernels' index width).
DevCsr device_csr(const Matrix& A, Type type, bool need_values, bool transpose, const char* op,
                  Context& ctx);
/// Row index of every entry (COO rows) of a device CSR matrix.
Buffer expand_rows(const DevCsr& a, Context& ctx);

/// A dense operand on the device in `type`; element (i, j) at values[i * rs + j * cs].
struct DevDense {
  Index nrows = 0, ncols = 0;
  long long rs = 0, cs = 0;
  Type type = Type::fp64;
  const void* values = nullptr;
  Buffer owned;
};
DevDense device_dense(const DenseMatrix& B, Type type, Context& ctx);
/// A dense vector on the device in `type` (nullptr values for size 0).
DevDense device_dense_vector(const DenseVector& v, Type type, Context& ctx);

/// dst[k] = cast<to>(src[k]) for k < n, on ctx's stream (GraphBLAS typecasting rules).
void cast_into(void* dst, Type to, const void* src, Type from, std::size_t n, Context& ctx);
/// Strides of a dense matrix's layout.
inline long long row_stride(const DenseMatrix& m) {
  return m.layout() == Layout::row_major ? m.ncols() : 1;
}
inline long long col_stride(const DenseMatrix& m) {
  return m.layout() == Layout::row_major ? 1 : m.nrows();
}

}  // namespace ringblas::cuda::detail
