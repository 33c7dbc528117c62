// Value types, index types and locations shared by every ringblas container and operation.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ringblas {

/// Row/column index and sizes as seen by the public API (GraphBLAS GrB_Index is 64-bit too).
using Index = std::int64_t;

/// Value types a container may hold (GraphBLAS: GrB_BOOL, GrB_INT32, GrB_INT64, GrB_FP32, GrB_FP64).
enum class Type : std::uint8_t { boolean, int32, int64, fp32, fp64 };

/// Width of the row-pointer and column-index arrays of a sparse container.
enum class IndexType : std::uint8_t { i32, i64 };

/// Where a container's arrays live. Copies between them are explicit (Matrix::to).
enum class Location : std::uint8_t { host, device };

std::size_t type_size(Type t);
std::string_view type_name(Type t);  // "bool", "int32", "int64", "fp32", "fp64"
Type parse_type(std::string_view name);  // inverse of type_name; throws InvalidValue
bool is_float(Type t);
std::size_t index_size(IndexType t);

template <class T> struct type_of;
template <> struct type_of<bool> { static constexpr Type value = Type::boolean; };
template <> struct type_of<std::int32_t> { static constexpr Type value = Type::int32; };
template <> struct type_of<std::int64_t> { static constexpr Type value = Type::int64; };
template <> struct type_of<float> { static constexpr Type value = Type::fp32; };
template <> struct type_of<double> { static constexpr Type value = Type::fp64; };
template <class T> inline constexpr Type type_of_v = type_of<T>::value;

template <class I> struct index_type_of;
template <> struct index_type_of<std::int32_t> { static constexpr IndexType value = IndexType::i32; };
template <> struct index_type_of<std::int64_t> { static constexpr IndexType value = IndexType::i64; };

/// Calls f(T{}) with T the C++ type of `t` (bool, int32_t, int64_t, float, double).
template <class F> decltype(auto) visit_type(Type t, F&& f) {
  switch (t) {
    case Type::boolean: return f(bool{});
    case Type::int32: return f(std::int32_t{});
    case Type::int64: return f(std::int64_t{});
    case Type::fp32: return f(float{});
    default: return f(double{});
  }
}

/// Calls f(I{}) with I the C++ type of `t` (int32_t or int64_t).
template <class F> decltype(auto) visit_index_type(IndexType t, F&& f) {
  if (t == IndexType::i32) return f(std::int32_t{});
  return f(std::int64_t{});
}

}  // namespace ringblas
