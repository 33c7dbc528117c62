// cpu executor: batched SpMM (mxm_batched) as a loop over the dense-output mxm on SuiteSparse.
#include "backend/cpu/cpu_backend.hpp"

namespace ringblas::cpu {

void mxm_batched(std::vector<DenseMatrix>& C, const Semiring& s, const std::vector<Matrix>& A,
                 const std::vector<DenseMatrix>& B, const Descriptor& desc, Context& ctx) {
  // Results go to a copy first so that C is untouched when an item throws.
  std::vector<DenseMatrix> out(C);
  for (std::size_t k = 0; k < A.size(); ++k) cpu::mxm(out[k], s, A[k], B[k], desc, ctx);
  C = std::move(out);
}

}  // namespace ringblas::cpu
