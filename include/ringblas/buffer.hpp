// An owning, typeless array of bytes on the host or on a device; value semantics (copy is deep).
//
// Device memory is stream-ordered (cudaMallocAsync): a Buffer remembers the stream of the Context
// that allocated it and frees itself on that stream, after all work queued there before the free
// (freeing on the legacy stream instead let the pool hand the block to another allocation while a
// kernel on a non-blocking stream still used it). So, as with RMM's device_buffer:
//   - that stream must still exist when the Buffer is freed: an object that outlives its stream
//     is handed to a living one with set_stream first (after the stream is synchronised, or
//     the new stream made to wait for it);
//   - work on a buffer queued on another stream must be ordered before the free: make the
//     buffer's stream wait for it (an event), or synchronise, or set_stream to that stream
//     where it becomes the buffer's last user.
#pragma once
#include <cstddef>
#include <memory>

#include "ringblas/types.hpp"

namespace ringblas {

class Context;

class Buffer {
 public:
  Buffer() = default;
  /// Allocates `bytes` at `where` (device memory comes from ctx's workspace pool).
  Buffer(std::size_t bytes, Location where, const Context* ctx = nullptr);
  Buffer(const Buffer& other);
  Buffer& operator=(const Buffer& other);
  Buffer(Buffer&&) noexcept = default;
  Buffer& operator=(Buffer&&) noexcept = default;
  ~Buffer() = default;

  void* data() { return ptr_.get(); }
  const void* data() const { return ptr_.get(); }
  template <class T> T* as() { return static_cast<T*>(data()); }
  template <class T> const T* as() const { return static_cast<const T*>(data()); }
  std::size_t size() const { return bytes_; }
  Location location() const { return loc_; }

  /// A deep copy at `where` on ctx's stream; host<->device copies are counted in ctx.transfers.
  Buffer to(Location where, const Context& ctx) const;

  /// The stream (a cudaStream_t; nullptr: the legacy stream) the memory is freed on: the
  /// allocating Context's. A copy (Buffer(const Buffer&)) is made and kept on its source's stream.
  void* stream() const { return ptr_.get_deleter().stream; }
  /// Frees the memory on `stream` instead; the caller has ordered every use on the old stream
  /// before `stream`'s next work (see the header comment).
  void set_stream(void* stream) { ptr_.get_deleter().stream = stream; }

 private:
  struct Deleter {
    Location loc = Location::host;
    void* stream = nullptr;
    void operator()(void* p) const;
  };
  std::unique_ptr<void, Deleter> ptr_{nullptr, Deleter{}};
  std::size_t bytes_ = 0;
  Location loc_ = Location::host;
};

namespace detail {
// Implemented by the cuda backend (or by its stub, which throws NotCompiled, in builds without CUDA).
void* device_allocate(std::size_t bytes, const Context* ctx);
/// Frees `p` in `stream`'s order (a cudaStream_t; nullptr: the legacy stream).
void device_free(void* p, void* stream) noexcept;
/// Synchronous copy between any two locations.
void copy_bytes(void* dst, Location dst_loc, const void* src, Location src_loc, std::size_t bytes,
                const Context* ctx);
}  // namespace detail

}  // namespace ringblas
