// The fixture every GPU test derives from: skips without a device, checks for CUDA errors after
// each test, and can poison the device memory pool so that unwritten outputs show up as garbage
// (PoisonedPoolTest: before every test).
#pragma once
#include <gtest/gtest.h>

#include <cstddef>

#include "ringblas/buffer.hpp"
#include "ringblas/context.hpp"
#if defined(RINGBLAS_HAS_CUDA)
#include <cuda_runtime.h>
#endif

namespace ringblas::test {

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ringblas::cuda_available()) GTEST_SKIP() << "no CUDA device visible";
  }
  void TearDown() override {
#if defined(RINGBLAS_HAS_CUDA)
    if (!ringblas::cuda_available()) return;
    const cudaError_t sync = cudaDeviceSynchronize();
    EXPECT_EQ(sync, cudaSuccess) << "after the test: " << cudaGetErrorString(sync);
    const cudaError_t last = cudaGetLastError();
    EXPECT_EQ(last, cudaSuccess) << "pending CUDA error: " << cudaGetErrorString(last);
#endif
  }

  /// Fills `bytes` of device memory with 0xAB bytes and returns it to the pool, so that later
  /// allocations of that size or less likely start from poison rather than from zeros.
  static void poison_device_pool(std::size_t bytes, const Context& ctx) {
#if defined(RINGBLAS_HAS_CUDA)
    Buffer b(bytes, Location::device, &ctx);
    ASSERT_EQ(cudaMemset(b.data(), 0xAB, bytes), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
#else
    (void)bytes;
    (void)ctx;
#endif
  }
};

/// A GpuTest that poisons `Bytes` of the device pool before each test, for suites whose every
/// test checks that its outputs are all written.
template <std::size_t Bytes>
class PoisonedPoolTest : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    Context ctx(Backend::cuda);
    poison_device_pool(Bytes, ctx);
  }
};

}  // namespace ringblas::test
