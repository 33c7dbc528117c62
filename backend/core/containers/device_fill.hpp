// Device fills behind ringblas/vector_fill.hpp, implemented by the cuda backend (its stub throws
// NotCompiled in builds without CUDA).
#pragma once
#include <cstddef>
#include <cstdint>

namespace ringblas {
class Context;
namespace detail {

/// Device memory dst[k] = the element at `pattern` (host memory, elem_size bytes: 1, 2, 4 or 8)
/// for k < count, by a kernel on ctx's stream (no host wait).
void device_fill(void* dst, const void* pattern, std::size_t elem_size, std::size_t count,
                 const Context* ctx);
/// Device memory dst[k] = k for k < count (as device_fill).
void device_iota(std::int64_t* dst, std::size_t count, const Context* ctx);

}  // namespace detail
}  // namespace ringblas
