// libFuzzer target: the label-triple reader (read_matrix, format abc) on arbitrary bytes, options
// from the first byte, may only throw ringblas::Error; whatever it accepts has one row per label,
// satisfies the CSR invariants and survives a Matrix Market write -> read round trip.
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_common.hpp"
#include "ringblas/error.hpp"
#include "ringblas/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  ringblas::io::ReadOptions opt;
  opt.format = ringblas::io::Format::abc;
  opt.symmetrize = data[0] & 1;
  opt.pattern = data[0] & 2;
  opt.memory_budget = std::size_t{64} << 20;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  ringblas::fuzz::check_read_matrix_chunking("abc", text, "fuzz.abc", opt);
  std::istringstream in(text);
  ringblas::io::LoadedMatrix m;
  try {
    m = ringblas::io::read_matrix(in, "fuzz.abc", opt);
  } catch (const ringblas::Error&) {
    return 0;
  }
  if (static_cast<std::size_t>(m.matrix.nrows()) != m.labels.size() ||
      m.matrix.nrows() != m.matrix.ncols())
    ringblas::fuzz::die("abc", "the matrix is not labels x labels");
  ringblas::fuzz::check_and_round_trip("abc", m.matrix, opt.pattern);
  return 0;
}
