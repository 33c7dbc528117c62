// The naive dense oracle: every operation of include/ringblas/ops.hpp with full GraphBLAS semantics
// (mask, accumulator, replace, typecasts, transposes), computed entry by entry for small sizes.
//
// It shares no code with any backend: arithmetic comes from semirings/ (the functors that define
// ringblas's semantics), containers are read through their host buffers only. Each result cell
// carries what a correct executor may return: the set of acceptable values (several for the any
// monoid) and an absolute tolerance (float sums, whose rounding depends on the reduction order).
//
// Operator types (ringblas's rules for untyped operator codes, as the cpu backend maps them):
// - mxm/mxv/vxm: the semiring's type; the accumulator runs at C's type.
// - ewise_add/ewise_mult/kronecker/apply (unary and bound binary): the output's type; an entry that
//   only one input of ewise_add has is cast straight to the output's type.
// - select: predicates compare at A's type; reduce to vector: the monoid at w's type;
//   reduce to scalar: the monoid at the input's type.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ringblas/ops.hpp"

namespace ringblas::test {

/// One cell of a reference result: present or not, the acceptable values (stored exactly as long
/// double; the first is the canonical one) and an absolute tolerance around each.
struct RefCell {
  bool present = false;
  std::vector<long double> values;
  long double tol = 0;
};

/// A dense reference matrix of value type `type` (vectors are size x 1).
struct RefMatrix {
  Index nrows = 0, ncols = 0;
  Type type = Type::fp64;
  std::vector<RefCell> cells;

  RefMatrix() = default;
  RefMatrix(Index m, Index n, Type t)
      : nrows(m), ncols(n), type(t), cells(static_cast<std::size_t>(m * n)) {}
  RefCell& at(Index i, Index j) { return cells[static_cast<std::size_t>(i * ncols + j)]; }
  const RefCell& at(Index i, Index j) const {
    return cells[static_cast<std::size_t>(i * ncols + j)];
  }
  bool has(Index i, Index j) const { return at(i, j).present; }
  Index nnz() const;
};

/// Host matrix / vector (n x 1) / dense matrix as an exact reference (one value per entry).
RefMatrix to_ref(const Matrix& a);
RefMatrix to_ref(const Vector& u);
RefMatrix to_ref(const DenseMatrix& a);
/// The canonical values of a reference as a CSR matrix (for chaining oracle results).
Matrix to_matrix(const RefMatrix& r);

namespace oracle {

void mxm(RefMatrix& C, const Matrix* mask, Accum accum, const Semiring& s, const Matrix& A,
         const Matrix& B, const Descriptor& desc = {});
void mxv(RefMatrix& w, const Vector* mask, Accum accum, const Semiring& s, const Matrix& A,
         const Vector& u, const Descriptor& desc = {});
void vxm(RefMatrix& w, const Vector* mask, Accum accum, const Semiring& s, const Vector& u,
         const Matrix& A, const Descriptor& desc = {});
/// Dense C = A ⊕.⊗ B; a position with no product holds the monoid's identity.
RefMatrix mxm_dense(Type c_type, const Semiring& s, const Matrix& A, const DenseMatrix& B,
                    const Descriptor& desc = {});

void ewise_add(RefMatrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, const Matrix& A,
               const Matrix& B, const Descriptor& desc = {});
void ewise_add(RefMatrix& w, const Vector* mask, Accum accum, BinaryOpCode op, const Vector& u,
               const Vector& v, const Descriptor& desc = {});
void ewise_mult(RefMatrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, const Matrix& A,
                const Matrix& B, const Descriptor& desc = {});
void ewise_mult(RefMatrix& w, const Vector* mask, Accum accum, BinaryOpCode op, const Vector& u,
                const Vector& v, const Descriptor& desc = {});

void apply(RefMatrix& C, const Matrix* mask, Accum accum, UnaryOpCode op, const Matrix& A,
           const Descriptor& desc = {});
void apply(RefMatrix& w, const Vector* mask, Accum accum, UnaryOpCode op, const Vector& u,
           const Descriptor& desc = {});
void apply(RefMatrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, BindSide side,
           const Scalar& s, const Matrix& A, const Descriptor& desc = {});
void apply(RefMatrix& C, const Matrix* mask, Accum accum, IndexUnaryOpCode op, Index thunk,
           const Matrix& A, const Descriptor& desc = {});

void select(RefMatrix& C, const Matrix* mask, Accum accum, SelectOpCode op, const Scalar& thunk,
            const Matrix& A, const Descriptor& desc = {});

void reduce(RefMatrix& w, const Vector* mask, Accum accum, MonoidCode monoid, const Matrix& A,
            ReduceDim dim, const Descriptor& desc = {});
/// 1 x 1 reference at A's type, always present (the identity when A has no entry).
RefMatrix reduce(MonoidCode monoid, const Matrix& A);
RefMatrix reduce(MonoidCode monoid, const Vector& u);

void transpose(RefMatrix& C, const Matrix* mask, Accum accum, const Matrix& A,
               const Descriptor& desc = {});
void extract(RefMatrix& C, const Matrix* mask, Accum accum, const Matrix& A, const Indices& rows,
             const Indices& cols, const Descriptor& desc = {});
void assign(RefMatrix& C, const Matrix* mask, Accum accum, const Matrix& A, const Indices& rows,
            const Indices& cols, const Descriptor& desc = {});
void kronecker(RefMatrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, const Matrix& A,
               const Matrix& B, const Descriptor& desc = {});

}  // namespace oracle

/// Compares a backend result with a reference: the structure must match exactly; each value must
/// be one of the acceptable values within the cell's tolerance (NaN matches NaN). On a mismatch
/// returns a message naming `what`, the first differing entry (i, j) and both values; "" if equal.
std::string compare(const RefMatrix& expected, const Matrix& actual, const std::string& what);
std::string compare(const RefMatrix& expected, const Vector& actual, const std::string& what);
std::string compare(const RefMatrix& expected, const DenseMatrix& actual, const std::string& what);
std::string compare(const RefMatrix& expected, const Scalar& actual, const std::string& what);

}  // namespace ringblas::test

/// GoogleTest assertion: EXPECT_REF_EQ(ref, actual, "case name").
#define EXPECT_REF_EQ(expected, actual, what)                                            \
  do {                                                                                   \
    const std::string ringblas_cmp_ = ::ringblas::test::compare(expected, actual, what); \
    EXPECT_TRUE(ringblas_cmp_.empty()) << ringblas_cmp_;                                 \
  } while (0)
