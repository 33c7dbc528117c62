// Monoids: associative combine with identity, optional terminal (absorbing) value, flags, atomic kind.
#pragma once
#include "arith.hpp"
#include "ringblas/codes.hpp"

namespace ringblas::sr {

/// Which device atomic implements a monoid update (CAS loop where none is native).
enum class AtomicKind { add, min, max, lor, land, lxor, any, cas };

#define RINGBLAS_MONOID(NAME, CODE, IDENTITY, HAS_TERMINAL, TERMINAL, IDEMPOTENT, ATOMIC, EXPR) \
  template <class T> struct NAME {                                                         \
    using value_type = T;                                                                 \
    static constexpr MonoidCode code = MonoidCode::CODE;                                  \
    static constexpr bool commutative = true;                                             \
    static constexpr bool idempotent = IDEMPOTENT;                                        \
    static constexpr bool has_terminal = HAS_TERMINAL;                                    \
    static constexpr AtomicKind atomic = ATOMIC;                                          \
    RINGBLAS_HD static constexpr T identity() { return IDENTITY; }                        \
    RINGBLAS_HD static constexpr T terminal() { return TERMINAL; }                        \
    RINGBLAS_HD T operator()(T x, T y) const { return EXPR; }                             \
  };

// plus: bool plus is lor (terminal true); integer/float plus has no terminal.
RINGBLAS_MONOID(plus_monoid, plus, T(0), is_bool_v<T>, T(1), is_bool_v<T>,
                is_bool_v<T> ? AtomicKind::lor : AtomicKind::add, add(x, y))
// times: integers absorb at 0; floats have no terminal (0 * inf is NaN); bool times is land.
RINGBLAS_MONOID(times_monoid, times, T(1), !std::is_floating_point_v<T>, T(0), is_bool_v<T>,
                is_bool_v<T> ? AtomicKind::land : AtomicKind::cas, mul(x, y))
RINGBLAS_MONOID(min_monoid, min, highest<T>(), true, lowest<T>(), true, AtomicKind::min, min(x, y))
RINGBLAS_MONOID(max_monoid, max, lowest<T>(), true, highest<T>(), true, AtomicKind::max, max(x, y))
RINGBLAS_MONOID(lor_monoid, lor, T(0), true, T(1), true, AtomicKind::lor, lor(x, y))
RINGBLAS_MONOID(land_monoid, land, T(1), true, T(0), true, AtomicKind::land, land(x, y))
RINGBLAS_MONOID(lxor_monoid, lxor, T(0), false, T(0), false, AtomicKind::lxor, lxor(x, y))
// any: any entry may be the result (GraphBLAS GxB_ANY). One rule everywhere: a sequential fold
// keeps the first value it sees (any(x, y) = x, and kernels stop a reduction at its first value
// instead of a terminal); concurrent device updates of one slot store with an atomic exchange, so
// the last writer wins (backend/cuda/common/monoid_atomics.cuh). Either way the result is one of
// the values offered, never the identity unless nothing was offered; tests accept any of them.
RINGBLAS_MONOID(any_monoid, any, T(0), false, T(0), true, AtomicKind::any, x)
#undef RINGBLAS_MONOID

}  // namespace ringblas::sr
