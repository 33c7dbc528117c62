// Host-side element access to type-erased buffers: read an index of either width, read a value
// of any type cast to T, write a value. For tools, tests, I/O and the dispatch's checks.
#pragma once
#include <string>
#include <vector>

#include "ringblas/buffer.hpp"
#include "ringblas/error.hpp"
#include "semirings/cast.hpp"

namespace ringblas::detail {

inline Index index_at(const Buffer& b, IndexType t, Index k) {
  return t == IndexType::i32 ? Index(b.as<std::int32_t>()[k]) : b.as<std::int64_t>()[k];
}
inline void set_index(Buffer& b, IndexType t, Index k, Index v) {
  if (t == IndexType::i32) b.as<std::int32_t>()[k] = static_cast<std::int32_t>(v);
  else b.as<std::int64_t>()[k] = v;
}
template <class T> T value_at(const Buffer& b, Type t, Index k) {
  return visit_type(t, [&](auto v) { return sr::cast<T>(b.as<decltype(v)>()[k]); });
}
template <class T> void set_value(Buffer& b, Type t, Index k, T x) {
  visit_type(t, [&](auto v) { b.as<decltype(v)>()[k] = sr::cast<decltype(v)>(x); });
}
/// The n values of type `from` in b, converted to `to` in a new host buffer (Matrix::cast,
/// Vector::cast).
inline Buffer cast_values(const Buffer& b, Type from, Type to, Index n) {
  Buffer out(type_size(to) * std::size_t(n), Location::host);
  visit_type(to, [&](auto v) {
    using T = decltype(v);
    for (Index k = 0; k < n; ++k) out.as<T>()[k] = value_at<T>(b, from, k);
  });
  return out;
}
/// The n values of type t in b, converted to T (Matrix::values_vector, Vector::values_vector).
template <class T>
std::vector<T> values_of(const Buffer& b, Type t, Index n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (Index k = 0; k < n; ++k) v[k] = value_at<T>(b, t, k);
  return v;
}
inline void require_host(Location loc, const char* what) {
  if (loc != Location::host)
    throw InvalidValue(std::string(what) +
                       ": the data is on the device; copy it to the host first (.to(Location::host, ctx))");
}

}  // namespace ringblas::detail
