// The verify backend's comparison: exact structure, and for float sums that cancel, a tolerance
// scaled by Σ|products| rather than by the result (regression: bcsstk16 squared failed verify).
#include <gtest/gtest.h>

#include "backend/core/dispatch/compare.hpp"
#include "ringblas/matrix.hpp"

using namespace ringblas;
using detail::compare;
using detail::Tolerance;

namespace {
Matrix one_entry(double v) { return Matrix::from_triplets<double>(2, 2, {1}, {0}, {v}); }
}  // namespace

TEST(CompareTolerance, CancellingSumFailsWithoutScaleAndPassesWithIt) {
  // cuda and cpu summed terms of magnitude ~1e9 in different orders: 3395.125 vs 3395.15625.
  const Matrix got = one_entry(3395.125), want = one_entry(3395.15625);
  Tolerance tol = Tolerance::for_type(Type::fp64, 60);
  EXPECT_TRUE(compare(got, want, tol).has_value());
  const Matrix scale = one_entry(1.0e13);  // Σ|products| of that entry (values ~1e6-1e7)
  tol.scale = &scale;
  tol.scale_rel = 2.0 * 4884 * 2.3e-16;  // n·eps with n = the inner dimension
  EXPECT_FALSE(compare(got, want, tol).has_value());
  // A real error stays visible: a difference of the order of the terms themselves.
  EXPECT_TRUE(compare(one_entry(3395.125), one_entry(1.0e6), tol).has_value());
}

TEST(CompareTolerance, ScaleEntryAbsentMeansNoExtraTolerance) {
  const Matrix got = one_entry(1.0), want = one_entry(1.001);
  Tolerance tol = Tolerance::for_type(Type::fp64);
  const Matrix scale = Matrix::from_triplets<double>(2, 2, {0}, {1}, {1.0e12});  // other position
  tol.scale = &scale;
  tol.scale_rel = 1e-9;
  auto diff = compare(got, want, tol);
  ASSERT_TRUE(diff.has_value());
  EXPECT_NE(diff->find("(1,0)"), std::string::npos) << *diff;
}

TEST(CompareTolerance, StructureMustMatchWhateverTheTolerance) {
  Tolerance tol = Tolerance::for_type(Type::fp64, 1e6);
  tol.values_any = true;
  const Matrix a = one_entry(1.0), b = Matrix::from_triplets<double>(2, 2, {0}, {0}, {1.0});
  auto diff = compare(a, b, tol);
  ASSERT_TRUE(diff.has_value());
  EXPECT_NE(diff->find("present only in the"), std::string::npos) << *diff;
}

TEST(CompareTolerance, DenseScale) {
  const DenseMatrix got = DenseMatrix::from_values<double>(1, 1, {-200.0});
  const DenseMatrix want = DenseMatrix::from_values<double>(1, 1, {-229.0});
  Tolerance tol = Tolerance::for_type(Type::fp32, 60);
  EXPECT_TRUE(compare(got, want, tol).has_value());
  const DenseMatrix scale = DenseMatrix::from_values<double>(1, 1, {3.0e9});
  tol.dense_scale = &scale;
  tol.scale_rel = 2.0 * 60 * 1.2e-7;
  EXPECT_FALSE(compare(got, want, tol).has_value());
}
