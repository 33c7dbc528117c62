// Buffer: owning byte arrays on the host (malloc) or device (the cuda backend's allocator).
#include "ringblas/buffer.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include "ringblas/context.hpp"
#include "ringblas/error.hpp"

namespace ringblas {

void Buffer::Deleter::operator()(void* p) const {
  if (!p) return;
  if (loc == Location::host) std::free(p);
  else detail::device_free(p);
}

Buffer::Buffer(std::size_t bytes, Location where, const Context* ctx)
    : ptr_(nullptr, Deleter{where}), bytes_(bytes), loc_(where) {
  if (bytes == 0) return;
  void* p = nullptr;
  if (where == Location::host) {
    p = std::malloc(bytes);
    if (!p) throw OutOfMemory("host allocation of " + std::to_string(bytes) + " bytes failed", bytes);
  } else {
    p = detail::device_allocate(bytes, ctx);
  }
  ptr_.reset(p);
}

Buffer::Buffer(const Buffer& other) : Buffer(other.bytes_, other.loc_, nullptr) {
  if (bytes_) detail::copy_bytes(data(), loc_, other.data(), other.loc_, bytes_, nullptr);
}

Buffer& Buffer::operator=(const Buffer& other) {
  if (this != &other) *this = Buffer(other);
  return *this;
}

Buffer Buffer::to(Location where, const Context& ctx) const {
  Buffer out(bytes_, where, &ctx);
  if (bytes_ == 0) return out;
  detail::copy_bytes(out.data(), where, data(), loc_, bytes_, &ctx);
  auto& t = ctx.transfers;
  if (loc_ == Location::host && where == Location::device) {
    ++t.host_to_device;
    t.bytes_host_to_device += bytes_;
  } else if (loc_ == Location::device && where == Location::host) {
    ++t.device_to_host;
    t.bytes_device_to_host += bytes_;
  }
  return out;
}

}  // namespace ringblas
