// `ringblas spdnn` as a program: PASS on the real 1024 x 120 network in one process, and the
// usage errors of the multi-rank options and of --upload (the mpirun run itself is the ctest
// spdnn_mpi_two_ranks).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_cli_support.hpp"

namespace {

using ringblas::test_cli::run_cli;

const std::string kDnnDir = std::string(RINGBLAS_DATA_DIR) + "/graphchallenge_dnn";

TEST(SpdnnCli, RealNetworkPassesInOneProcess) {
  if (!std::filesystem::exists(kDnnDir + "/neuron1024-l120-categories.tsv"))
    GTEST_SKIP() << "Graph Challenge data not found under " << kDnnDir;
  const auto r = run_cli({"spdnn", "--data", kDnnDir, "--backend", "cpu", "--progress", "0"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\ncategories: 19 of 1200 images\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nPASS (against "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nlayers: "), std::string::npos) << r.out;
}

TEST(SpdnnCli, MultiRankOptionsRejectBadUsage) {
  for (const auto& extra : std::vector<std::vector<std::string>>{
           {"--gpus", "0"},
           {"--rebalance-after", "3"},  // needs --gpus G > 1
           {"--gpus", "2", "--layers", "120", "--rebalance-after", "120"},
           {"--gpus", "2", "--rebalance-threshold", "-5"},
           {"--gpus", "2", "--baseline-ms", "fast"},
           {"--upload", "bitmap"}}) {  // csr or packed
    std::vector<std::string> args{"spdnn", "--data", kDnnDir};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << extra.front() << ": " << r.err;
    EXPECT_NE(r.err.find("usage: ringblas spdnn"), std::string::npos) << r.err;
  }
}

}  // namespace
