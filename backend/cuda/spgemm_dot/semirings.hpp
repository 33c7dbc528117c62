// A runtime Semiring onto the spgemm_dot manifest's compiled semiring functor.
#pragma once
#include "backend/cuda/spmm_subwarp/semiring_types.hpp"

namespace ringblas::cuda::spgemm_dot {

/// Calls f(S{}) for the manifest's semiring equal to `s`; false when it is not compiled.
template <class F>
bool with_dot_semiring(const Semiring& s, F&& f) {
  if (s.is_user()) return false;
#define RINGBLAS_DOT_SEMIRING(M, O, TY)                                           \
  if (s.add == MonoidCode::M && s.mul == BinaryOpCode::O && s.type == Type::TY) { \
    f(RINGBLAS_SEMIRING_T(M, O, TY){});                                           \
    return true;                                                                  \
  }
#include "backend/cuda/spgemm_dot/manifest.def"
#undef RINGBLAS_DOT_SEMIRING
  return false;
}

}  // namespace ringblas::cuda::spgemm_dot
