// libFuzzer target: the edge-list reader (read_matrix, format snap) on arbitrary bytes (plain or
// gzip), with options taken from the first byte, may only throw ringblas::Error; whatever it
// accepts must satisfy the CSR invariants and survive a Matrix Market write -> read round trip.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "fuzz_common.hpp"
#include "ringblas/error.hpp"
#include "ringblas/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  ringblas::io::ReadOptions opt;
  opt.format = ringblas::io::Format::edge_list;
  opt.symmetrize = data[0] & 1;
  opt.compact_ids = data[0] & 2;
  opt.pattern = data[0] & 4;
  opt.base = (data[0] & 8) ? 1 : 0;
  if (data[0] & 16) opt.nvertices = data[0] >> 5;
  // A small budget: ids in the file may not make the reader allocate gigabytes.
  opt.memory_budget = std::size_t{64} << 20;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  ringblas::fuzz::check_read_matrix_chunking("edge list", text, "fuzz.txt", opt);
  std::istringstream in(text);
  ringblas::io::LoadedMatrix m;
  try {
    m = ringblas::io::read_matrix(in, "fuzz.txt", opt);
  } catch (const ringblas::Error&) {
    return 0;  // rejected with a ringblas error: fine. Anything else escapes and is a crash.
  }
  if (m.matrix.nrows() != m.matrix.ncols()) ringblas::fuzz::die("edge list", "not square");
  ringblas::fuzz::check_and_round_trip("edge list", m.matrix, opt.pattern);
  return 0;
}
