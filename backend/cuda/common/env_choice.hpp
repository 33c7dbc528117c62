// The environment's choice among a step's paths (RINGBLAS_SPDNN_*, read by the *_from_env
// functions of sparse_layer/prepare.hpp and packed_upload.hpp; RINGBLAS_EWISE_TOPK, by
// elementwise's topk_search_from_env): a GPU
// round compares the paths with one binary (the CLI and the benches unchanged) before a default
// is flipped.
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
