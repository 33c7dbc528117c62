// Constant and index vectors at their location (see ringblas/vector_fill.hpp).
#include "ringblas/vector_fill.hpp"

#include <cstring>
#include <string>

#include "backend/core/containers/device_fill.hpp"
#include "ringblas/error.hpp"

namespace ringblas {
namespace {

/// 0, 1, ..., n-1 (int64) in a new buffer at `where`.
Buffer iota_buffer(std::size_t n, Location where, const Context& ctx) {
  Buffer b(n * sizeof(Index), where, &ctx);
  auto* p = static_cast<std::int64_t*>(b.data());
  if (where == Location::host)
    for (std::size_t k = 0; k < n; ++k) p[k] = std::int64_t(k);
  else if (n)
    detail::device_iota(p, n, &ctx);
  return b;
}

std::size_t checked_size(Index size, const char* what) {
  if (size < 0) throw InvalidValue(std::string(what) + ": negative size " + std::to_string(size));
  return std::size_t(size);
}

}  // namespace

template <class T>
Vector full_vector(Index size, T value, Location where, const Context& ctx) {
  const std::size_t n = checked_size(size, "full_vector");
  Buffer vals(n * sizeof(T), where, &ctx);
  if (where == Location::host)
    for (std::size_t k = 0; k < n; ++k)
      std::memcpy(vals.as<char>() + k * sizeof(T), &value, sizeof(T));
  else if (n)
    detail::device_fill(vals.data(), &value, sizeof(T), n, &ctx);
  return Vector::from_buffers(size, type_of_v<T>, size, iota_buffer(n, where, ctx),
                              std::move(vals));
}

Vector iota_vector(Index size, Location where, const Context& ctx) {
  const std::size_t n = checked_size(size, "iota_vector");
  return Vector::from_buffers(size, Type::int64, size, iota_buffer(n, where, ctx),
                              iota_buffer(n, where, ctx));
}

template Vector full_vector<bool>(Index, bool, Location, const Context&);
template Vector full_vector<std::int32_t>(Index, std::int32_t, Location, const Context&);
template Vector full_vector<std::int64_t>(Index, std::int64_t, Location, const Context&);
template Vector full_vector<float>(Index, float, Location, const Context&);
template Vector full_vector<double>(Index, double, Location, const Context&);

}  // namespace ringblas
