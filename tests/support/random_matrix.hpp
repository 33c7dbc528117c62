// Seeded random matrices, vectors and masks of every value type, and the degenerate case catalog
// (0x0, m x 0, 0 x n, nnz = 0, empty rows, one dense row, rectangular, 1x1) that tests iterate.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ringblas/matrix.hpp"

namespace ringblas::test {

/// A small deterministic generator (results do not depend on the standard library's
/// distributions, so a seed means the same matrix everywhere).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  std::uint64_t next();
  /// Uniform in [0, 1).
  double uniform();
  /// Uniform integer in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi);
  bool chance(double p) { return uniform() < p; }

 private:
  std::uint64_t state_;
};

/// How random values are drawn: small integers in [-3, 6] for integer types (no overflow in small
/// products and sums), true with probability 0.7 for bool, for floats (0, 1] with a quarter
/// negated (`general`) or small integers stored as floats (`integral`, exact under any order).
enum class ValueKind : std::uint8_t { general, integral };
/// One random value of type t, as double (exactly representable in t).
double random_value(Rng& rng, Type t, ValueKind kind = ValueKind::general);

/// Where the entries of a generated matrix are.
enum class Pattern : std::uint8_t {
  random,      ///< each position with probability `density`
  empty,       ///< nnz = 0
  empty_rows,  ///< random, but every other row empty
  dense_row,   ///< random, plus one completely full row (the middle one)
  full,        ///< every position
  diagonal,    ///< (i, i) only
};
std::string pattern_name(Pattern p);

Matrix random_matrix(Index nrows, Index ncols, double density, Type t, std::uint64_t seed,
                     Pattern p = Pattern::random, ValueKind kind = ValueKind::general,
                     IndexType itype = IndexType::i64);
/// A mask: random structure whose values are about one third explicit zeros (false), so that
/// value and structural masks differ.
Matrix random_mask(Index nrows, Index ncols, double density, Type t, std::uint64_t seed);
Vector random_vector(Index size, double density, Type t, std::uint64_t seed,
                     ValueKind kind = ValueKind::general);
Vector random_vector_mask(Index size, double density, Type t, std::uint64_t seed);
DenseMatrix random_dense(Index nrows, Index ncols, Type t, std::uint64_t seed,
                         Layout layout = Layout::row_major, ValueKind kind = ValueKind::general);
/// Rows of exactly the lengths given at random distinct columns of k, small integer values
/// (every summation order gives the same float), 32-bit indices, as `t`.
Matrix rows_of_lengths(const std::vector<Index>& lengths, Index k, Type t, std::uint64_t seed);
/// m x n fp32, each position present with probability `density`, valued between(lo, hi) /
/// denominator (rng drawn in row-major order): small steps, exact in fp32, so sums are
/// order-free. The sparse-DNN tests' features and weights.
Matrix random_steps(Rng& rng, Index m, Index n, double density, int lo, int hi, float denominator,
                    IndexType itype = IndexType::i64);
/// g's pattern with 32-bit indices and small integer values in `t`.
Matrix integral_values(const Matrix& g, Type t, std::uint64_t seed);

/// One shape for a product C(m x n) = A(m x k) B(k x n), with the patterns of A and B.
struct ProductCase {
  std::string name;
  Index m, k, n;
  Pattern a, b;
  double density;
};
/// Degenerate and small random products: 0x0x0, k = 0, m = 0, n = 0, nnz = 0, empty rows,
/// a single row, a single dense row, tall, wide, 1x1x1, random sparse and dense.
const std::vector<ProductCase>& product_catalog();

/// One shape for operations on a single matrix (apply, select, reduce, transpose, ...).
struct MatrixCase {
  std::string name;
  Index m, n;
  Pattern p;
  double density;
};
const std::vector<MatrixCase>& matrix_catalog();

}  // namespace ringblas::test
