// The dispatch tables of the MaxK-GNN operations (include/ringblas/cbsr.hpp): their problems, the
// tables (rows in dispatch_tables_maxk.cpp) and the comparison verify uses on CBSR results.
#pragma once
#include "backend/core/dispatch/dispatch.hpp"
#include "ringblas/cbsr.hpp"

namespace ringblas::detail {

/// X = maxk(Y, k).
struct MaxkProblem {
  const DenseMatrix& Y;
  int k;
};
/// D = X densified.
struct DensifyProblem {
  const Cbsr& X;
};
/// C = dropout(epilogue(op(A) ⊕.⊗ X)), X in CBSR, C dense; ep nullptr: no epilogue; drop
/// nullptr (or p == 0): no dropout.
struct CbsrMxmProblem {
  const Semiring& s;
  const Matrix& A;
  const Cbsr& X;
  const Epilogue* ep;
  const Descriptor& d;
  const OutputDropout* drop = nullptr;
};
/// C's values = (op(A) ⊕.⊗ B) at C's CBSR pattern.
struct SampledMxmProblem {
  const Semiring& s;
  const Matrix& A;
  const DenseMatrix& B;
  const Descriptor& d;
};

const Table<MaxkProblem, Cbsr>& maxk_table();
const Table<DensifyProblem, DenseMatrix>& densify_table();
const Table<CbsrMxmProblem, DenseMatrix>& mxm_cbsr_table();
const Table<SampledMxmProblem, Cbsr>& mxm_sampled_table();

/// nullopt when a and b have the same shape, k and pattern and values within tol; else the first
/// difference ("X(3, entry 1): column 7 vs 9", "X(3, entry 1): 1.5 vs 1.25").
std::optional<std::string> compare(const Cbsr& a, const Cbsr& b, const Tolerance& tol);

}  // namespace ringblas::detail
