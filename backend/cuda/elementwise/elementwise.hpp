// The element-wise family's launchers (plain C++ interface): each builds the intermediate T of
// one GraphBLAS operation on the device; the entry points (entry.cpp, vector_entry.cpp) prepare
// operands and write T back into C through cuda::write_back.
#pragma once
#include <cstdint>

#include "ringblas/buffer.hpp"
#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::cuda::elementwise {

/// How the entries of two matrices combine: A ∪ B (ewise_add: op where both have an entry, the
/// entry of whichever has one elsewhere) or A ∩ B (ewise_mult: op where both have one).
enum class Merge : std::uint8_t { union_of, intersection };

/// T = A ∪ B or A ∩ B with z = op(a, b) at the values' type. A and B: on the device, same shape,
/// same index type, same value type (the operator's). Positional operators see (i, j) twice.
Matrix merge(const Matrix& A, const Matrix& B, BinaryOpCode op, Merge how, const Context& ctx);

/// A value map z = f(a, i, j) applied to every entry (apply's three forms).
struct MapOp {
  enum class Kind : std::uint8_t { unary, bind_first, bind_second, index_unary };
  Kind kind = Kind::unary;
  UnaryOpCode unary = UnaryOpCode::identity;
  BinaryOpCode binary = BinaryOpCode::first;
  Scalar bound;  ///< bind_first / bind_second: the scalar, cast to A's type by the launcher
  IndexUnaryOpCode index_op = IndexUnaryOpCode::rowindex;
  std::int64_t thunk = 0;  ///< index_unary: s in i + s, j + s, j - i + s
};
/// T with A's structure and values f(A) in A's value type (the operator's type; index-unary
/// results, int64 in GraphBLAS, are cast to it). When `a` is `hold`, its buffers are reused.
Matrix map(const Matrix& a, Matrix& hold, const MapOp& f, const Context& ctx);

/// The entries of A that the predicate keeps (tril/triu/diag/offdiag by j - i against the thunk,
/// value_* against the thunk cast to A's type), as a matrix of A's type. Not for top-k.
Matrix select(const Matrix& A, SelectOpCode op, const Scalar& thunk, const Context& ctx);

/// Variant row_filter (row_filter.cu): select by a value predicate (value_* only) as a count
/// pass over the values, a scan and a fill pass, a group of lanes per row; no array of nnz(A).
Matrix select_rows(const Matrix& A, SelectOpCode op, const Scalar& thunk, const Context& ctx);

/// Variant row_filter: T = f(A) on the entries a value mask M with A's pattern admits (entry p
/// when M's value p is nonzero, or zero when `complement`), without building the mask's
/// structure: M's values are read where A's are. A: values in the map's type; M: any type,
/// same rows and nnz as A (its columns are not read).
Matrix map_value_masked(const Matrix& A, const Matrix& M, bool complement, const MapOp& f,
                        const Context& ctx);

/// The k largest entries of each row of A (NaN below every number, ties to the smaller column),
/// in column order: the k-th largest order-preserving key of each row by a bitwise search (a
/// group of lanes per row, a block for rows over 256 entries), no sort.
Matrix row_topk(const Matrix& A, Index k, const Context& ctx);

/// T = kron(A, B) with z = op(a, b): T(ia*mb + ib, ja*nb + jb) = op(A(ia, ja), B(ib, jb)).
/// A and B on the device with the same index and value types; the index type must hold T.
Matrix kronecker(const Matrix& A, const Matrix& B, BinaryOpCode op, const Context& ctx);

/// Vectors, dense over w's positions: t's values (in `type`, the operator's) and presence flags,
/// for u ∪ v / u ∩ v combined by op, or f(u). u and v on the device.
struct DenseT {
  Buffer values, present;
};
DenseT vector_merge(const Vector& u, const Vector& v, BinaryOpCode op, Merge how, Type type,
                    Context& ctx);
DenseT vector_map(const Vector& u, UnaryOpCode op, Type type, Context& ctx);
/// u ∩ v or u ∪ v by op at `type` when u or v is full (nnz = size): the result has the other
/// operand's structure (∩) or every position (∪), so it is built without a dense pass over
/// presence flags or a compaction (no host sync). Throws InvalidValue when neither is full.
Vector vector_merge_full(const Vector& u, const Vector& v, BinaryOpCode op, Merge how, Type type,
                         Context& ctx);
/// f(u) at `type` on u's structure (no host sync).
Vector vector_map_values(const Vector& u, UnaryOpCode op, Type type, Context& ctx);

}  // namespace ringblas::cuda::elementwise
