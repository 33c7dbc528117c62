// spmm_subwarp::can_implement (plain C++, so that the dispatch asks it without a launch).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "backend/cuda/spmm_subwarp/semiring_types.hpp"
#include "backend/cuda/spmm_subwarp/spmm_policy.hpp"
#include "backend/cuda/spmm_subwarp/spmm_subwarp.hpp"

namespace ringblas::cuda::spmm_subwarp {

std::optional<std::string> kernel_support(const Semiring& s, const Epilogue* ep,
                                          const Descriptor& desc) {
  if (!manifest::compiled<manifest::spmm_subwarp>(s))
    return manifest::not_compiled(s, "spmm_subwarp");
  return operand_support(s, ep, desc);
}

std::optional<std::string> operand_support(const Semiring& s, const Epilogue* ep,
                                           const Descriptor& desc) {
  if (s.type == Type::boolean && ep && !ep->is_identity())
    return "bias/ReLU/clamp epilogues need a numeric type";
  if (desc.transpose_b) return "B must not be transposed";
  if (desc.replace || desc.mask_complement || desc.mask_structure)
    return "a dense output takes no mask flags";
  return std::nullopt;
}

std::optional<std::string> can_implement(const Semiring& s, const Matrix& A, const DenseMatrix& B,
                                         const DenseMatrix& C, const Epilogue* ep,
                                         const Descriptor& desc) {
  (void)B;
  if (auto why = kernel_support(s, ep, desc)) return why;
  constexpr Index lim = std::numeric_limits<std::int32_t>::max() - 1;
  if (A.nrows() > lim || A.ncols() > lim || A.nnz() > lim)
    return "A needs 64-bit indices; the SpMM kernels use 32-bit ones";
  if (static_cast<long double>(C.nrows()) * static_cast<long double>(C.ncols()) >
      static_cast<long double>(1ll << 40))
    return "C has more than 2^40 elements";
  return std::nullopt;
}

double relative_cost(Variant v, const Matrix& A, bool transpose_a, Index n_b) {
  // bench_spmm on an H100 (2026-11-23, s4 round 1, tests/bench/results/spmm_notes.md): the
  // nnz-split spmm_subwarp ahead of spmm_rowsplit on Cora, PubMed, soc-Epinions1 and R-MAT 20
  // at n_B = 64..512 (and 16 on R-MAT); spmm_rowsplit kept where it was last measured ahead:
  // short mean rows and narrow B.
  using detail::SpmmPolicy;
  const double rows = double(std::max<Index>(transpose_a ? A.ncols() : A.nrows(), 1));
  const double mean_row = double(A.nnz()) / rows;
  const bool rowsplit_first =
      mean_row < SpmmPolicy::rowsplit_max_mean_row && n_b <= SpmmPolicy::rowsplit_max_cols;
  return (v == Variant::spmm_rowsplit) == rowsplit_first ? 0.0 : 1.0;
}

}  // namespace ringblas::cuda::spmm_subwarp
