// Entry points of the dense_nn skinny GEMMs (backend/cuda/dense_nn/skinny_gemm.cu): products with
// an operand of at most 32 columns, where cuBLAS's tiles are mostly idle and the time is reading
// the tall operand once. The gemm table's "dense_nn" row (dispatch_tables_nn.cpp), ahead of
// cuBLAS for the shapes they take:
//   NN: C (m x n) = alpha · A (m x k) · B (k x n),   n <= 32, k <= 2048    (a layer's transform)
//   TN: C (k x n) = alpha · Aᵀ (A: m x k) · B (m x n), n <= 32, k <= 2048  (its weight gradient)
// beta == 0 only (C's old values are not read). A may be dropped as it is read (nn::dropout_gemm).
// Plain C++: the dispatch includes it without nvcc.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::cuda::dense_nn {

/// nullopt when a skinny kernel computes C = alpha·op(A)·op(B) + beta·C, else why not.
std::optional<std::string> can_implement_skinny_gemm(const DenseMatrix& C, const DenseMatrix& A,
                                                     const DenseMatrix& B, double beta,
                                                     const Descriptor& d);
/// C = alpha·op(dropout(A; p, seed, stream))·op(B) (can_implement_skinny_gemm said yes; p == 0:
/// no dropout); C ends on the device.
void skinny_gemm(DenseMatrix& C, double alpha, const DenseMatrix& A, const DenseMatrix& B, double p,
                 std::uint64_t seed, std::uint64_t stream, const Descriptor& d, Context& ctx);

}  // namespace ringblas::cuda::dense_nn
