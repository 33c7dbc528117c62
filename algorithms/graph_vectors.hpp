// Vector building blocks shared by the graph algorithms, on the public API only: row views
// (1 x n matrices) for the operations the API offers on matrices but not on vectors (bound
// apply, select, assign of a scalar), constant and index vectors, and the matrix of a function.
// Every helper keeps its operands where they are (host or device): row views copy buffers at
// their location, so a whole algorithm can stay on the GPU.
#pragma once
#include <vector>

#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/matrix.hpp"
#include "ringblas/ops.hpp"

namespace ringblas::algorithms {

/// The 1 x size matrix holding v's entries (v(i) -> (0, i)), at v's location.
Matrix row_view(const Vector& v, Context& ctx);
/// The vector of a 1 x n matrix's entries (inverse of row_view), at the row's location. Throws
/// DimensionMismatch when `row` has more than one row. A row with 32-bit indices (an executor
/// may choose them) is widened on the host and moved back: correct, but a round trip.
Vector vector_of_row(const Matrix& row, Context& ctx);

/// An empty vector / matrix at `where`: outputs are made where the operands live, since an
/// executor may keep an output at the location it had. Neither copies from the host (a device
/// matrix's zero row pointers are filled there).
Vector new_vector(Index n, Type type, Location where, Context& ctx);
Matrix new_matrix(Index nrows, Index ncols, Type type, Location where, Context& ctx);

/// Every position of a vector of size n holding `value` (its type), at `where`.
Vector constant_vector(Index n, const Scalar& value, Location where, Context& ctx);
/// v(i) = i for i in 0..n-1 (int64), at `where`.
Vector index_vector(Index n, Location where, Context& ctx);

/// w = op(u, s) on u's entries (GrB_apply with a bound second operand); w has u's type.
Vector apply_bound(BinaryOpCode op, const Vector& u, const Scalar& s, Context& ctx);
/// w = select(u, op, thunk): u's entries that satisfy the value predicate (GrB_select).
Vector select_vector(SelectOpCode op, const Vector& u, const Scalar& thunk, Context& ctx);
/// w⟨mask, struct⟩ = value: every position of mask gets `value` at w's type, the other entries
/// of w are kept (GrB_assign of a scalar with a structural mask).
void assign_scalar(Vector& w, const Vector& mask, const Scalar& value, Context& ctx);

/// diag(d) on the host as `type`: n = d.size() rows and ncols columns (ncols < 0: n), d(i) at
/// (i, offset + i); positions where d is 0 are left out when `skip_zeros`.
Matrix diagonal_matrix(const std::vector<double>& d, Type type, bool skip_zeros = false,
                       Index ncols = -1, Index offset = 0);

/// The matrix of a function f: {0..n-1} -> {0..n-1} given as a dense int64 vector: F(i, f(i)) = 1
/// (bool). F ⊕.⊗ x gathers x(f(i)) and Fᵀ ⊕.⊗ x scatters x(i) onto f(i) with ⊕ (GrB_extract and
/// GrB_assign with an index list, as products). Throws InvalidValue unless f is dense int64; the
/// values of f must lie in 0..n-1 (not checked, that would read them back).
class FunctionMatrix {
 public:
  FunctionMatrix(Index n, Location where, Context& ctx);
  Matrix of(const Vector& f) const;

 private:
  Index n_;
  Buffer row_ptr_, ones_;  ///< 0..n and n trues, kept at `where` for every call
};

/// Where an algorithm on A keeps its vectors: A's location.
inline Location location_of(const Matrix& a) { return a.location(); }

/// Shorthands for descriptors used throughout the algorithms.
inline Descriptor structural(bool complement = false, bool replace = false) {
  Descriptor d;
  d.mask_structure = true;
  d.mask_complement = complement;
  d.replace = replace;
  return d;
}

}  // namespace ringblas::algorithms
