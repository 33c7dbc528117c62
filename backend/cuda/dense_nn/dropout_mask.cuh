// The dropout mask the dense_nn kernels apply (nn::dropout's: backend/core/nn_counter_rng.hpp,
// the generator the cpu loops call), with the (seed, stream) part of the generator formed once on
// the host (mask_of) so that each element costs one SplitMix64 round.
#pragma once
#include <cstdint>

#include "backend/core/nn_counter_rng.hpp"

namespace ringblas::cuda::dense_nn {

/// drop false: no dropout (p == 0). Same float threshold and scale as the cpu loop.
struct DropoutMask {
  bool drop;
  float threshold, scale;
  std::uint64_t key;  ///< detail::counter_key(seed, stream)
  __device__ float operator()(float v, std::uint64_t index) const {
    if (!drop) return v;
    return ringblas::detail::keyed_uniform(key, index) >= threshold ? v * scale : 0.0f;
  }
};

inline DropoutMask mask_of(double p, std::uint64_t seed, std::uint64_t stream) {
  return {p > 0.0, float(p), float(1.0 / (1.0 - p)), ringblas::detail::counter_key(seed, stream)};
}

}  // namespace ringblas::cuda::dense_nn
