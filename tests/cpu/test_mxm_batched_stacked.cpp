// mxm_batched in the stacked layout (a mini-batch of graphs) against each item through the dense
// mxm, on the cpu executor: epilogues, transposed items, empty and rectangular items, errors.
#include <gtest/gtest.h>

#include <vector>

#include "ringblas/ringblas.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

/// Rows [r0, r0 + m) of a host dense matrix as its own matrix.
DenseMatrix rows_of(const DenseMatrix& x, Index r0, Index m) {
  std::vector<double> v;
  for (Index i = r0; i < r0 + m; ++i)
    for (Index j = 0; j < x.ncols(); ++j) v.push_back(x.at<double>(i, j));
  return DenseMatrix::from_values(m, x.ncols(), v);
}

struct Items {
  std::vector<Matrix> A;
  Index rows = 0, cols = 0;  // of op(A) stacked
};

/// Square and rectangular items, an empty one and a 0 x 0 one.
Items make_items(bool transpose, Type t, std::uint64_t seed) {
  Items it;
  const std::vector<std::pair<Index, Index>> dims{{5, 5}, {1, 1}, {7, 3}, {0, 0}, {4, 6}, {3, 3}};
  for (std::size_t k = 0; k < dims.size(); ++k) {
    const auto [m, n] = dims[k];
    it.A.push_back(random_matrix(m, n, 0.5, t, seed + k, k == 5 ? Pattern::empty : Pattern::random,
                                 ValueKind::integral));
    it.rows += transpose ? n : m;
    it.cols += transpose ? m : n;
  }
  return it;
}

void expect_matches_items(const Semiring& s, const Epilogue& ep, bool transpose) {
  const Items it = make_items(transpose, s.type, 11);
  const Index n = 5;
  const DenseMatrix B = random_dense(it.cols, n, s.type, 3, Layout::row_major, ValueKind::integral);
  DenseMatrix C(it.rows, n, s.type);
  Descriptor d;
  d.transpose_a = transpose;
  Context ctx(Backend::cpu);
  mxm_batched(C, s, it.A, B, ep, d, ctx);
  Index rb = 0, rc = 0;
  for (std::size_t k = 0; k < it.A.size(); ++k) {
    const Index m = transpose ? it.A[k].ncols() : it.A[k].nrows();
    const Index kk = transpose ? it.A[k].nrows() : it.A[k].ncols();
    DenseMatrix ck(m, n, s.type);
    mxm(ck, s, it.A[k], rows_of(B, rb, kk).to(Location::host, ctx), ep, d, ctx);
    for (Index i = 0; i < m; ++i)
      for (Index j = 0; j < n; ++j)
        EXPECT_EQ(C.at<double>(rc + i, j), ck.at<double>(i, j))
            << "item " << k << " (" << i << ", " << j << ")";
    rb += kk;
    rc += m;
  }
}

TEST(MxmBatchedStacked, MatchesItemsPlain) {
  expect_matches_items(semiring("plus_times", Type::fp64), Epilogue::none(), false);
}
TEST(MxmBatchedStacked, MatchesItemsTransposed) {
  expect_matches_items(semiring("plus_times", Type::fp64), Epilogue::none(), true);
}
TEST(MxmBatchedStacked, MatchesItemsBiasRelu) {
  const DenseVector bias = DenseVector::from_values(std::vector<double>{-2, 0, 1, -1, 3});
  expect_matches_items(semiring("plus_times", Type::fp64), Epilogue::bias_relu(bias), false);
}
TEST(MxmBatchedStacked, MatchesItemsMinPlus) {
  expect_matches_items(semiring("min_plus", Type::fp64), Epilogue::none(), false);
}

TEST(MxmBatchedStacked, Errors) {
  const Semiring s = semiring("plus_times", Type::fp64);
  const Items it = make_items(false, Type::fp64, 5);
  DenseMatrix C(it.rows, 2), wrong_c(it.rows + 1, 2), B(it.cols, 2), wrong_b(it.cols - 1, 2);
  EXPECT_THROW(mxm_batched(wrong_c, s, it.A, B, Epilogue::none()), DimensionMismatch);
  EXPECT_THROW(mxm_batched(C, s, it.A, wrong_b, Epilogue::none()), DimensionMismatch);
  const DenseVector bias3 = DenseVector::from_values(std::vector<double>{1, 2, 3});
  EXPECT_THROW(mxm_batched(C, s, it.A, B, Epilogue::bias_add(bias3)), InvalidValue);
  Descriptor tb;
  tb.transpose_b = true;
  EXPECT_THROW(mxm_batched(C, s, it.A, B, Epilogue::none(), tb), NotImplemented);
}

}  // namespace
}  // namespace ringblas::test
