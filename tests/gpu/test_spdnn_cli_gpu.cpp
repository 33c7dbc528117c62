// `ringblas spdnn --backend cuda` through the command line with either --upload (how the weights
// and images cross the bus): PASS against the Graph Challenge truth, and the bytes sent reported.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cpu/test_cli_support.hpp"
#include "support/gpu_fixture.hpp"

namespace ringblas::test {
namespace {

using ringblas::test_cli::run_cli;

using SpdnnCliGpu = GpuTest;

TEST_F(SpdnnCliGpu, BothUploadsPassOnTheRealNetwork) {
  const std::string dir = std::string(RINGBLAS_DATA_DIR) + "/graphchallenge_dnn";
  if (!std::filesystem::exists(dir + "/neuron1024-l120-categories.tsv"))
    GTEST_SKIP() << "Graph Challenge data not found under " << dir;
  for (const char* upload : {"csr", "packed"}) {
    // 6000 images: the 1200 of the file five times (the truth is replicated alike).
    const auto r = run_cli({"spdnn", "--data", dir, "--backend", "cuda", "--images", "6000",
                            "--progress", "0", "--upload", upload});
    ASSERT_EQ(r.code, 0) << upload << ": " << r.err;
    EXPECT_NE(r.out.find("\ncategories: 95 of 6000 images\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nPASS (against "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(std::string("\nsent to the device (--upload ") + upload + "): weights "),
              std::string::npos)
        << r.out;
  }
}

}  // namespace
}  // namespace ringblas::test
