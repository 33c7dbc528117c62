// Typecasting between value types with GraphBLAS's rules (to bool: x != 0; float to integer:
// NaN -> 0, saturating at the integer's range).
#pragma once
#include <limits>
#include <type_traits>

#include "arith.hpp"

namespace ringblas::sr {

template <class To, class From> RINGBLAS_HD To cast(From x) {
  if constexpr (std::is_same_v<To, From>) return x;
  else if constexpr (is_bool_v<To>) return x != From(0);
  else if constexpr (is_int_v<To> && std::is_floating_point_v<From>) {
    if (x != x) return To(0);
    if (x >= static_cast<From>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    if (x <= static_cast<From>(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    return static_cast<To>(x);
  } else return static_cast<To>(x);
}

}  // namespace ringblas::sr
