// Stream-ordered device frees (include/ringblas/buffer.hpp): a Buffer allocated through a Context
// whose stream is non-blocking is freed, and copied, in that stream's order. Each test queues a
// kernel that spins a few milliseconds on such a stream and then touches the buffer; what the
// host does meanwhile (free and reallocate on the legacy stream, copy) must not overtake it. When
// frees went to the legacy stream, which does not wait for a non-blocking stream, the pool handed
// the freed block to the next allocation at once and the memset below overwrote it mid-spin.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "ringblas/buffer.hpp"
#include "ringblas/context.hpp"
#include "support/gpu_fixture.hpp"

namespace ringblas::test {
namespace {

constexpr std::size_t kCount = std::size_t(1) << 20;  // 4 MB of ints
constexpr int kThreads = 256;

/// One block: writes `before` into every element (unless before < 0), spins `cycles` clock
/// cycles, then writes `after` (unless after < 0), or, with after < 0, counts the elements that
/// no longer hold `before` into *changed. Volatile: the re-read must see other streams' writes,
/// not this SM's cached copy.
__global__ void spin_then_touch(int* a, std::size_t n, int before, long long cycles, int after,
                                unsigned long long* changed) {
  if (before >= 0)
    for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) a[i] = before;
  __syncthreads();
  if (threadIdx.x == 0) {
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
  }
  __syncthreads();
  if (after >= 0) {
    for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) a[i] = after;
    return;
  }
  unsigned long long mine = 0;
  const volatile int* v = a;
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) mine += v[i] != before;
  atomicAdd(changed, mine);
}

class StreamFreeGpu : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
    ctx_.stream = stream_;
    int khz = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0), cudaSuccess);
    spin_ = 20LL * khz;  // ~20 ms: far longer than the host's free, allocation and memset
  }
  void TearDown() override {
    if (stream_) {
      EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
      EXPECT_EQ(cudaStreamDestroy(stream_), cudaSuccess);
    }
    GpuTest::TearDown();
  }

  cudaStream_t stream_ = nullptr;
  Context ctx_{Backend::cuda};
  long long spin_ = 0;
};

TEST_F(StreamFreeGpu, BufferRemembersItsStream) {
  const Buffer a(64, Location::device, &ctx_);
  EXPECT_EQ(a.stream(), ctx_.stream);
  const Buffer copy(a);
  EXPECT_EQ(copy.stream(), ctx_.stream);
  Buffer moved(64, Location::device, &ctx_);
  moved.set_stream(nullptr);
  EXPECT_EQ(moved.stream(), nullptr);
  const Context legacy(Backend::cuda);
  EXPECT_EQ(Buffer(64, Location::device, &legacy).stream(), nullptr);
}

// The brief's scenario: allocate on a non-blocking stream, launch a long kernel reading the
// buffer, free it, allocate the same size on the legacy stream and write there; the first
// kernel must still see its own values.
TEST_F(StreamFreeGpu, FreedBlockIsNotReusedWhileItsStreamStillReadsIt) {
  unsigned long long* changed = nullptr;
  ASSERT_EQ(cudaMalloc(&changed, sizeof *changed), cudaSuccess);  // outside the pool
  ASSERT_EQ(cudaMemset(changed, 0, sizeof *changed), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const void* freed = nullptr;
  {
    Buffer a(kCount * sizeof(int), Location::device, &ctx_);
    freed = a.data();
    spin_then_touch<<<1, kThreads, 0, stream_>>>(a.as<int>(), kCount, 1, spin_, -1, changed);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  }  // freed here, while the kernel spins
  const Context legacy(Backend::cuda);
  Buffer b(kCount * sizeof(int), Location::device, &legacy);
  ASSERT_EQ(cudaMemsetAsync(b.data(), 0x22, kCount * sizeof(int), cudaStreamLegacy), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  unsigned long long got = 0;
  ASSERT_EQ(cudaMemcpy(&got, changed, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(changed);
  // Reuse of the block is the pool's choice (it may also make the legacy stream wait); either
  // way the kernel's values must be intact.
  RecordProperty("block_reused", b.data() == freed ? "yes" : "no");
  EXPECT_EQ(got, 0u) << "elements overwritten under the running kernel (block reused: "
                     << (b.data() == freed ? "yes" : "no") << ")";
}

// A copy of a Buffer is made on its source's stream, after the writes queued there.
TEST_F(StreamFreeGpu, CopyWaitsForItsSourceStream) {
  Buffer a(kCount * sizeof(int), Location::device, &ctx_);
  spin_then_touch<<<1, kThreads, 0, stream_>>>(a.as<int>(), kCount, 0, spin_, 7, nullptr);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const Buffer copy(a);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> got(kCount);
  ASSERT_EQ(cudaMemcpy(got.data(), copy.data(), kCount * sizeof(int), cudaMemcpyDeviceToHost),
            cudaSuccess);
  std::size_t stale = 0;
  for (int x : got) stale += x != 7;
  EXPECT_EQ(stale, 0u) << "of " << kCount << " elements copied before the kernel wrote them";
}

}  // namespace
}  // namespace ringblas::test
