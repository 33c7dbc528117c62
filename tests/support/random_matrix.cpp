// Seeded random matrices, vectors, masks and the degenerate case catalog (see random_matrix.hpp).
#include "support/random_matrix.hpp"

#include <cmath>

namespace ringblas::test {

std::uint64_t Rng::next() {  // splitmix64
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
std::int64_t Rng::between(std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
}

double random_value(Rng& rng, Type t, ValueKind kind) {
  switch (t) {
    case Type::boolean:
      return rng.chance(0.7) ? 1.0 : 0.0;
    case Type::int32:
    case Type::int64:
      return static_cast<double>(rng.between(-3, 6));
    default: {
      if (kind == ValueKind::integral) return static_cast<double>(rng.between(-3, 6));
      // (0, 1] on a 1/1024 grid: exact in fp32, so fp32 and fp64 inputs hold the same values.
      const double v = static_cast<double>(rng.between(1, 1024)) / 1024.0;
      return rng.chance(0.25) ? -v : v;
    }
  }
}

std::string pattern_name(Pattern p) {
  switch (p) {
    case Pattern::random:
      return "random";
    case Pattern::empty:
      return "empty";
    case Pattern::empty_rows:
      return "empty_rows";
    case Pattern::dense_row:
      return "dense_row";
    case Pattern::full:
      return "full";
    default:
      return "diagonal";
  }
}

namespace {

bool keep(Rng& rng, Pattern p, Index i, Index j, Index m, double density) {
  switch (p) {
    case Pattern::random:
      return rng.chance(density);
    case Pattern::empty:
      return false;
    case Pattern::empty_rows:
      return i % 2 == 1 && rng.chance(density);
    case Pattern::dense_row:
      return i == m / 2 || rng.chance(density);
    case Pattern::full:
      return true;
    default:
      return i == j;
  }
}

template <class T>
std::vector<T> typed(const std::vector<double>& v) {
  std::vector<T> out;
  out.reserve(v.size());
  for (double x : v) out.push_back(static_cast<T>(x));
  return out;
}

/// Row-major triplets of the positions keep(i, j) admits, each valued value() drawn right after
/// its keep (the order every generator here draws its random stream in).
struct Triplets {
  std::vector<Index> rows, cols;
  std::vector<double> vals;
};
template <class Keep, class Value>
Triplets triplets_where(Index m, Index n, Keep&& keep, Value&& value) {
  Triplets t;
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < n; ++j)
      if (keep(i, j)) {
        t.rows.push_back(i);
        t.cols.push_back(j);
        t.vals.push_back(value());
      }
  return t;
}

/// Builds from row-major triplets (already sorted, no duplicates) at type t.
Matrix build(Index m, Index n, const std::vector<Index>& rows, const std::vector<Index>& cols,
             const std::vector<double>& vals, Type t, IndexType itype) {
  return visit_type(t, [&](auto tv) {
    using T = decltype(tv);
    return Matrix::from_triplets<T>(m, n, rows, cols, typed<T>(vals), Dup::error, itype);
  });
}

Vector build_vector(Index size, const std::vector<Index>& idx, const std::vector<double>& vals,
                    Type t) {
  return visit_type(t, [&](auto tv) {
    using T = decltype(tv);
    return Vector::from_entries<T>(size, idx, typed<T>(vals));
  });
}

}  // namespace

Matrix random_matrix(Index nrows, Index ncols, double density, Type t, std::uint64_t seed,
                     Pattern p, ValueKind kind, IndexType itype) {
  Rng rng(seed);
  const Triplets e = triplets_where(
      nrows, ncols, [&](Index i, Index j) { return keep(rng, p, i, j, nrows, density); },
      [&] { return random_value(rng, t, kind); });
  return build(nrows, ncols, e.rows, e.cols, e.vals, t, itype);
}

Matrix random_steps(Rng& rng, Index m, Index n, double density, int lo, int hi, float denominator,
                    IndexType itype) {
  // The float quotient survives the round trip through double exactly.
  const Triplets e = triplets_where(
      m, n, [&](Index, Index) { return rng.chance(density); },
      [&] { return double(float(rng.between(lo, hi)) / denominator); });
  return build(m, n, e.rows, e.cols, e.vals, Type::fp32, itype);
}

Matrix random_mask(Index nrows, Index ncols, double density, Type t, std::uint64_t seed) {
  Rng rng(seed ^ 0x5bd1e995u);
  const Triplets e = triplets_where(
      nrows, ncols, [&](Index, Index) { return rng.chance(density); },
      [&] { return rng.chance(1.0 / 3.0) ? 0.0 : (t == Type::boolean ? 1.0 : 2.0); });
  return build(nrows, ncols, e.rows, e.cols, e.vals, t, IndexType::i64);
}

Vector random_vector(Index size, double density, Type t, std::uint64_t seed, ValueKind kind) {
  Rng rng(seed ^ 0x27d4eb2fu);
  std::vector<Index> idx;
  std::vector<double> vals;
  for (Index i = 0; i < size; ++i)
    if (rng.chance(density)) {
      idx.push_back(i);
      vals.push_back(random_value(rng, t, kind));
    }
  return build_vector(size, idx, vals, t);
}

Vector random_vector_mask(Index size, double density, Type t, std::uint64_t seed) {
  Rng rng(seed ^ 0x165667b1u);
  std::vector<Index> idx;
  std::vector<double> vals;
  for (Index i = 0; i < size; ++i)
    if (rng.chance(density)) {
      idx.push_back(i);
      vals.push_back(rng.chance(1.0 / 3.0) ? 0.0 : 1.0);
    }
  return build_vector(size, idx, vals, t);
}

DenseMatrix random_dense(Index nrows, Index ncols, Type t, std::uint64_t seed, Layout layout,
                         ValueKind kind) {
  Rng rng(seed ^ 0x85ebca6bu);
  std::vector<double> vals(static_cast<std::size_t>(nrows * ncols));
  for (double& v : vals) v = random_value(rng, t, kind);
  return visit_type(t, [&](auto tv) {
    using T = decltype(tv);
    return DenseMatrix::from_values<T>(nrows, ncols, typed<T>(vals), layout);
  });
}

const std::vector<ProductCase>& product_catalog() {
  static const std::vector<ProductCase> cases = {
      {"zero_0x0x0", 0, 0, 0, Pattern::random, Pattern::random, 0.5},
      {"inner_k0", 4, 0, 3, Pattern::random, Pattern::random, 0.5},
      {"rows_m0", 0, 3, 4, Pattern::random, Pattern::random, 0.5},
      {"cols_n0", 4, 3, 0, Pattern::random, Pattern::random, 0.5},
      {"nnz0", 5, 4, 3, Pattern::empty, Pattern::random, 0.5},
      {"empty_rows", 6, 5, 4, Pattern::empty_rows, Pattern::random, 0.6},
      {"single_row", 1, 6, 5, Pattern::random, Pattern::random, 0.5},
      {"dense_row", 7, 8, 5, Pattern::dense_row, Pattern::random, 0.15},
      {"tall", 9, 3, 2, Pattern::random, Pattern::random, 0.5},
      {"wide", 2, 3, 9, Pattern::random, Pattern::random, 0.5},
      {"one_1x1x1", 1, 1, 1, Pattern::full, Pattern::full, 1.0},
      {"diag_times_random", 5, 5, 6, Pattern::diagonal, Pattern::random, 0.4},
      {"random_sparse", 8, 7, 6, Pattern::random, Pattern::random, 0.25},
      {"random_dense", 6, 6, 6, Pattern::random, Pattern::random, 0.8},
  };
  return cases;
}

const std::vector<MatrixCase>& matrix_catalog() {
  static const std::vector<MatrixCase> cases = {
      {"zero_0x0", 0, 0, Pattern::random, 0.5},       {"rows_m0", 0, 4, Pattern::random, 0.5},
      {"cols_n0", 4, 0, Pattern::random, 0.5},        {"nnz0", 5, 4, Pattern::empty, 0.5},
      {"empty_rows", 6, 5, Pattern::empty_rows, 0.6}, {"single_row", 1, 7, Pattern::random, 0.6},
      {"dense_row", 7, 8, Pattern::dense_row, 0.15},  {"one_1x1", 1, 1, Pattern::full, 1.0},
      {"tall", 9, 3, Pattern::random, 0.5},           {"wide", 3, 9, Pattern::random, 0.5},
      {"square_sparse", 8, 8, Pattern::random, 0.3},  {"square_full", 5, 5, Pattern::full, 1.0},
  };
  return cases;
}

Matrix rows_of_lengths(const std::vector<Index>& lengths, Index k, Type t, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Index> r, c;
  std::vector<double> v;
  for (Index i = 0; i < Index(lengths.size()); ++i) {
    std::vector<char> used(static_cast<std::size_t>(k), 0);
    for (Index e = 0; e < lengths[std::size_t(i)]; ++e) {
      Index j = rng.between(0, k - 1);
      while (used[std::size_t(j)]) j = (j + 1) % k;
      used[std::size_t(j)] = 1;
      r.push_back(i), c.push_back(j), v.push_back(double(rng.between(-3, 6)));
    }
  }
  return Matrix::from_triplets(Index(lengths.size()), k, r, c, v, Dup::error, IndexType::i32).cast(t);
}

Matrix integral_values(const Matrix& g, Type t, std::uint64_t seed) {
  Rng rng(seed);
  const auto rp = g.row_ptr_vector(), ci = g.col_idx_vector();
  std::vector<std::int32_t> rp32(rp.begin(), rp.end()), ci32(ci.begin(), ci.end());
  std::vector<double> v(ci.size());
  for (double& x : v) x = double(rng.between(-3, 6));
  return Matrix::from_csr(g.nrows(), g.ncols(), rp32, ci32, v).cast(t);
}

}  // namespace ringblas::test
