// Builds without CUDA: device memory and every cuda entry point throw NotCompiled.
#include <cstring>

#include "backend/cuda/cuda_backend.hpp"
#include "ringblas/error.hpp"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace ringblas {
namespace {
[[noreturn]] void not_compiled(const char* what) {
  throw NotCompiled(std::string(what) +
                    ": this ringblas was built without CUDA (nvcc was not found at configure time)");
}
}  // namespace

namespace detail {
void* device_allocate(std::size_t, const Context*) { not_compiled("device allocation"); }
void device_free(void*) noexcept {}
void copy_bytes(void* dst, Location dst_loc, const void* src, Location src_loc, std::size_t bytes,
                const Context*) {
  if (dst_loc != Location::host || src_loc != Location::host) not_compiled("device copy");
  std::memcpy(dst, src, bytes);
}
}  // namespace detail

namespace cuda {
bool device_present() { return false; }
#define RINGBLAS_OP(R, name, params) \
  R name params { not_compiled("cuda " #name); }
#include "backend/core/operations.def"
#undef RINGBLAS_OP
}  // namespace cuda
}  // namespace ringblas
