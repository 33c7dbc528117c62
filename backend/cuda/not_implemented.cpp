// cuda entry points that have no kernel yet: each throws NotImplemented before touching output.
// Remove a function from this file when its kernel lands in backend/cuda/<family>/.
#include "backend/cuda/cuda_backend.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda {
namespace {
[[noreturn]] void no_kernel(const char* op) {
  throw NotImplemented(std::string("cuda backend: no kernel for ") + op + " yet; use Backend::cpu");
}
}  // namespace


}  // namespace ringblas::cuda
