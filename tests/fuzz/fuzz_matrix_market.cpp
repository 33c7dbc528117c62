// libFuzzer target: the Matrix Market reader on arbitrary bytes (plain or gzip) may only throw
// ringblas::Error; whatever it accepts must satisfy the CSR invariants and survive a
// write -> read round trip unchanged.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "ringblas/error.hpp"
#include "ringblas/io.hpp"

namespace {

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "fuzz_matrix_market: %s\n", what);
  std::abort();
}

bool same_values(const ringblas::Matrix& a, const ringblas::Matrix& b) {
  using ringblas::Type;
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  ringblas::Matrix a;
  ringblas::io::MatrixInfo info;
  try {
    // A small row limit: a size line may not make the reader allocate gigabytes.
    a = ringblas::io::read_matrix_market(in, "fuzz.mtx", &info, 1 << 16);
  } catch (const ringblas::Error&) {
    return 0;  // rejected with a ringblas error: fine. Anything else escapes and is a crash.
  }
  try {
    a.check_invariants();
  } catch (const ringblas::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    die("the reader returned a matrix that breaks the CSR invariants");
  }
  std::ostringstream out;
  const bool pattern = info.field == ringblas::io::Field::pattern;
  ringblas::io::write_matrix_market(out, a, pattern);
  std::istringstream back_in(out.str());
  ringblas::Matrix b;
  try {
    b = ringblas::io::read_matrix_market(back_in, "fuzz-roundtrip.mtx");
  } catch (const ringblas::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    die("the writer's output was rejected by the reader");
  }
  if (b.nrows() != a.nrows() || b.ncols() != a.ncols() || b.nnz() != a.nnz() ||
      b.type() != a.type() || b.row_ptr_vector() != a.row_ptr_vector() ||
      b.col_idx_vector() != a.col_idx_vector() || !same_values(a, b))
    die("write -> read round trip changed the matrix");
  return 0;
}
