// The environment's choice among a step's paths (RINGBLAS_EWISE_MERGE, read by elementwise's
// merge_kernel_from_env; the RINGBLAS_SPDNN_* switches are now NetworkPrepareOptions and
// LayerChainOptions fields, and RINGBLAS_EWISE_TOPK went with the radix search). A library should
// not read the environment: delete this header once merge.cu's switch is an option too.
#pragma once
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>

#include "ringblas/error.hpp"

namespace ringblas::cuda {

/// The index in `values` of the environment variable `name`'s value; -1 when it is unset or
/// empty (the caller's default). Any other value is an InvalidValue naming the variable and the
/// values it takes, so that a misspelt choice is never run as the default.
inline int env_choice(const char* name, std::initializer_list<const char*> values) {
  const char* env = std::getenv(name);
  if (!env || !*env) return -1;
  int k = 0;
  std::string list;
  for (const char* v : values) {
    if (std::strcmp(env, v) == 0) return k;
    list += std::string(k++ ? ", " : "") + v;
  }
  throw InvalidValue(std::string(name) + "=" + env + ": not one of " + list);
}

}  // namespace ringblas::cuda
