// cuda entry points that have no kernel yet: each throws NotImplemented before touching output,
// and each says so to the dispatch table through its can_implement_<op> (kernel_support.def).
// When an operation's kernel lands in backend/cuda/<family>/, remove its entry point here and
// make its can_implement_<op> below return the kernel's real answer (nullopt where it runs).
#include "backend/cuda/cuda_backend.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda {
namespace {
[[noreturn]] void no_kernel(const char* op) {
  throw NotImplemented(std::string("cuda backend: no kernel for ") + op + " yet; use Backend::cpu");
}
}  // namespace


// Applicability, one function per operation overload (backend/cuda/kernel_support.def).
namespace {
const std::optional<std::string> kNoKernel = "no cuda kernel in this build";
}  // namespace
std::optional<std::string> can_implement_ewise_add(const Matrix&, const Matrix*, Accum, BinaryOpCode, const Matrix&, const Matrix&, const Descriptor&) { return kNoKernel; }
std::optional<std::string> can_implement_ewise_add(const Vector&, const Vector*, Accum, BinaryOpCode, const Vector&, const Vector&, const Descriptor&) { return kNoKernel; }
std::optional<std::string> can_implement_ewise_mult(const Matrix&, const Matrix*, Accum, BinaryOpCode, const Matrix&, const Matrix&, const Descriptor&) { return kNoKernel; }
std::optional<std::string> can_implement_ewise_mult(const Vector&, const Vector*, Accum, BinaryOpCode, const Vector&, const Vector&, const Descriptor&) { return kNoKernel; }
std::optional<std::string> can_implement_apply(const Matrix&, const Matrix*, Accum, UnaryOpCode, const Matrix&, const Descriptor&) { return kNoKernel; }
std::optional<std::string> can_implement_apply(const Vector&, const Vector*, Accum, UnaryOpCode, const Vector&, const Descriptor&) { return kNoKernel; }
std::optional<std::string> can_implement_apply(const Matrix&, const Matrix*, Accum, BinaryOpCode, BindSide, const Scalar&, const Matrix&, const Descriptor&) { return kNoKernel; }
std::optional<std::string> can_implement_apply(const Matrix&, const Matrix*, Accum, IndexUnaryOpCode, Index, const Matrix&, const Descriptor&) { return kNoKernel; }
std::optional<std::string> can_implement_select(const Matrix&, const Matrix*, Accum, SelectOpCode, const Scalar&, const Matrix&, const Descriptor&) { return kNoKernel; }
std::optional<std::string> can_implement_reduce(const Vector&, const Vector*, Accum, MonoidCode, const Matrix&, ReduceDim, const Descriptor&) { return kNoKernel; }
std::optional<std::string> can_implement_reduce(MonoidCode, const Matrix&) { return kNoKernel; }
std::optional<std::string> can_implement_reduce(MonoidCode, const Vector&) { return kNoKernel; }
std::optional<std::string> can_implement_transpose(const Matrix&, const Matrix*, Accum, const Matrix&, const Descriptor&) { return kNoKernel; }
std::optional<std::string> can_implement_extract(const Matrix&, const Matrix*, Accum, const Matrix&, const Indices&, const Indices&, const Descriptor&) { return kNoKernel; }
std::optional<std::string> can_implement_assign(const Matrix&, const Matrix*, Accum, const Matrix&, const Indices&, const Indices&, const Descriptor&) { return kNoKernel; }
std::optional<std::string> can_implement_kronecker(const Matrix&, const Matrix*, Accum, BinaryOpCode, const Matrix&, const Matrix&, const Descriptor&) { return kNoKernel; }

}  // namespace ringblas::cuda
