// cpu executor: batched SpMM (mxm_batched) as a loop over the dense-output mxm on SuiteSparse, and
// its stacked form as one SpMM with the block-diagonal matrix of the items.
#include "backend/core/containers/block_diagonal.hpp"
#include "backend/cpu/cpu_backend.hpp"

namespace ringblas::cpu {

void mxm_batched(std::vector<DenseMatrix>& C, const Semiring& s, const std::vector<Matrix>& A,
                 const std::vector<DenseMatrix>& B, const Descriptor& desc, Context& ctx) {
  // Results go to a copy first so that C is untouched when an item throws.
  std::vector<DenseMatrix> out(C);
  for (std::size_t k = 0; k < A.size(); ++k) cpu::mxm(out[k], s, A[k], B[k], desc, ctx);
  C = std::move(out);
}

void mxm_batched(DenseMatrix& C, const Semiring& s, const std::vector<Matrix>& A,
                 const DenseMatrix& B, const Epilogue& ep, const Descriptor& desc, Context& ctx) {
  // diag(A_b)ᵀ = diag(A_bᵀ): desc.transpose_a applies to the whole block-diagonal matrix.
  cpu::mxm(C, s, detail::block_diagonal_host(A, detail::block_layout(A)), B, ep, desc, ctx);
}

}  // namespace ringblas::cpu
