// cuda executor entry point of transpose: C<M, replace> = C accum Aᵀ (desc.transpose_a cancels
// the transpose, GrB_INP0 = GrB_TRAN), through the shared cuda::transpose and cuda::write_back.
#include <string>

#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/common/write_back.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda {

void transpose(Matrix& C, const Matrix* mask, Accum accum, const Matrix& A, const Descriptor& desc,
               Context& ctx) {
  Matrix hold;
  const Matrix& a = prepare_operand(A, false, A.index_type(), std::nullopt, hold, ctx);
  ctx.trace_line(std::string("transpose: cuda ") +
                 (desc.transpose_a ? "copy (transpose_a cancels it)" : "radix-sort transpose") +
                 ", " + std::to_string(a.nnz()) + " entries");
  Matrix T = desc.transpose_a ? (&a == &hold ? std::move(hold) : Matrix(a)) : transpose(a, ctx);
  const DeviceMask m =
      make_device_mask(mask, desc.mask_structure, desc.mask_complement, T.index_type(), ctx);
  write_back(C, m, accum, desc.replace, std::move(T), ctx);
}

}  // namespace ringblas::cuda
