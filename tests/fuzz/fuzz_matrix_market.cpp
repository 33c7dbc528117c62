// libFuzzer target: the Matrix Market reader on arbitrary bytes (plain or gzip) may only throw
// ringblas::Error; whatever it accepts must satisfy the CSR invariants and survive a
// write -> read round trip unchanged; its outcome may not depend on the reader's chunking.
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_common.hpp"
#include "ringblas/error.hpp"
#include "ringblas/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ringblas::fuzz::check_chunking("matrix market", [&] {
    return ringblas::fuzz::outcome([&](std::string&) {
      std::istringstream s(text);
      return ringblas::io::read_matrix_market(s, "fuzz.mtx", nullptr, 1 << 16);
    });
  });
  std::istringstream in(text);
  ringblas::Matrix a;
  ringblas::io::MatrixInfo info;
  try {
    // A small row limit: a size line may not make the reader allocate gigabytes.
    a = ringblas::io::read_matrix_market(in, "fuzz.mtx", &info, 1 << 16);
  } catch (const ringblas::Error&) {
    return 0;  // rejected with a ringblas error: fine. Anything else escapes and is a crash.
  }
  ringblas::fuzz::check_and_round_trip("matrix market", a,
                                       info.field == ringblas::io::Field::pattern);
  return 0;
}
