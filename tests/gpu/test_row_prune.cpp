// mxm_prune_rows on the cuda variant spgemm_prune against the cpu reference: random and tied
// products under every branch of the rule, rows spanning several shared-memory windows, a
// reservation too small for the survivors (the rerun at the exact size), rows wide enough for the
// sparse accumulator, a block of rows with loops, fp32; stats included. Outputs poisoned first.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"
#include "support/row_prune_oracle.hpp"

namespace ringblas::test {
namespace {

class RowPruneGpu : public GpuTest {
 protected:
  /// cuda (forced spgemm_prune) equals cpu: structure exactly, values within `rel` (0: exact).
  void expect_cuda_equals_cpu(const Matrix& A, const Matrix& B, const RowPrune& r, double rel = 0) {
    const Type t = A.type();
    const Semiring s = semiring("plus_times", t);
    Context cpu(Backend::cpu), gpu(Backend::cuda);
    Matrix want(A.nrows(), B.ncols(), t), got(A.nrows(), B.ncols(), t);
    RowPruneStats ws, gs;
    mxm_prune_rows(want, s, A, B, r, &ws, {}, cpu);
    poison_device_pool(std::size_t(64) << 20, gpu);
    Descriptor d;
    d.variant = Variant::spgemm_prune;
    mxm_prune_rows(got, s, A.to(Location::device, gpu), B.to(Location::device, gpu), r, &gs, d,
                   gpu);
    ASSERT_EQ(got.location(), Location::device);
    const Matrix h = got.to(Location::host, gpu);
    const std::string what = "P>=" + std::to_string(r.threshold) +
                             " S=" + std::to_string(r.select) + " R=" + std::to_string(r.recover);
    EXPECT_EQ(h.row_ptr_vector(), want.row_ptr_vector()) << what;
    EXPECT_EQ(h.col_idx_vector(), want.col_idx_vector()) << what;
    const auto gv = h.cast(Type::fp64).values_vector<double>();
    const auto wv = want.cast(Type::fp64).values_vector<double>();
    ASSERT_EQ(gv.size(), wv.size()) << what;
    for (std::size_t e = 0; e < gv.size(); ++e)
      if (rel == 0)
        ASSERT_EQ(gv[e], wv[e]) << what << " entry " << e;
      else
        ASSERT_NEAR(gv[e], wv[e], rel * std::abs(wv[e])) << what << " entry " << e;
    EXPECT_EQ(gs.expanded_nnz, ws.expanded_nnz) << what;
    EXPECT_EQ(gs.rows_selected, ws.rows_selected) << what;
    EXPECT_EQ(gs.rows_recovered, ws.rows_recovered) << what;
    const auto gm = gs.row_max.to(Location::host, gpu).cast(Type::fp64).values_vector<double>();
    const auto wm = ws.row_max.cast(Type::fp64).values_vector<double>();
    EXPECT_EQ(gm, wm) << what;
    const auto gq = gs.row_sumsq.to(Location::host, gpu).cast(Type::fp64).values_vector<double>();
    const auto wq = ws.row_sumsq.cast(Type::fp64).values_vector<double>();
    ASSERT_EQ(gq.size(), wq.size());
    for (std::size_t i = 0; i < gq.size(); ++i)
      EXPECT_NEAR(gq[i], wq[i], 1e-5 * (1 + std::abs(wq[i]))) << what << " row " << i;
  }
};

TEST_F(RowPruneGpu, TiedIntegerProductsUnderEveryBranch) {
  // Small integers: every summation order gives the same value, so the results are exact.
  const Matrix A =
      nonneg(random_matrix(60, 40, 0.3, Type::fp64, 21, Pattern::random, ValueKind::integral));
  const Matrix B =
      nonneg(random_matrix(40, 70, 0.3, Type::fp64, 22, Pattern::random, ValueKind::integral));
  for (const RowPrune& r : {rule(1, 0, 0, 0), rule(1, 2, 0, 0), rule(1, 3, 5, 1e9),
                            rule(4, 0, 3, 1e9), rule(2, 1, 4, 30), rule(0, 1, 0, 0),
                            rule(0, 1000, 0, 0), rule(1e9, 0, 0, 0, true), rule(3, 2, 0, 0, true)})
    expect_cuda_equals_cpu(A, B, r);
}

TEST_F(RowPruneGpu, StochasticRowsLikeMcl) {
  // mcl's defaults (-P 10000 -S 1100 -R 1400 -pct 90) scaled to the size: -S 20 -R 30.
  const Matrix A = nonneg(random_matrix(300, 300, 0.05, Type::fp64, 31));
  for (const RowPrune& r : {rule(0.99999 / 10000, 20, 30, 0.9), rule(0.99999 / 50, 20, 30, 0.9),
                            rule(0.99999 / 50, 10, 0, 0, true)})
    expect_cuda_equals_cpu(A, A, r, 1e-12);
}

TEST_F(RowPruneGpu, RowsSpanningSeveralWindowsAndEmptyRows) {
  // 30000 columns: rows reach columns in 4 windows of 8192; every other row of A empty.
  const Matrix A =
      nonneg(random_matrix(64, 200, 0.2, Type::fp64, 41, Pattern::empty_rows, ValueKind::integral));
  const Matrix B =
      nonneg(random_matrix(200, 30000, 0.01, Type::fp64, 42, Pattern::random, ValueKind::integral));
  for (const RowPrune& r : {rule(2, 50, 0, 0), rule(1, 0, 400, 1e9), rule(1, 100, 300, 1e9)})
    expect_cuda_equals_cpu(A, B, r);
}

TEST_F(RowPruneGpu, VeryWideRowsTakeTheSparseAccumulator) {
  // 150000 columns: rows span more than policy::spa_min_span (131072) and go through the global
  // sparse accumulator, their survivors sorted afterwards; a few short rows stay on windows.
  const Matrix A =
      nonneg(random_matrix(40, 300, 0.2, Type::fp64, 71, Pattern::empty_rows, ValueKind::integral));
  const Matrix B = nonneg(
      random_matrix(300, 150000, 0.001, Type::fp64, 72, Pattern::random, ValueKind::integral));
  for (const RowPrune& r :
       {rule(2, 50, 0, 0), rule(1, 0, 400, 1e9), rule(1, 100, 300, 1e9), rule(0, 0, 0, 0)})
    expect_cuda_equals_cpu(A, B, r);
}

TEST_F(RowPruneGpu, ShortReservationIsRerunAtTheExactSize) {
  // No selection or recovery: the first reservation (20 per row) is far below the survivors.
  const Matrix A =
      nonneg(random_matrix(100, 100, 0.3, Type::fp64, 51, Pattern::dense_row, ValueKind::integral));
  expect_cuda_equals_cpu(A, A, rule(0, 0, 0, 0));
}

TEST_F(RowPruneGpu, BlockOfRowsWithLoopsAndSinglePrecision) {
  const Matrix A =
      nonneg(random_matrix(20, 50, 0.2, Type::fp32, 61, Pattern::random, ValueKind::integral));
  const Matrix B =
      nonneg(random_matrix(50, 50, 0.2, Type::fp32, 62, Pattern::random, ValueKind::integral));
  expect_cuda_equals_cpu(A, B, rule(3, 2, 0, 0, true, 25));
  expect_cuda_equals_cpu(A, B, rule(1, 3, 4, 1e9));
}

}  // namespace
}  // namespace ringblas::test
