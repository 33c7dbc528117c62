// The environment's choice among a sparse-layer step's paths (RINGBLAS_SPDNN_*, read by the
// *_from_env functions of prepare.hpp and packed_upload.hpp): a GPU round compares the paths with
// one binary (the CLI and bench_spdnn unchanged) before a default is flipped.
#pragma once
#include <cstdlib>
#include <cstring>

namespace ringblas::cuda::sparse_layer {

/// Whether the environment variable `name` is set to `value`.
inline bool env_selects(const char* name, const char* value) {
  const char* env = std::getenv(name);
  return env && std::strcmp(env, value) == 0;
}

}  // namespace ringblas::cuda::sparse_layer
