// mxm_prune_rows on the cpu (SuiteSparse's product, then the rule row by row) against mcl's
// pruning computed by a chain of existing GraphBLAS operations (support/row_prune_oracle): random
// matrices, ties, select larger than the rows, empty rows, recovery from E and after selection,
// loops for emptied rows, a block of rows with its diagonal offset; plus the argument checks.
#include <gtest/gtest.h>

#include <string>

#include "ringblas/ringblas.hpp"
#include "support/random_matrix.hpp"
#include "support/row_prune_oracle.hpp"

namespace ringblas::test {
namespace {

Context cpu() { return Context(Backend::cpu); }

std::string describe(const RowPrune& r) {
  return "P>=" + std::to_string(r.threshold) + " S=" + std::to_string(r.select) +
         " R=" + std::to_string(r.recover) + " mass<" + std::to_string(r.recover_mass) +
         (r.loop_if_empty ? " loops@" + std::to_string(r.diagonal_offset) : "");
}

/// The op on the cpu equals the oracle on E = A ⊕.⊗ B exactly (both prune the same E).
void expect_matches_oracle(const Matrix& A, const Matrix& B, const RowPrune& r,
                           RowPruneStats* out = nullptr) {
  Context c = cpu();
  const Type t = A.type();
  Matrix E(A.nrows(), B.ncols(), t);
  mxm(E, nullptr, no_accum, semiring("plus_times", t), A, B, {}, c);
  const PrunedRows want = prune_by_existing_ops(E, r, c);
  Matrix C(A.nrows(), B.ncols(), t);
  RowPruneStats st;
  mxm_prune_rows(C, semiring("plus_times", t), A, B, r, &st, {}, c);
  if (out) *out = st;
  const std::string what = describe(r);
  ASSERT_EQ(C.location(), Location::host);
  EXPECT_EQ(C.row_ptr_vector(), want.F.row_ptr_vector()) << what;
  EXPECT_EQ(C.col_idx_vector(), want.F.col_idx_vector()) << what;
  EXPECT_EQ(C.cast(Type::fp64).values_vector<double>(),
            want.F.cast(Type::fp64).values_vector<double>())
      << what;
  EXPECT_EQ(st.expanded_nnz, E.nnz()) << what;
  EXPECT_EQ(st.rows_selected, want.selected) << what;
  EXPECT_EQ(st.rows_recovered, want.recovered) << what;
  ASSERT_EQ(st.row_max.nnz(), A.nrows());
  EXPECT_EQ(st.row_max.cast(Type::fp64).values_vector<double>(), want.max) << what;
  const std::vector<double> sq = st.row_sumsq.cast(Type::fp64).values_vector<double>();
  ASSERT_EQ(sq.size(), want.sumsq.size());
  for (std::size_t i = 0; i < sq.size(); ++i)  // SuiteSparse may sum in another order
    EXPECT_NEAR(sq[i], want.sumsq[i], 1e-12 * (1 + want.sumsq[i])) << what << " row " << i;
}

TEST(RowPrune, RandomProductsUnderEveryBranch) {
  const Matrix A = nonneg(random_matrix(40, 30, 0.3, Type::fp64, 11));
  const Matrix B = nonneg(random_matrix(30, 50, 0.3, Type::fp64, 12));
  Index selected = 0, recovered = 0, kept = 0;
  for (const RowPrune& r : {rule(0.5, 0, 0, 0), rule(0.2, 5, 0, 0), rule(0.3, 0, 8, 2.5),
                            rule(0.1, 4, 10, 1e9), rule(0.1, 4, 6, 0.5), rule(0, 7, 0, 0),
                            rule(1e9, 0, 0, 0, true), rule(1.0, 3, 0, 0, true)}) {
    RowPruneStats st;
    expect_matches_oracle(A, B, r, &st);
    selected += st.rows_selected;
    recovered += st.rows_recovered;
    kept += st.expanded_nnz;
  }
  // The cases reach every branch (a test of nothing would pass too).
  EXPECT_GT(selected, 0);
  EXPECT_GT(recovered, 0);
  EXPECT_GT(kept, 0);
}

TEST(RowPrune, TiesAtTheKthValueAreKept) {
  // Small integers: many equal products, so the k-th largest is shared by several entries.
  const Matrix A =
      nonneg(random_matrix(30, 20, 0.4, Type::fp64, 21, Pattern::random, ValueKind::integral));
  const Matrix B =
      nonneg(random_matrix(20, 25, 0.4, Type::fp64, 22, Pattern::random, ValueKind::integral));
  for (const RowPrune& r : {rule(1, 2, 0, 0), rule(1, 3, 5, 1e9), rule(4, 0, 3, 1e9),
                            rule(2, 1, 4, 30), rule(0, 1, 0, 0)})
    expect_matches_oracle(A, B, r);
}

TEST(RowPrune, SelectionLargerThanTheRowsKeepsThemWhole) {
  const Matrix A = nonneg(random_matrix(20, 20, 0.3, Type::fp64, 31));
  const Matrix B = nonneg(random_matrix(20, 20, 0.3, Type::fp64, 32));
  expect_matches_oracle(A, B, rule(0, 1000, 0, 0));
  expect_matches_oracle(A, B, rule(0.01, 1000, 2000, 1e9));
}

TEST(RowPrune, EmptyRowsAndLoopsOfABlockOfRows) {
  const Matrix A = nonneg(random_matrix(16, 24, 0.3, Type::fp64, 41, Pattern::empty_rows));
  const Matrix B = nonneg(random_matrix(24, 40, 0.3, Type::fp64, 42));
  expect_matches_oracle(A, B, rule(0.4, 3, 0, 0, true, 0));
  // Rows 16..31 of a 40-column problem: the loops go to (i, 16 + i).
  expect_matches_oracle(A, B, rule(0.4, 3, 0, 0, true, 16));
  expect_matches_oracle(A, B, rule(0.4, 3, 5, 1.5));
}

TEST(RowPrune, SinglePrecisionAndNegativeValues) {
  const Matrix A = random_matrix(25, 25, 0.3, Type::fp32, 51, Pattern::random, ValueKind::integral);
  const Matrix B = random_matrix(25, 25, 0.3, Type::fp32, 52, Pattern::random, ValueKind::integral);
  expect_matches_oracle(A, B, rule(2, 3, 0, 0));
  expect_matches_oracle(A, B, rule(-1, 2, 4, 10));
}

TEST(RowPrune, BadArgumentsThrow) {
  Context c = cpu();
  const Matrix A = random_matrix(4, 5, 0.5, Type::fp64, 61);
  const Matrix B = random_matrix(5, 6, 0.5, Type::fp64, 62);
  const Semiring s = semiring("plus_times", Type::fp64);
  Matrix C(4, 6, Type::fp64);
  EXPECT_THROW(mxm_prune_rows(C, s, A, A, {}, nullptr, {}, c), DimensionMismatch);
  Matrix wrong(4, 5, Type::fp64);
  EXPECT_THROW(mxm_prune_rows(wrong, s, A, B, {}, nullptr, {}, c), DimensionMismatch);
  EXPECT_THROW(mxm_prune_rows(C, s, A, B, rule(0, -1, 0, 0), nullptr, {}, c), InvalidValue);
  EXPECT_THROW(mxm_prune_rows(C, s, A, B, rule(0, 0, 0, -1), nullptr, {}, c), InvalidValue);
  // Loops (i, 3 + i) of 4 rows need 7 columns.
  EXPECT_THROW(mxm_prune_rows(C, s, A, B, rule(0, 0, 0, 0, true, 3), nullptr, {}, c), InvalidValue);
  Descriptor masked;
  masked.mask_complement = true;
  EXPECT_THROW(mxm_prune_rows(C, s, A, B, {}, nullptr, masked, c), NotImplemented);
  Matrix Cb(4, 6, Type::boolean);
  EXPECT_THROW(mxm_prune_rows(Cb, semiring("lor_land", Type::boolean), A.cast(Type::boolean),
                              B.cast(Type::boolean), {}, nullptr, {}, c),
               NotImplemented);
}

}  // namespace
}  // namespace ringblas::test
