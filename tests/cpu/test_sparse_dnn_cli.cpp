// `ringblas spdnn` as a program: PASS on the real 1024 x 120 network in one process, and the
// usage errors of the multi-rank options, of --upload and --tail (the mpirun run itself is the ctest
// spdnn_mpi_two_ranks).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ringblas/error.hpp"
#include "ringblas/sparse_layer.hpp"
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
           {"--upload", "bitmap"},  // csr or packed
           {"--tail", "automatic"}}) {  // auto, rows or staged
    std::vector<std::string> args{"spdnn", "--data", kDnnDir};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << extra.front() << ": " << r.err;
    EXPECT_NE(r.err.find("usage: ringblas spdnn"), std::string::npos) << r.err;
  }
}

// --tail and bench_spdnn --tail parse through parse_sparse_tail: "auto" is the default
// (LayerChainOptions), every name round-trips, anything else is refused naming the valid ones.
TEST(SpdnnCli, TailNamesRoundTrip) {
  using ringblas::SparseTail;
  EXPECT_EQ(ringblas::LayerChainOptions{}.tail, SparseTail::automatic);
  EXPECT_EQ(ringblas::parse_sparse_tail("auto"), SparseTail::automatic);
  EXPECT_EQ(ringblas::parse_sparse_tail("rows"), SparseTail::rows);
  EXPECT_EQ(ringblas::parse_sparse_tail("staged"), SparseTail::staged);
  for (SparseTail t : {SparseTail::automatic, SparseTail::rows, SparseTail::staged})
    EXPECT_EQ(ringblas::parse_sparse_tail(ringblas::sparse_tail_name(t)), t);
  try {
    ringblas::parse_sparse_tail("Staged");
    ADD_FAILURE() << "a wrong name parsed";
  } catch (const ringblas::InvalidValue& e) {
    EXPECT_NE(std::string(e.what()).find("auto, rows, staged"), std::string::npos) << e.what();
  }
}

}  // namespace
