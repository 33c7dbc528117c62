// The non-template parts of the dispatch rule (backend/core/dispatch/dispatch.hpp).
#include "backend/core/dispatch/dispatch.hpp"

#include "backend/cuda/cuda_backend.hpp"

namespace ringblas::detail {

const char* executor_name(Executor e) { return e == Executor::cpu ? "cpu" : "cuda"; }

bool is_cpu_variant(Variant v) { return v == Variant::suitesparse || v == Variant::host_dense; }
bool is_cuda_variant(Variant v) { return v != Variant::automatic && !is_cpu_variant(v); }

void sync_for_trace(const Context& ctx) { cuda::synchronize(ctx); }

bool cuda_compiled() {
#if defined(RINGBLAS_HAS_CUDA)
  return true;
#else
  return false;
#endif
}

Reason cuda_unavailable() {
  if (!cuda_compiled()) return "built without CUDA (nvcc was not found at configure time)";
  if (!cuda_available()) return "no CUDA device is visible";
  return std::nullopt;
}

void no_entry_can_run(const char* op, Backend b, const std::string& reasons) {
  throw NotImplemented(std::string(op) + ": nothing can run this problem on the " +
                       backend_name(b) + " backend: " + reasons);
}

Backend effective_backend(const char* op, Backend b, Variant forced) {
  if (is_cpu_variant(forced)) {
    if (b == Backend::cuda || b == Backend::verify)
      throw InvalidValue(std::string(op) + ": variant " + std::string(variant_name(forced)) +
                         " is the cpu executor, but the context asks for " + backend_name(b));
    return Backend::cpu;
  }
  if (is_cuda_variant(forced) && b == Backend::cpu)
    throw InvalidValue(std::string(op) + ": variant " + std::string(variant_name(forced)) +
                       " is a cuda kernel, but the context asks for the cpu backend");
  if (is_cuda_variant(forced) && b == Backend::automatic) return Backend::cuda;
  return b;
}

}  // namespace ringblas::detail
