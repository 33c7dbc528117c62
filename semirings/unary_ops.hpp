// Unary operators z = f(x) for apply, host and device (GraphBLAS GrB_AINV, GrB_MINV, ...).
#pragma once
#include <cmath>
#include <type_traits>

#include "arith.hpp"
#include "ringblas/codes.hpp"

namespace ringblas::sr {

template <class T> RINGBLAS_HD T apply_unary(UnaryOpCode op, T x) {
  switch (op) {
    case UnaryOpCode::identity: return x;
    case UnaryOpCode::ainv: return is_bool_v<T> ? x : sub(T(0), x);
    case UnaryOpCode::minv:
      if constexpr (is_bool_v<T>) return true;
      else return div(T(1), x);
    case UnaryOpCode::abs:
      if constexpr (std::is_floating_point_v<T>) return std::fabs(x);
      else if constexpr (is_int_v<T>) return x < 0 ? sub(T(0), x) : x;
      else return x;
    case UnaryOpCode::lnot: return T(!(x != T(0)));
    case UnaryOpCode::one: return T(1);
    case UnaryOpCode::sqrt:
      if constexpr (std::is_floating_point_v<T>) return std::sqrt(x);
      else return x;  // rejected for non-float types before any kernel runs
    case UnaryOpCode::exp:
      if constexpr (std::is_floating_point_v<T>) return std::exp(x);
      else return x;
    case UnaryOpCode::log:
      if constexpr (std::is_floating_point_v<T>) return std::log(x);
      else return x;
  }
  return x;
}

/// sqrt, exp and log are defined for fp32/fp64 only (as in SuiteSparse:GraphBLAS).
constexpr bool unary_float_only(UnaryOpCode op) {
  return op == UnaryOpCode::sqrt || op == UnaryOpCode::exp || op == UnaryOpCode::log;
}

}  // namespace ringblas::sr
