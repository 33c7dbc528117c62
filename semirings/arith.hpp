// Scalar arithmetic with GraphBLAS's rules: wrapping integers, bool plus = lor, integer x/0, etc.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "macros.hpp"

namespace ringblas::sr {

template <class T> inline constexpr bool is_bool_v = std::is_same_v<T, bool>;
template <class T> inline constexpr bool is_int_v = std::is_integral_v<T> && !is_bool_v<T>;

template <class T> RINGBLAS_HD T add(T x, T y) {
  if constexpr (is_bool_v<T>) return x || y;
  else if constexpr (is_int_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(x) + static_cast<U>(y));
  } else return x + y;
}
template <class T> RINGBLAS_HD T sub(T x, T y) {
  if constexpr (is_bool_v<T>) return x != y;
  else if constexpr (is_int_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(x) - static_cast<U>(y));
  } else return x - y;
}
template <class T> RINGBLAS_HD T mul(T x, T y) {
  if constexpr (is_bool_v<T>) return x && y;
  else if constexpr (is_int_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(x) * static_cast<U>(y));
  } else return x * y;
}
/// Integer division as GraphBLAS defines it: x/0 is 0, +max or -max by the sign of x; x/-1 wraps.
template <class T> RINGBLAS_HD T div(T x, T y) {
  if constexpr (is_bool_v<T>) return x;  // GrB_DIV_BOOL is FIRST
  else if constexpr (is_int_v<T>) {
    if (y == 0) {
      return x == 0 ? T(0) : (x > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min());
    }
    if (y == -1) return sub(T(0), x);
    return x / y;
  } else return x / y;
}
/// min/max ignore a NaN operand (C99 fmin/fmax), as GraphBLAS does.
template <class T> RINGBLAS_HD T min(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    if (x != x) return y;
    if (y != y) return x;
  }
  return y < x ? y : x;
}
template <class T> RINGBLAS_HD T max(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    if (x != x) return y;
    if (y != y) return x;
  }
  return y > x ? y : x;
}
template <class T> RINGBLAS_HD T lor(T x, T y) { return T((x != T(0)) || (y != T(0))); }
template <class T> RINGBLAS_HD T land(T x, T y) { return T((x != T(0)) && (y != T(0))); }
template <class T> RINGBLAS_HD T lxor(T x, T y) { return T((x != T(0)) != (y != T(0))); }

/// x^y as GxB_POW: floats use pow; integers compute in double and cast back (NaN -> 0,
/// saturating at the type's range); bool is x || !y (0^0 = 1, 0^1 = 0, 1^y = 1).
template <class T> RINGBLAS_HD T pow(T x, T y) {
  if constexpr (is_bool_v<T>) return x || !y;
  else if constexpr (is_int_v<T>) {
    const double z = ::pow(static_cast<double>(x), static_cast<double>(y));
    if (z != z) return T(0);
    using L = std::numeric_limits<T>;
    if (z >= static_cast<double>(L::max())) return L::max();
    if (z <= static_cast<double>(L::min())) return L::min();
    return static_cast<T>(z);
  } else if constexpr (std::is_same_v<T, float>) {
    return ::powf(x, y);
  } else return ::pow(x, y);
}

template <class T> RINGBLAS_HD constexpr T lowest() {
  if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::lowest();
}
template <class T> RINGBLAS_HD constexpr T highest() {
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::max();
}

}  // namespace ringblas::sr
