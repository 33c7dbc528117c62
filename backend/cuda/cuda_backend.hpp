// The cuda executor's entry points (plain C++ so that the dispatch compiles without nvcc).
// Whether a kernel can run a problem is answered by can_implement_<op> (backend/cuda/can_implement.cpp);
// in builds without CUDA every entry point throws NotCompiled (backend/cuda/stub.cpp).
#pragma once
#include <optional>
#include <string>

#include "ringblas/nn.hpp"
#include "ringblas/ops.hpp"

namespace ringblas::cuda {
#define RINGBLAS_OP(R, name, params) R name params;
#include "backend/core/dispatch/operations.def"
#undef RINGBLAS_OP

#define RINGBLAS_CUDA_SUPPORT(name, params) std::optional<std::string> can_implement_##name params;
#include "backend/cuda/kernel_support.def"
#undef RINGBLAS_CUDA_SUPPORT

/// True when a device is visible to this process (false in builds without CUDA).
bool device_present();
/// Waits for the work queued on ctx's stream (nothing without a device); used by trace timing.
void synchronize(const Context& ctx);
}  // namespace ringblas::cuda
