// The counter-based uniform generator of nn::dropout, shared by the cpu loops and the cuda kernel
// so that both draw the same number for (seed, stream, index) in any order and without state.
// Mixing: SplitMix64's finaliser (Steele, Lea & Flood, OOPSLA 2014) applied to the three words in
// turn; the top 24 bits become a float in [0, 1) exactly (no rounding differences between host
// and device).
#pragma once
#include <cstdint>

#include "semirings/macros.hpp"

namespace ringblas::detail {

RINGBLAS_HD std::uint64_t splitmix64_mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// The part of counter_uniform that depends on (seed, stream) only: a kernel forms it once and
/// mixes in each index with keyed_uniform (one SplitMix64 round per element instead of three).
RINGBLAS_HD std::uint64_t counter_key(std::uint64_t seed, std::uint64_t stream) {
  return splitmix64_mix(splitmix64_mix(seed) ^ stream);
}

RINGBLAS_HD float keyed_uniform(std::uint64_t key, std::uint64_t index) {
  const std::uint64_t h = splitmix64_mix(key ^ index);
  return float(std::uint32_t(h >> 40)) * (1.0f / 16777216.0f);
}

RINGBLAS_HD float counter_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return keyed_uniform(counter_key(seed, stream), index);
}

}  // namespace ringblas::detail
