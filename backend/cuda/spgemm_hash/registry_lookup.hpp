// The registry of compiled spgemm_hash pipelines as the launcher and can_implement read it
// (defined in can_implement.cpp; plain C++). Separate from registry.hpp, which every
// instantiation unit includes.
#pragma once
#include "backend/cuda/spgemm_hash/registry.hpp"
#include "ringblas/semiring.hpp"

namespace ringblas::cuda::spgemm_hash {

/// Every compiled row (the spgemm_hash rows of backend/cuda/manifest.def as built).
const registry& the_registry();
/// The row of `s`, or nullptr when it is not compiled (or user-defined).
const registry_row* find_row(const Semiring& s);

}  // namespace ringblas::cuda::spgemm_hash
