// `ringblas spdnn --backend cuda` through the command line with either --upload (how the weights
// and images cross the bus), with and without --overlap: PASS against the Graph Challenge truth,
// and the bytes sent reported.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

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
  for (const std::string upload : {"csr", "packed"})
    for (const bool overlap : {false, true}) {
      // 6000 images: the 1200 of the file five times (the truth is replicated alike). --overlap:
      // the images staged while the weights are prepared.
      std::vector<std::string> args{"spdnn", "--data",   dir,   "--backend",
                                    "cuda",  "--images", "6000"};
      args.insert(args.end(), {"--progress", "0", "--upload", upload});
      if (overlap) args.push_back("--overlap");
      const auto r = run_cli(args);
      ASSERT_EQ(r.code, 0) << upload << (overlap ? " --overlap" : "") << ": " << r.err;
      EXPECT_NE(r.out.find("\ncategories: 95 of 6000 images\n"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("\nPASS (against "), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("\nsent to the device (--upload " + upload + "): weights "),
                std::string::npos)
          << r.out;
    }
}

}  // namespace
}  // namespace ringblas::test
