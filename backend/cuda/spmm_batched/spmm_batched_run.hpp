// The batched SpMM driver shared by mxm_batched and by the single dense mxm when a batched
// variant is forced: packs host items into one upload, launches one kernel for the batch.
#pragma once
#include <utility>
#include <vector>

#include "ringblas/ops.hpp"

namespace ringblas::cuda::detail {

/// C[b] = epilogue(op(A[b]) ⊕.⊗ B[b]) for every b with the spmm_batched (CSR) or
/// spmm_batched_coo kernel (`variant`, or automatic). Throws NotImplemented for semirings that are
/// not compiled, user-defined semirings, epilogues on bool, and items beyond 32-bit sizes.
/// With `row0` (the stacked form), item b is the row block of B[b] and C[b] starting at
/// (*row0)[b].first and (*row0)[b].second, of op(A[b])'s sizes; B[b] and C[b] must then be on
/// the device with the semiring's type.
void run_batched_spmm(const std::vector<DenseMatrix*>& C, const std::vector<const Matrix*>& A,
                      const std::vector<const DenseMatrix*>& B, const Semiring& s,
                      const Epilogue& ep, bool transpose_a, Variant variant, const char* op,
                      Context& ctx,
                      const std::vector<std::pair<Index, Index>>* row0 = nullptr);

}  // namespace ringblas::cuda::detail
