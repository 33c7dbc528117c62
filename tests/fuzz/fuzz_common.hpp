// Checks shared by the reader fuzz targets: CSR invariants and a Matrix Market round trip.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "ringblas/error.hpp"
#include "ringblas/io.hpp"

namespace ringblas::fuzz {

[[noreturn]] inline void die(const char* target, const char* what) {
  std::fprintf(stderr, "fuzz %s: %s\n", target, what);
  std::abort();
}

inline bool same_values(const Matrix& a, const Matrix& b) {
  if (a.type() == Type::fp64) {
    const auto x = a.values_vector<double>(), y = b.values_vector<double>();
    for (std::size_t k = 0; k < x.size(); ++k)
      if (!(x[k] == y[k] || (std::isnan(x[k]) && std::isnan(y[k])))) return false;
    return true;
  }
  if (a.type() == Type::int64)
    return a.values_vector<std::int64_t>() == b.values_vector<std::int64_t>();
  return a.values_vector<bool>() == b.values_vector<bool>();
}

/// Aborts unless `a` satisfies the CSR invariants and reads back unchanged after being written.
inline void check_and_round_trip(const char* target, const Matrix& a, bool pattern) {
  try {
    a.check_invariants();
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    die(target, "the reader returned a matrix that breaks the CSR invariants");
  }
  std::ostringstream out;
  io::write_matrix_market(out, a, pattern && a.type() == Type::boolean);
  std::istringstream back_in(out.str());
  Matrix b;
  try {
    b = io::read_matrix_market(back_in, "fuzz-roundtrip.mtx");
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    die(target, "the writer's output was rejected by the reader");
  }
  if (b.nrows() != a.nrows() || b.ncols() != a.ncols() || b.nnz() != a.nnz() ||
      b.row_ptr_vector() != a.row_ptr_vector() || b.col_idx_vector() != a.col_idx_vector())
    die(target, "write -> read round trip changed the structure");
  if (b.type() == a.type() && !same_values(a, b))
    die(target, "write -> read round trip changed values");
}

}  // namespace ringblas::fuzz
