// Applicability of the spmm_subwarp family (CSR kernel spmm_subwarp and COO kernel
// spmm_subwarp_coo) for the dispatch table (plain C++; run through cuda::mxm (dense)).
#pragma once
#include <optional>
#include <string>

#include "ringblas/ops.hpp"

namespace ringblas::cuda::spmm_subwarp {

/// Why the family cannot compute C = epilogue(op(A) ⊕.⊗ B) (ep nullptr: no epilogue), or nullopt:
/// the semiring must be compiled for spmm_subwarp (backend/cuda/manifest.def), B untransposed,
/// no mask flags (a dense output takes no mask), a numeric type for bias/ReLU/clamp, A within
/// 32-bit indices and m x n below 2^40.
std::optional<std::string> can_implement(const Semiring& s, const Matrix& A, const DenseMatrix& B,
                                         const DenseMatrix& C, const Epilogue* ep,
                                         const Descriptor& desc);

/// The part of can_implement every spmm_subwarp kernel shares: semiring compiled for the family,
/// then operand_support.
std::optional<std::string> kernel_support(const Semiring& s, const Epilogue* ep,
                                          const Descriptor& desc);

/// What every SpMM kernel (spmm_subwarp and spmm_batched) asks of the operands, the semiring's
/// rows aside: numeric type for an epilogue, B untransposed, no mask flags.
std::optional<std::string> operand_support(const Semiring& s, const Epilogue* ep,
                                           const Descriptor& desc);

/// Estimated time of variant `v` (spmm_subwarp or spmm_rowsplit) on C = op(A) ⊕.⊗ B with n_B
/// columns, relative to the other (lower runs first under automatic), from op(A)'s rows and nnz
/// only (O(1), no pass over A): both kernels balance long rows themselves (spmm_rowsplit inside
/// its blocks, spmm_subwarp by its nnz-split mapping), so the mean row length, the rows and n_B
/// decide (thresholds in SpmmPolicy, from bench_spmm).
double relative_cost(Variant v, const Matrix& A, bool transpose_a, Index n_b);

}  // namespace ringblas::cuda::spmm_subwarp
