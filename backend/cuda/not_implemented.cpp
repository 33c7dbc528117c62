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

void ewise_add(Matrix&, const Matrix*, Accum, BinaryOpCode, const Matrix&, const Matrix&, const Descriptor&, Context&) { no_kernel("ewise_add"); }
void ewise_add(Vector&, const Vector*, Accum, BinaryOpCode, const Vector&, const Vector&, const Descriptor&, Context&) { no_kernel("ewise_add (vector)"); }
void ewise_mult(Matrix&, const Matrix*, Accum, BinaryOpCode, const Matrix&, const Matrix&, const Descriptor&, Context&) { no_kernel("ewise_mult"); }
void ewise_mult(Vector&, const Vector*, Accum, BinaryOpCode, const Vector&, const Vector&, const Descriptor&, Context&) { no_kernel("ewise_mult (vector)"); }
void apply(Matrix&, const Matrix*, Accum, UnaryOpCode, const Matrix&, const Descriptor&, Context&) { no_kernel("apply"); }
void apply(Vector&, const Vector*, Accum, UnaryOpCode, const Vector&, const Descriptor&, Context&) { no_kernel("apply (vector)"); }
void apply(Matrix&, const Matrix*, Accum, BinaryOpCode, BindSide, const Scalar&, const Matrix&, const Descriptor&, Context&) { no_kernel("apply (bound binary)"); }
void apply(Matrix&, const Matrix*, Accum, IndexUnaryOpCode, Index, const Matrix&, const Descriptor&, Context&) { no_kernel("apply (index unary)"); }
void select(Matrix&, const Matrix*, Accum, SelectOpCode, const Scalar&, const Matrix&, const Descriptor&, Context&) { no_kernel("select"); }
void kronecker(Matrix&, const Matrix*, Accum, BinaryOpCode, const Matrix&, const Matrix&, const Descriptor&, Context&) { no_kernel("kronecker"); }

}  // namespace ringblas::cuda
