// Applicability and cost model of the spmv family (spmv_pull: a sub-warp per output;
// spmv_push: scatter from the stored entries of u) for the dispatch table (plain C++; run
// through cuda::mxv / cuda::vxm with the variant forced).
#pragma once
#include <optional>
#include <string>

#include "ringblas/ops.hpp"

namespace ringblas::cuda::spmv {

/// Why the family cannot compute w<m> = w accum op(A) ⊕.⊗ u (or u ⊕.⊗ op(A)), or nullopt: the
/// semiring compiled for spmv (backend/cuda/manifest.def) and A within 32-bit indices.
std::optional<std::string> can_implement(const Semiring& s, const Matrix& A);

/// Costs in entry visits, which order the two variants for `automatic` (the density rule): pull
/// reads every entry of A, push only the rows of the stored u(k) but with atomics (4x); a
/// transpose costs about a radix sort (8 passes). `pull_transposes`: the CSR whose rows are
/// outputs is Aᵀ (mxv with transpose_a, vxm without transpose_b); push then uses A itself.
inline double transpose_cost(const Matrix& A) { return 8.0 * double(A.nnz()); }
inline double pull_cost(const Matrix& A, const Vector& u, bool pull_transposes) {
  return double(A.nnz()) + (pull_transposes ? transpose_cost(A) : 0.0) + double(u.size());
}
inline double push_cost(const Matrix& A, const Vector& u, Index n_out, bool pull_transposes) {
  const double avg_in = u.size() ? double(A.nnz()) / double(u.size()) : 0.0;
  return 4.0 * avg_in * double(u.nnz()) + (pull_transposes ? 0.0 : transpose_cost(A)) +
         double(n_out);
}

}  // namespace ringblas::cuda::spmv
