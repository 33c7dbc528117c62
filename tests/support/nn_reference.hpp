// Naive references for the dense nn operations (include/ringblas/nn.hpp), written from the
// formulas in double on std::vector, and random operands for their tests (cpu and gpu suites).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "ringblas/matrix.hpp"
#include "ringblas/nn.hpp"

namespace ringblas::test::nn_ref {

/// Row-major values of a host DenseMatrix / DenseVector as doubles.
inline std::vector<double> values(const DenseMatrix& m) {
  std::vector<double> v(std::size_t(m.nrows() * m.ncols()));
  for (Index i = 0; i < m.nrows(); ++i)
    for (Index j = 0; j < m.ncols(); ++j) v[std::size_t(i * m.ncols() + j)] = m.at<double>(i, j);
  return v;
}
inline std::vector<double> values(const DenseVector& x) {
  std::vector<double> v(std::size_t(x.size()));
  for (Index k = 0; k < x.size(); ++k)
    v[std::size_t(k)] =
        x.type() == Type::fp32 ? double(x.values().as<float>()[k]) : x.values().as<double>()[k];
  return v;
}

inline DenseMatrix random_dense(Index r, Index c, Type t, std::uint64_t seed, double lo = -1,
                                double hi = 1) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  if (t == Type::fp32) {
    std::vector<float> v(std::size_t(r * c));
    for (auto& x : v) x = float(u(g));
    return DenseMatrix::from_values(r, c, v);
  }
  std::vector<double> v(std::size_t(r * c));
  for (auto& x : v) x = u(g);
  return DenseMatrix::from_values(r, c, v);
}

inline DenseVector int32_vector(const std::vector<std::int32_t>& v) {
  return DenseVector::from_values(v);
}

/// C = alpha·op(A)·op(B) + beta·C0 (beta == 0: C0 not read).
inline std::vector<double> gemm(double alpha, const DenseMatrix& A, bool ta, const DenseMatrix& B,
                                bool tb, double beta, const DenseMatrix& C0) {
  const Index m = C0.nrows(), n = C0.ncols(), k = ta ? A.nrows() : A.ncols();
  std::vector<double> c(std::size_t(m * n));
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < n; ++j) {
      double s = 0;
      for (Index l = 0; l < k; ++l)
        s += (ta ? A.at<double>(l, i) : A.at<double>(i, l)) *
             (tb ? B.at<double>(j, l) : B.at<double>(l, j));
      c[std::size_t(i * n + j)] = alpha * s + (beta == 0 ? 0.0 : beta * C0.at<double>(i, j));
    }
  return c;
}

/// (mean loss over rows, gradient) of softmax cross-entropy.
inline std::pair<double, std::vector<double>> softmax_ce(const DenseMatrix& Z,
                                                         const std::vector<std::int32_t>& labels,
                                                         const std::vector<std::int32_t>& rows) {
  const Index c = Z.ncols();
  std::vector<double> g(std::size_t(Z.nrows() * c), 0.0);
  double loss = 0;
  for (std::int32_t i : rows) {
    double mx = -INFINITY;
    for (Index j = 0; j < c; ++j) mx = std::max(mx, Z.at<double>(i, j));
    double sum = 0;
    for (Index j = 0; j < c; ++j) sum += std::exp(Z.at<double>(i, j) - mx);
    for (Index j = 0; j < c; ++j) {
      const double p = std::exp(Z.at<double>(i, j) - mx) / sum;
      g[std::size_t(i * c + j)] =
          (p - (j == labels[std::size_t(i)] ? 1.0 : 0.0)) / double(rows.size());
      if (j == labels[std::size_t(i)]) loss -= std::log(p);
    }
  }
  return {loss / double(rows.size()), g};
}

}  // namespace ringblas::test::nn_ref
