// Naive references for the MaxK-GNN operations (see maxk_reference.hpp).
#include "support/maxk_reference.hpp"

#include <algorithm>
#include <numeric>

#include "support/random_matrix.hpp"

namespace ringblas::test {

TopkRef reference_topk(const std::vector<float>& y, Index n, Index h, int k) {
  TopkRef r;
  r.values.resize(std::size_t(n * k));
  r.indices.resize(std::size_t(n * k));
  for (Index i = 0; i < n; ++i) {
    std::vector<bool> taken(static_cast<std::size_t>(h), false);
    std::vector<int> chosen;
    for (int t = 0; t < k; ++t) {
      int best = -1;
      for (Index j = 0; j < h; ++j) {
        if (taken[j]) continue;
        // Strictly greater keeps the earlier (smaller) column on ties.
        if (best < 0 || y[i * h + j] > y[i * h + best]) best = int(j);
      }
      taken[best] = true;
      chosen.push_back(best);
    }
    std::sort(chosen.begin(), chosen.end());
    for (int t = 0; t < k; ++t) {
      r.values[i * k + t] = y[i * h + chosen[t]];
      r.indices[i * k + t] = std::uint8_t(chosen[t]);
    }
  }
  return r;
}

namespace {
/// op(A) as a dense double matrix.
std::vector<double> dense_of(const Matrix& A, bool transpose_a, Index& rows, Index& cols) {
  rows = transpose_a ? A.ncols() : A.nrows();
  cols = transpose_a ? A.nrows() : A.ncols();
  std::vector<double> d(std::size_t(rows * cols), 0.0);
  const auto rp = A.row_ptr_vector(), ci = A.col_idx_vector();
  const Matrix a64 = A.cast(Type::fp64);
  const auto v = a64.values_vector<double>();
  for (Index i = 0; i < A.nrows(); ++i)
    for (Index e = rp[i]; e < rp[i + 1]; ++e) {
      const Index r = transpose_a ? ci[e] : i, c = transpose_a ? i : ci[e];
      d[r * cols + c] += v[e];
    }
  return d;
}
}  // namespace

/// op(A) B as a dense row-major double matrix (m x B's columns); B dense, host.
std::vector<double> dense_product(const Matrix& A, bool transpose_a, const DenseMatrix& B) {
  Index m = 0, inner = 0;
  const std::vector<double> a = dense_of(A, transpose_a, m, inner);
  const Index h = B.ncols();
  std::vector<double> c(std::size_t(m * h), 0.0);
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < inner; ++j) {
      if (a[i * inner + j] == 0.0) continue;
      for (Index q = 0; q < h; ++q) c[i * h + q] += a[i * inner + j] * B.at<double>(j, q);
    }
  return c;
}

std::vector<double> reference_forward(const Matrix& A, const Cbsr& X, bool transpose_a) {
  return dense_product(A, transpose_a, X.to_dense());
}

std::vector<double> reference_sampled(const Matrix& A, const DenseMatrix& B, const Cbsr& pattern,
                                      bool transpose_a) {
  const std::vector<double> c = dense_product(A, transpose_a, B);
  const auto idx = pattern.indices_vector();
  const int k = pattern.k();
  const Index h = B.ncols();
  std::vector<double> out(std::size_t(pattern.nrows() * k));
  for (Index i = 0; i < pattern.nrows(); ++i)
    for (int t = 0; t < k; ++t) out[i * k + t] = c[i * h + idx[i * k + t]];
  return out;
}

std::vector<float> random_features(Index n, Index h, bool ties, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> y(std::size_t(n * h));
  for (Index i = 0; i < n; ++i) {
    if (ties) {
      for (Index j = 0; j < h; ++j) y[i * h + j] = float(rng.between(-2, 2));
      continue;
    }
    std::vector<int> perm(static_cast<std::size_t>(h));
    std::iota(perm.begin(), perm.end(), 0);
    for (Index j = h - 1; j > 0; --j) std::swap(perm[j], perm[rng.between(0, j)]);
    for (Index j = 0; j < h; ++j) y[i * h + j] = float(perm[j] - h / 2) * 0.01f + 0.001f;
  }
  return y;
}

Matrix random_adjacency(Index n, Index ncols, int degree, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Index> r, c;
  std::vector<float> v;
  for (Index i = 0; i < n; ++i) {
    if (i % 3 == 1) continue;  // degree-0 rows
    for (int e = 0; e < degree; ++e) {
      r.push_back(i);
      c.push_back(rng.between(0, ncols - 1));
      v.push_back(float(0.25 + 0.75 * rng.uniform()));
    }
  }
  return Matrix::from_triplets(n, ncols, r, c, v, Dup::sum, IndexType::i32);
}

}  // namespace ringblas::test
