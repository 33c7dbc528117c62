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
  else
    detail::device_free(p, stream);
}

Buffer::Buffer(std::size_t bytes, Location where, const Context* ctx)
    : ptr_(nullptr, Deleter{where, ctx ? ctx->stream : nullptr}), bytes_(bytes), loc_(where) {
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

namespace {
/// A context that only names a stream: for copies made without one.
Context on_stream(void* stream) {
  Context ctx;
  ctx.stream = stream;
  return ctx;
}
}  // namespace

// On the source's stream, the one its last writes were queued on (the legacy stream, where the
// copy used to run, does not wait for a non-blocking stream's work).
Buffer::Buffer(const Buffer& other) : Buffer(other.to(other.loc_, on_stream(other.stream()))) {}

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
