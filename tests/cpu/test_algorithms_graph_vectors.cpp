// The vector building blocks of the graph algorithms (algorithms/graph_vectors): row views both
// ways (also from 32-bit indices), bound apply, select and scalar assign on vectors, constant and
// index vectors, and gathers / scatters through the matrix of a function.
#include <gtest/gtest.h>

#include "algorithms/graph_vectors.hpp"
#include "ringblas/vector_fill.hpp"
#include "support/graph_cases.hpp"

namespace {

using namespace ringblas;
using namespace ringblas::algorithms;

Vector sparse(Index n, const std::vector<Index>& idx, const std::vector<double>& val) {
  return Vector::from_entries<double>(n, idx, val);
}

TEST(AlgorithmsGraphVectors, RowViewRoundTrip) {
  Context ctx(Backend::cpu);
  const Vector v = sparse(6, {1, 4}, {2.5, -1});
  const Matrix row = row_view(v, ctx);
  ASSERT_EQ(row.nrows(), 1);
  ASSERT_EQ(row.ncols(), 6);
  row.check_invariants();
  EXPECT_EQ(row.col_idx_vector(), (std::vector<Index>{1, 4}));
  const Vector back = vector_of_row(row, ctx);
  EXPECT_EQ(back.indices_vector(), v.indices_vector());
  EXPECT_EQ(back.values_vector<double>(), v.values_vector<double>());
  const Vector narrow = vector_of_row(row.with_index_type(IndexType::i32), ctx);
  EXPECT_EQ(narrow.indices_vector(), v.indices_vector());
  EXPECT_THROW(vector_of_row(Matrix(2, 6), ctx), DimensionMismatch);
  const Vector empty = vector_of_row(row_view(Vector(0), ctx), ctx);
  EXPECT_EQ(empty.size(), 0);
}

TEST(AlgorithmsGraphVectors, BoundApplySelectAssign) {
  Context ctx(Backend::cpu);
  const Vector v = sparse(6, {0, 2, 5}, {1, 4, 9});
  EXPECT_EQ(apply_bound(BinaryOpCode::minus, v, 1.0, ctx).values_vector<double>(),
            (std::vector<double>{0, 3, 8}));
  const Vector big = select_vector(SelectOpCode::value_gt, v, 3.0, ctx);
  EXPECT_EQ(big.indices_vector(), (std::vector<Index>{2, 5}));
  Vector w = Vector::from_entries<std::int64_t>(6, {0, 1}, {7, 8});
  assign_scalar(w, sparse(6, {1, 3}, {0.0, 0.0}), Index{42}, ctx);  // values of the mask unused
  EXPECT_EQ(w.indices_vector(), (std::vector<Index>{0, 1, 3}));
  EXPECT_EQ(w.values_vector<std::int64_t>(), (std::vector<std::int64_t>{7, 42, 42}));
}

TEST(AlgorithmsGraphVectors, ConstantIndexAndFunctionMatrix) {
  Context ctx(Backend::cpu);
  EXPECT_EQ(constant_vector(3, 2.0, Location::host, ctx).values_vector<double>(),
            (std::vector<double>{2, 2, 2}));
  const Vector id = index_vector(4, Location::host, ctx);
  EXPECT_EQ(id.values_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(id.indices_vector(), (std::vector<Index>{0, 1, 2, 3}));
  for (const Scalar& s : {Scalar(true), Scalar(std::int32_t(-3)), Scalar(Index{5}), Scalar(1.5f)}) {
    const Vector c = constant_vector(5, s, Location::host, ctx);
    c.check_invariants();
    EXPECT_EQ(c.type(), s.type());
    EXPECT_EQ(c.nnz(), 5);
    EXPECT_EQ(c.indices_vector(), (std::vector<Index>{0, 1, 2, 3, 4}));
    EXPECT_EQ(c.cast(Type::fp64).values_vector<double>(), std::vector<double>(5, s.as<double>()));
  }
  EXPECT_EQ(constant_vector(0, 1.0, Location::host, ctx).nnz(), 0);
  EXPECT_THROW(full_vector<double>(-1, 0.0, Location::host, ctx), InvalidValue);
  // f = (2, 0, 2, 1): gather x(f(i)) and scatter min onto f(i).
  const Vector f = Vector::dense<std::int64_t>({2, 0, 2, 1});
  const FunctionMatrix functions(4, Location::host, ctx);
  const Matrix F = functions.of(f);
  F.check_invariants();
  const Vector x = Vector::dense<std::int64_t>({10, 11, 12, 13});
  const Semiring min_second = semiring("min_second", Type::int64);
  Vector gathered(4, Type::int64), scattered(4, Type::int64);
  mxv(gathered, nullptr, no_accum, min_second, F, x, {}, ctx);
  EXPECT_EQ(gathered.values_vector<std::int64_t>(), (std::vector<std::int64_t>{12, 10, 12, 11}));
  Descriptor t;
  t.transpose_a = true;
  mxv(scattered, nullptr, no_accum, min_second, F, x, t, ctx);  // f^-1: 0<-1, 1<-3, 2<-{0,2}
  EXPECT_EQ(scattered.indices_vector(), (std::vector<Index>{0, 1, 2}));
  EXPECT_EQ(scattered.values_vector<std::int64_t>(), (std::vector<std::int64_t>{11, 13, 10}));
  EXPECT_THROW(functions.of(Vector::dense<double>({0, 1, 2, 3})), InvalidValue);
  EXPECT_THROW(functions.of(Vector::from_entries<std::int64_t>(4, {0}, {0})), InvalidValue);
}

}  // namespace
