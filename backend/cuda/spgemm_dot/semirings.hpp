// A runtime Semiring onto spgemm_dot's compiled semiring functor (rows of
// backend/cuda/manifest.def as built; launcher.cu instantiates the kernels where it calls them).
#pragma once
#include "backend/cuda/common/manifest.hpp"
#include "ringblas_generated/cuda_manifest/spgemm_dot.hpp"

namespace ringblas::cuda::spgemm_dot {

/// Calls f(S{}) for the compiled semiring equal to `s`; false when it is not compiled.
template <class F>
bool with_dot_semiring(const Semiring& s, F&& f) {
  return manifest::with_semiring<manifest::spgemm_dot>(s, static_cast<F&&>(f));
}

}  // namespace ringblas::cuda::spgemm_dot
