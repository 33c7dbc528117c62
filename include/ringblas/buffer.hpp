// An owning, typeless array of bytes on the host or on a device; value semantics (copy is deep).
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

  /// A deep copy at `where`; host<->device copies are counted in ctx.transfers.
  Buffer to(Location where, const Context& ctx) const;

 private:
  struct Deleter {
    Location loc = Location::host;
    void operator()(void* p) const;
  };
  std::unique_ptr<void, Deleter> ptr_{nullptr, Deleter{}};
  std::size_t bytes_ = 0;
  Location loc_ = Location::host;
};

namespace detail {
// Implemented by the cuda backend (or by its stub, which throws NotCompiled, in builds without CUDA).
void* device_allocate(std::size_t bytes, const Context* ctx);
void device_free(void* p) noexcept;
/// Synchronous copy between any two locations.
void copy_bytes(void* dst, Location dst_loc, const void* src, Location src_loc, std::size_t bytes,
                const Context* ctx);
}  // namespace detail

}  // namespace ringblas
