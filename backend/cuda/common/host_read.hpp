// Small device-to-host reads that wait for the stream: a sparse output's size, a reduced scalar,
// a planner's counters (implemented in common/memory.cu).
#pragma once
#include <cstddef>

#include "ringblas/context.hpp"

namespace ringblas::cuda {

/// The most bytes read_to_host reads through its pinned buffer (larger reads stage as pageable).
/// 512: spgemm_hash's sync-free small calls read both of their planner's counters at once (448).
inline constexpr std::size_t kPinnedReadBytes = 512;

/// Copies `bytes` from device memory `src` to host memory `dst` after the work queued on ctx's
/// stream, and waits for it. Through a pinned buffer of the calling host thread: a pageable
/// destination makes the driver stage the copy, several microseconds more per read
/// (spgemm_hash's lean path measured it), and BFS reads one size per step, k-core two per peel
/// round (~800 rounds on R-MAT scale 22).
void read_to_host(void* dst, const void* src, std::size_t bytes, const Context& ctx);

/// One value read by read_to_host.
template <class T>
T read_value(const T* src, const Context& ctx) {
  T v{};
  read_to_host(&v, src, sizeof(T), ctx);
  return v;
}

}  // namespace ringblas::cuda
