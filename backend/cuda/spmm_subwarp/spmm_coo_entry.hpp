// The COO SpMM entry for TensorFlow-style SparseTensor input (entries unsorted, duplicates each
// contributing a product), which the CSR-only public API cannot express; used by tests and
// benchmarks. Plain C++.
#pragma once
#include "ringblas/ops.hpp"

namespace ringblas::cuda {

/// C = A ⊕.⊗ B with A in coordinate form: C(i,j) = ⊕ over every stored (i, k, a) of a ⊗ B(k,j)
/// (the identity where row i has none), with the spmm_subwarp_coo kernel. A's indices must lie
/// in range (InvalidIndex is not checked on the device). NotImplemented as mxm (dense).
void mxm_coo(DenseMatrix& C, const Semiring& s, const CooMatrix& A, const DenseMatrix& B,
             Context& ctx);

}  // namespace ringblas::cuda
