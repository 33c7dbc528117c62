// The inputs of each operation as one value (a "problem"), which the dispatch tables' entries
// read: can_implement(problem, output) and run(problem, output, ctx). References only: a problem
// lives for one call.
#pragma once
#include <vector>

#include "ringblas/ops.hpp"
#include "ringblas/sparse_layer.hpp"

namespace ringblas::detail {

/// C<M> = C accum A ⊕.⊗ B (sparse C).
struct MxmProblem {
  const Matrix* mask;
  Accum accum;
  const Semiring& s;
  const Matrix& A;
  const Matrix& B;
  const Descriptor& d;
  /// The call's context, for costs measured on the operands' data (the masked dot products':
  /// spgemm_dot.hpp); nullptr: size-only costs.
  Context* ctx = nullptr;
};

/// C = epilogue(A ⊕.⊗ B) with B and C dense; `ep` is nullptr for the mxm without an epilogue.
struct DenseMxmProblem {
  const Semiring& s;
  const Matrix& A;
  const DenseMatrix& B;
  const Epilogue* ep;
  const Descriptor& d;
};

/// C[k] = A[k] ⊕.⊗ B[k] for every k.
struct BatchedMxmProblem {
  const Semiring& s;
  const std::vector<Matrix>& A;
  const std::vector<DenseMatrix>& B;
  const Descriptor& d;
};

/// C = epilogue(diag(A[0], ...) ⊕.⊗ B) with B and C stacked by rows (mxm_batched, stacked).
struct StackedBatchedMxmProblem {
  const Semiring& s;
  const std::vector<Matrix>& A;
  const DenseMatrix& B;
  const Epilogue& ep;
  const Descriptor& d;
};

/// w<m> = w accum A ⊕.⊗ u (mxv) or u ⊕.⊗ A (vxm).
struct MxvProblem {
  const Vector* mask;
  Accum accum;
  const Semiring& s;
  const Matrix& A;
  const Vector& u;
  const Descriptor& d;
};

/// C<M> = C accum (A op B) over the union (ewise_add) or intersection (ewise_mult) of patterns;
/// also kronecker (A ⊗ B with op). X is Matrix or Vector.
template <class X>
struct EwiseProblem {
  const X* mask;
  Accum accum;
  BinaryOpCode op;
  const X& A;
  const X& B;
  const Descriptor& d;
};

/// C<M> = C accum f(A) with f unary.
template <class X>
struct ApplyProblem {
  const X* mask;
  Accum accum;
  UnaryOpCode op;
  const X& A;
  const Descriptor& d;
};

/// C<M> = C accum f(A, s) (BindSide::second) or f(s, A).
struct ApplyBoundProblem {
  const Matrix* mask;
  Accum accum;
  BinaryOpCode op;
  BindSide side;
  const Scalar& scalar;
  const Matrix& A;
  const Descriptor& d;
};

/// C<M> = C accum f(A(i,j), i, j, thunk).
struct ApplyIndexProblem {
  const Matrix* mask;
  Accum accum;
  IndexUnaryOpCode op;
  Index thunk;
  const Matrix& A;
  const Descriptor& d;
};

/// C<M> = C accum select(A, op, thunk).
struct SelectProblem {
  const Matrix* mask;
  Accum accum;
  SelectOpCode op;
  const Scalar& thunk;
  const Matrix& A;
  const Descriptor& d;
};

/// w<m> = w accum ⊕_j A(:, j) (rows) or ⊕_i A(i, :) (cols).
struct ReduceProblem {
  const Vector* mask;
  Accum accum;
  MonoidCode monoid;
  const Matrix& A;
  ReduceDim dim;
  const Descriptor& d;
};

/// s = ⊕ of every entry of A (X = Matrix or Vector).
template <class X>
struct ReduceScalarProblem {
  MonoidCode monoid;
  const X& A;
};

/// C<M> = C accum Aᵀ.
struct TransposeProblem {
  const Matrix* mask;
  Accum accum;
  const Matrix& A;
  const Descriptor& d;
};

/// C<M> = C accum A(rows, cols) (extract) or C(rows, cols)<M> = C(rows, cols) accum A (assign).
struct IndexedProblem {
  const Matrix* mask;
  Accum accum;
  const Matrix& A;
  const Indices& rows;
  const Indices& cols;
  const Descriptor& d;
};

/// C<M> = C accum A(rows, cols) with the index lists held in vectors (nullptr: all).
struct IndexVectorsProblem {
  const Matrix* mask;
  Accum accum;
  const Matrix& A;
  const Vector* rows;
  const Vector* cols;
  const Descriptor& d;
};

/// w<m> = w accum s at every position (assign of a scalar to a vector, GrB_ALL).
struct AssignScalarProblem {
  const Vector* mask;
  Accum accum;
  const Scalar& s;
  const Descriptor& d;
};

/// p = the permutation sorting u's entries (sort_permutation).
struct SortPermutationProblem {
  const Vector& u;
  bool descending;
};

/// The fused layer chain of mxm_layers (include/ringblas/sparse_layer.hpp).
struct LayerChainProblem {
  const std::vector<Matrix>& weights;
  const std::vector<float>& bias;
  float ymax;
  const DenseMatrix& features;
  std::vector<Index>& ids;
  const LayerChainOptions& options;
  LayerChainStats* stats;
};

/// prepare_network: the weights of a fused layer chain prepared once on the device.
struct LayerNetworkProblem {
  const std::vector<Matrix>& weights;
  const std::vector<float>& bias;
  float ymax;
  LayerChainStats* stats;
  const NetworkPrepareOptions& options;
};

/// mxm_layers on a prepared network and sparse features; the output is the survivors' ids.
struct PreparedLayersProblem {
  const SparseNetwork& net;
  const Matrix& features;
  const LayerChainOptions& options;
  LayerChainStats* stats;
  DenseMatrix* survivors;
};

}  // namespace ringblas::detail
