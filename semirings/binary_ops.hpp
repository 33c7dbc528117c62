// Binary operators z = f(x, y) for host and device, with the indices of the entries they combine.
//
// Every operator is called as op(x, y, ia, ja, ib, jb): x = A(ia, ja), y = B(ib, jb). Value ops
// ignore the indices; positional ops (firsti, firstj, secondi, secondj) ignore the values.
// Traits: reads_x / reads_y say whether a kernel must load the operand at all.
#pragma once
#include <cstdint>

#include "arith.hpp"
#include "ringblas/codes.hpp"

namespace ringblas::sr {

using index_t = std::int64_t;

#define RINGBLAS_BINARY_OP(NAME, CODE, EXPR)                                                 \
  template <class T> struct NAME {                                                         \
    using value_type = T;                                                                  \
    static constexpr BinaryOpCode code = BinaryOpCode::CODE;                               \
    static constexpr bool reads_x = ringblas::reads_x(BinaryOpCode::CODE);                 \
    static constexpr bool reads_y = ringblas::reads_y(BinaryOpCode::CODE);                 \
    static constexpr bool positional = ringblas::is_positional(BinaryOpCode::CODE);        \
    RINGBLAS_HD T operator()(T x, T y, index_t ia, index_t ja, index_t ib, index_t jb) const { \
      (void)x; (void)y; (void)ia; (void)ja; (void)ib; (void)jb;                            \
      return EXPR;                                                                         \
    }                                                                                      \
  };

RINGBLAS_BINARY_OP(first_op, first, x)
RINGBLAS_BINARY_OP(second_op, second, y)
RINGBLAS_BINARY_OP(pair_op, pair, T(1))
RINGBLAS_BINARY_OP(plus_op, plus, add(x, y))
RINGBLAS_BINARY_OP(minus_op, minus, sub(x, y))
RINGBLAS_BINARY_OP(times_op, times, mul(x, y))
RINGBLAS_BINARY_OP(div_op, div, div(x, y))
RINGBLAS_BINARY_OP(min_op, min, min(x, y))
RINGBLAS_BINARY_OP(max_op, max, max(x, y))
RINGBLAS_BINARY_OP(lor_op, lor, lor(x, y))
RINGBLAS_BINARY_OP(land_op, land, land(x, y))
RINGBLAS_BINARY_OP(lxor_op, lxor, lxor(x, y))
RINGBLAS_BINARY_OP(firsti_op, firsti, T(ia))
RINGBLAS_BINARY_OP(firstj_op, firstj, T(ja))
RINGBLAS_BINARY_OP(secondi_op, secondi, T(ib))
RINGBLAS_BINARY_OP(secondj_op, secondj, T(jb))
RINGBLAS_BINARY_OP(pow_op, pow, pow(x, y))
#undef RINGBLAS_BINARY_OP

}  // namespace ringblas::sr
