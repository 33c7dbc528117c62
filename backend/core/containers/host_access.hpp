// Host-side element access to type-erased buffers: read an index of either width, read a value
// of any type cast to T, write a value. For tools, tests, I/O and the dispatch's checks.
#pragma once
#include <string>

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
inline void require_host(Location loc, const char* what) {
  if (loc != Location::host)
    throw InvalidValue(std::string(what) +
                       ": the data is on the device; copy it to the host first (.to(Location::host, ctx))");
}

}  // namespace ringblas::detail
