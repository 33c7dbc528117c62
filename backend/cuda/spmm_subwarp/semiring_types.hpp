// Maps a manifest row (monoid, op, type token) onto its semiring functor type, and a runtime
// Semiring onto the compiled one: with_compiled_semiring<Manifest>(s, f) calls f(S{}).
#pragma once
#include <cstdint>

#include "ringblas/semiring.hpp"
#include "semirings/semiring.hpp"

#define RINGBLAS_CTYPE_boolean bool
#define RINGBLAS_CTYPE_int32 std::int32_t
#define RINGBLAS_CTYPE_int64 std::int64_t
#define RINGBLAS_CTYPE_fp32 float
#define RINGBLAS_CTYPE_fp64 double
#define RINGBLAS_SEMIRING_T(M, O, TY)                                       \
  ::ringblas::sr::semiring<::ringblas::sr::M##_monoid<RINGBLAS_CTYPE_##TY>, \
                           ::ringblas::sr::O##_op<RINGBLAS_CTYPE_##TY>>

namespace ringblas::cuda::detail {

/// Calls f(S{}) for the spmm manifest's semiring equal to `s`; false when it is not compiled.
template <class F> bool with_spmm_semiring(const Semiring& s, F&& f) {
  if (s.is_user()) return false;
#define RINGBLAS_SPMM_SEMIRING(M, O, TY)                                                    \
  if (s.add == MonoidCode::M && s.mul == BinaryOpCode::O && s.type == Type::TY) { \
    f(RINGBLAS_SEMIRING_T(M, O, TY){});                                                     \
    return true;                                                                            \
  }
#include "backend/cuda/spmm_subwarp/spmm_manifest.def"
#undef RINGBLAS_SPMM_SEMIRING
  return false;
}

/// Calls f(S{}) for the spmv manifest's semiring equal to `s`; false when it is not compiled.
template <class F> bool with_spmv_semiring(const Semiring& s, F&& f) {
  if (s.is_user()) return false;
#define RINGBLAS_SPMV_SEMIRING(M, O, TY)                                          \
  if (s.add == MonoidCode::M && s.mul == BinaryOpCode::O && s.type == Type::TY) { \
    f(RINGBLAS_SEMIRING_T(M, O, TY){});                                           \
    return true;                                                                  \
  }
#include "backend/cuda/spmv/spmv_manifest.def"
#undef RINGBLAS_SPMV_SEMIRING
  return false;
}

}  // namespace ringblas::cuda::detail
