// `ringblas mcl` on the GPU through the command line: the iterands' type (--type) on a graph that
// the command moves to the device, against mcl's stored output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cpu/test_cli_support.hpp"
#include "support/gpu_fixture.hpp"

namespace ringblas::test {
namespace {

using ringblas::test_cli::run_cli;
using ringblas::test_cli::slurp;

using MclCliGpu = GpuTest;

// The graph is read in fp64 and must reach the device in the options' type (it failed with "a
// device graph must have the options' type" before).
TEST_F(MclCliGpu, IterandTypesOnTheDeviceGiveMclsClusters) {
  const std::string mcl = std::string(RINGBLAS_DATA_DIR) + "/mcl";
  const std::string in = mcl + "/debian_mcl_examples/small.mci";
  if (!std::filesystem::exists(in)) GTEST_SKIP() << in << " not found";
  const std::string expected = slurp(mcl + "/reference_output_mcl22-282/small.mci.I20.clusters.txt");
  for (const char* type : {"fp64", "fp32"}) {
    const auto r =
        run_cli({"mcl", in, "-I", "2.0", "--type", type, "-q", "-o", "-", "--backend", "cuda"});
    ASSERT_EQ(r.code, 0) << type << ": " << r.err;
    EXPECT_EQ(r.out, expected) << type;
  }
}

// A SNAP edge list is symmetrised by the command itself (on the device when there is one), then
// brought to the iterands' type: two 4-cliques joined by one edge, each pair listed once.
TEST_F(MclCliGpu, SnapEdgeListInBothTypesOnTheDevice) {
  const auto dir = ringblas::test_cli::temp_dir() / "mcl_snap_gpu";
  std::filesystem::create_directories(dir);
  const auto snap = dir / "two_cliques.txt";
  {
    std::ofstream s(snap);
    for (const char* e : {"0 1", "0 2", "0 3", "1 2", "1 3", "2 3", "3 4", "4 5", "4 6", "4 7",
                          "5 6", "5 7", "6 7"})
      s << e << '\n';
  }
  for (const char* type : {"fp64", "fp32"}) {
    const auto r = run_cli(
        {"mcl", snap.string(), "--type", type, "-q", "-o", "-", "--backend", "cuda"});
    ASSERT_EQ(r.code, 0) << type << ": " << r.err;
    EXPECT_EQ(r.out, "0\t1\t2\t3\n4\t5\t6\t7\n") << type;
  }
}

}  // namespace
}  // namespace ringblas::test
