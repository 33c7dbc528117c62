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

void reduce(Vector&, const Vector*, Accum, MonoidCode, const Matrix&, ReduceDim, const Descriptor&, Context&) { no_kernel("reduce (vector)"); }
Scalar reduce(MonoidCode, const Matrix&, Context&) { no_kernel("reduce (scalar)"); }
Scalar reduce(MonoidCode, const Vector&, Context&) { no_kernel("reduce (scalar)"); }
void transpose(Matrix&, const Matrix*, Accum, const Matrix&, const Descriptor&, Context&) { no_kernel("transpose"); }
void extract(Matrix&, const Matrix*, Accum, const Matrix&, const Indices&, const Indices&, const Descriptor&, Context&) { no_kernel("extract"); }
void assign(Matrix&, const Matrix*, Accum, const Matrix&, const Indices&, const Indices&, const Descriptor&, Context&) { no_kernel("assign"); }

}  // namespace ringblas::cuda
