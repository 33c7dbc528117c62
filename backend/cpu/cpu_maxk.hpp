// The cpu executor's MaxK-GNN operations (include/ringblas/cbsr.hpp): plain host loops in a fixed
// order, so that results are deterministic; inputs and outputs are host-resident (the dispatch
// copies device data first).
#pragma once
#include "ringblas/cbsr.hpp"

namespace ringblas::cpu {

/// X = maxk(Y, k): per row the k largest by IEEE totalOrder, ties at the smaller column.
void maxk(Cbsr& X, const DenseMatrix& Y, int k, Context& ctx);
/// D = X densified (zeros elsewhere), D's layout kept.
void densify(DenseMatrix& D, const Cbsr& X, Context& ctx);
/// C = epilogue(op(A) ⊕.⊗ X), plus_times over fp32 (NotImplemented for another semiring);
/// `ep` nullptr: none; `bias` is ep's bias on the host.
void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const Cbsr& X, const DenseVector* bias,
         const Epilogue* ep, const Descriptor& d, Context& ctx);
/// C's values = (op(A) ⊕.⊗ B) at C's pattern, plus_times over fp32.
void mxm(Cbsr& C, const Semiring& s, const Matrix& A, const DenseMatrix& B, const Descriptor& d,
         Context& ctx);

}  // namespace ringblas::cpu
