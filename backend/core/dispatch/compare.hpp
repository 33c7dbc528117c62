// Entry-by-entry comparison of two results, used by the verify backend and by the tests.
#pragma once
#include <optional>
#include <string>

#include "ringblas/descriptor.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::detail {

struct Tolerance {
  double rel = 0.0;       ///< |a-b| <= rel * max(|a|, |b|) + abs passes (floats only)
  double abs = 0.0;
  bool values_any = false;  ///< any-monoid results: only the structure must agree
  /// Sums that cancel: also pass when |a-b| <= scale_rel * S(i,j), S = Σ|products| of the entry
  /// (a host matrix or dense matrix with the result's shape; absent entries count as 0).
  const Matrix* scale = nullptr;
  const DenseMatrix* dense_scale = nullptr;
  const Vector* vector_scale = nullptr;  ///< S(i) of a vector result (absent entries count as 0)
  double scalar_scale = 0.0;             ///< S of a scalar result
  double scale_rel = 0.0;
  /// Exact for integers and bool; for floats, loose enough for a different summation order of
  /// `terms` products (1e-12 per term in fp64, 1e-5 per term in fp32, at least 64 terms' worth).
  static Tolerance for_type(Type t, double terms = 64);
};

/// nullopt when equal; else a message naming the first differing entry, e.g.
/// "C(3,7): 1.5 vs 1.25" or "C(3,7): present only in the first".
std::optional<std::string> compare(const Matrix& a, const Matrix& b, const Tolerance& tol);
std::optional<std::string> compare(const Vector& a, const Vector& b, const Tolerance& tol);
std::optional<std::string> compare(const DenseMatrix& a, const DenseMatrix& b, const Tolerance& tol);
std::optional<std::string> compare(const DenseVector& a, const DenseVector& b, const Tolerance& tol);
std::optional<std::string> compare(const Scalar& a, const Scalar& b, const Tolerance& tol);

}  // namespace ringblas::detail
