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
  // Checked again in s8 against the two later H100 tables (spmm_single_s4_round3_h100.md,
  // spmm_single_h100.md; us, the kernels alone, nnz-split at the library's run length L):
  //   Cora (mean row 3.9)     n_B 64 / 128 / 512: nnz-split 10.9-11.4 / 10.8-11.2 / 14.2-14.4,
  //                           rowsplit 12.5-13.2 / 14.2-14.3 / 17.5-18.1;
  //                           n_B 256: nnz-split 12.2 / 19.0, rowsplit 14.9 / 16.0 (the 19.0 run
  //                           had cuSPARSE 27 us instead of 18 and 24 us of host time per api
  //                           call instead of 10: a disturbed row, not a reason to switch);
  //   PubMed (4.5)            n_B 64..512: nnz-split 16.6-17.3 / 22.3-22.7 / 33.5-33.8 /
  //                           61.3-61.4, rowsplit 23.3 / 31.0 / 53.0 / 88; the row-per-sub-warp
  //                           mapping (mean row < split_mean_row) 20.4 / 23.7 / 40.2 / 60.8-62;
  //   soc-Epinions1 (10.7)    nnz-split 60-291 us, rowsplit 203-591, rows 357-688.
  // So from n_B = 64 automatic takes spmm_subwarp, which launches the nnz-split kernel for a
  // mean row >= split_mean_row (all three graphs); its run length is nnzsplit_run_length's. The
  // api rows of those tables time the same launch as ringblas_api_spmm_subwarp; the two differ
  // by 0-4.6 us from run to run (PubMed n_B = 64: 21.4 vs 17.4 in one table, 19.3 vs 17.8 in
  // the other), and bench_spmm's md now ends with the trace of what automatic ran.
  using detail::SpmmPolicy;
  const double rows = double(std::max<Index>(transpose_a ? A.ncols() : A.nrows(), 1));
  const double mean_row = double(A.nnz()) / rows;
  const bool rowsplit_first =
      mean_row < SpmmPolicy::rowsplit_max_mean_row && n_b <= SpmmPolicy::rowsplit_max_cols;
  return (v == Variant::spmm_rowsplit) == rowsplit_first ? 0.0 : 1.0;
}

}  // namespace ringblas::cuda::spmm_subwarp
