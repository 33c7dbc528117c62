// Maps runtime operator codes onto the compile-time functors: visit_monoid<T>(code, f) calls
// f(monoid<T>{}), visit_binary_op<T>(code, f) calls f(op<T>{}); usable in device code too (the
// element-wise kernels resolve their operator code there).
#pragma once
#include "semiring.hpp"

namespace ringblas::sr {

template <class T, class F> RINGBLAS_HD decltype(auto) visit_monoid(MonoidCode c, F&& f) {
  switch (c) {
    case MonoidCode::plus: return f(plus_monoid<T>{});
    case MonoidCode::times: return f(times_monoid<T>{});
    case MonoidCode::min: return f(min_monoid<T>{});
    case MonoidCode::max: return f(max_monoid<T>{});
    case MonoidCode::lor: return f(lor_monoid<T>{});
    case MonoidCode::land: return f(land_monoid<T>{});
    case MonoidCode::lxor: return f(lxor_monoid<T>{});
    default: return f(any_monoid<T>{});
  }
}

template <class T, class F> RINGBLAS_HD decltype(auto) visit_binary_op(BinaryOpCode c, F&& f) {
  switch (c) {
    case BinaryOpCode::first: return f(first_op<T>{});
    case BinaryOpCode::second: return f(second_op<T>{});
    case BinaryOpCode::pair: return f(pair_op<T>{});
    case BinaryOpCode::plus: return f(plus_op<T>{});
    case BinaryOpCode::minus: return f(minus_op<T>{});
    case BinaryOpCode::times: return f(times_op<T>{});
    case BinaryOpCode::div: return f(div_op<T>{});
    case BinaryOpCode::min: return f(min_op<T>{});
    case BinaryOpCode::max: return f(max_op<T>{});
    case BinaryOpCode::lor: return f(lor_op<T>{});
    case BinaryOpCode::land: return f(land_op<T>{});
    case BinaryOpCode::lxor: return f(lxor_op<T>{});
    case BinaryOpCode::firsti: return f(firsti_op<T>{});
    case BinaryOpCode::firstj: return f(firstj_op<T>{});
    case BinaryOpCode::secondi: return f(secondi_op<T>{});
    case BinaryOpCode::pow: return f(pow_op<T>{});
    default: return f(secondj_op<T>{});
  }
}

}  // namespace ringblas::sr
