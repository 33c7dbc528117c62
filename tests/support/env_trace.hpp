// The trace of one call with a developer path switch (backend/cuda/common/env_choice.hpp) set or
// unset, for the tests that check a switch engages and that the default stays without it.
#pragma once
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>

#include "ringblas/context.hpp"

namespace ringblas::test {

/// Runs call(ctx) on a tracing Backend::cuda context with the environment variable `var` set to
/// `value` (unset when null) and returns the trace. The variable stays as set: the fixtures of
/// these tests unset it after each test.
inline std::string trace_with_env(const char* var, const char* value,
                                  const std::function<void(Context&)>& call) {
  if (value)
    setenv(var, value, 1);
  else
    unsetenv(var);
  std::ostringstream trace;
  Context ctx(Backend::cuda);
  ctx.trace = true;
  ctx.trace_out = &trace;
  call(ctx);
  return trace.str();
}

}  // namespace ringblas::test
