// Buffer's stream bookkeeping (include/ringblas/buffer.hpp), which decides where device memory is
// freed: the allocating context's stream, kept by copies and moves, changed by set_stream. Host
// buffers carry it the same way (and ignore it when freed), so the rules are checked here without
// a device; tests/gpu/test_stream_free.cu checks the ordering itself.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <utility>

#include "ringblas/buffer.hpp"
#include "ringblas/context.hpp"

namespace ringblas {
namespace {

void* fake_stream(int k) { return reinterpret_cast<void*>(std::uintptr_t(0x1000 * k)); }

TEST(Buffer, KeepsTheStreamOfItsContext) {
  Context ctx(Backend::cpu);
  ctx.stream = fake_stream(1);
  EXPECT_EQ(Buffer(16, Location::host, &ctx).stream(), fake_stream(1));
  EXPECT_EQ(Buffer(16, Location::host).stream(), nullptr);  // no context: the legacy stream
  EXPECT_EQ(Buffer().stream(), nullptr);
}

TEST(Buffer, CopiesStayOnTheSourceStreamAndMovesCarryIt) {
  Context ctx(Backend::cpu);
  ctx.stream = fake_stream(2);
  Buffer a(8, Location::host, &ctx);
  std::memcpy(a.data(), "ringblas", 8);
  const Buffer copy(a);
  EXPECT_EQ(copy.stream(), fake_stream(2));
  EXPECT_EQ(std::memcmp(copy.data(), "ringblas", 8), 0);
  Buffer assigned;
  assigned = a;
  EXPECT_EQ(assigned.stream(), fake_stream(2));
  EXPECT_EQ(std::memcmp(assigned.data(), "ringblas", 8), 0);
  const Buffer moved(std::move(a));
  EXPECT_EQ(moved.stream(), fake_stream(2));
}

TEST(Buffer, SetStreamHandsTheBufferOver) {
  Context ctx(Backend::cpu);
  ctx.stream = fake_stream(3);
  Buffer a(8, Location::host, &ctx);
  a.set_stream(fake_stream(4));
  EXPECT_EQ(a.stream(), fake_stream(4));
  EXPECT_EQ(Buffer(a).stream(), fake_stream(4));
}

}  // namespace
}  // namespace ringblas
