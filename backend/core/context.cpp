// Context construction, trace output and the default per-thread context.
#include "ringblas/context.hpp"

#include <iostream>

#include "backend/cuda/cuda_backend.hpp"
#include "ringblas/ops.hpp"

namespace ringblas {

Context::Context() : trace_out(&std::cerr) {}
Context::Context(Backend b) : backend(b), trace_out(&std::cerr) {}

void Context::trace_line(const std::string& line) const {
  if (trace && trace_out) *trace_out << "[ringblas] " << line << '\n';
}

bool cuda_available() { return cuda::device_present(); }

Context& default_context() {
  thread_local Context ctx;
  return ctx;
}

}  // namespace ringblas
