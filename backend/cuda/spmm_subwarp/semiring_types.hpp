// The spmm and spmv families' compiled semirings (rows of backend/cuda/manifest.def as built):
// with_<family>_semiring(s, f) calls f(S{}) for the compiled semiring functor S equal to `s`.
#pragma once
#include "backend/cuda/common/manifest.hpp"
#include "ringblas_generated/cuda_manifest/spmm_batched.hpp"
#include "ringblas_generated/cuda_manifest/spmm_subwarp.hpp"
#include "ringblas_generated/cuda_manifest/spmv.hpp"

namespace ringblas::cuda::detail {

/// spmm_subwarp (and its rowsplit kernels); false when `s` is not compiled for them.
template <class F>
bool with_spmm_semiring(const Semiring& s, F&& f) {
  return manifest::with_semiring<manifest::spmm_subwarp>(s, static_cast<F&&>(f));
}

/// spmm_batched; false when `s` is not compiled for it.
template <class F>
bool with_spmm_batched_semiring(const Semiring& s, F&& f) {
  return manifest::with_semiring<manifest::spmm_batched>(s, static_cast<F&&>(f));
}

/// spmv (mxv / vxm); false when `s` is not compiled for it.
template <class F>
bool with_spmv_semiring(const Semiring& s, F&& f) {
  return manifest::with_semiring<manifest::spmv>(s, static_cast<F&&>(f));
}

}  // namespace ringblas::cuda::detail
