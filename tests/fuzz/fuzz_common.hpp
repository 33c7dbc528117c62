// Checks shared by the reader fuzz targets: CSR invariants, a Matrix Market round trip, and the
// same outcome whether the input is parsed in one chunk or in many small ones.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>

#include "backend/core/io/io_chunks.hpp"
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

/// A read serialised for check_chunking: the matrix as Matrix Market text followed by what
/// `read(extra)` put in `extra` (labels, notes), or the error message.
template <class F>
std::string outcome(F&& read) {
  try {
    std::string extra;
    const Matrix a = read(extra);
    std::ostringstream out;
    io::write_matrix_market(out, a);
    return out.str() + extra;
  } catch (const Error& e) {
    return std::string("error: ") + e.what();
  }
}

/// Aborts unless `read_outcome` (see outcome) is the same with the input in one chunk as cut
/// into chunks of a few bytes over three threads (backend/core/io/io_chunks.hpp): the parallel
/// parse may change no result and no message.
inline void check_chunking(const char* target, const std::function<std::string()>& read_outcome) {
  io::detail::ChunkConfig& config = io::detail::chunk_config();
  const io::detail::ChunkConfig saved = config;
  config = io::detail::ChunkConfig{0, std::size_t{1} << 30, 1};  // one chunk per block
  const std::string whole = read_outcome();
  config = io::detail::ChunkConfig{61, 13, 3};
  const std::string cut = read_outcome();
  config = saved;
  if (whole != cut) {
    std::fprintf(stderr, "one chunk:\n%s\nsmall chunks:\n%s\n", whole.c_str(), cut.c_str());
    die(target, "the outcome depends on how the input is cut into chunks");
  }
}

/// check_chunking for read_matrix on `text`: the matrix, its labels and its notes.
inline void check_read_matrix_chunking(const char* target, const std::string& text,
                                       const std::string& name, const io::ReadOptions& opt) {
  check_chunking(target, [&] {
    return outcome([&](std::string& extra) {
      std::istringstream s(text);
      io::LoadedMatrix m = io::read_matrix(s, name, opt);
      for (const std::string& x : m.labels) extra += x + "\n";
      for (const std::string& x : m.notes) extra += x + "\n";
      return m.matrix;
    });
  });
}

}  // namespace ringblas::fuzz
