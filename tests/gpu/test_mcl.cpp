// Markov clustering on the cuda backend: the same clusters as the cpu backend (and so as mcl),
// with the graph and every iterand on the device; one memory-bounded run in row phases.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "algorithms/mcl.hpp"
#include "ringblas/ringblas.hpp"
#include "support/clusterings.hpp"
#include "support/gpu_fixture.hpp"

namespace ringblas::test {
namespace {

const std::string kMcl = std::string(RINGBLAS_DATA_DIR) + "/mcl";

class Mcl : public GpuTest {
 protected:
  void expect_cuda_equals_cpu(const std::string& file, bool abc, double inflation,
                              std::size_t budget = 0);
};

void Mcl::expect_cuda_equals_cpu(const std::string& file, bool abc, double inflation,
                                 std::size_t budget) {
  std::vector<std::string> labels;
  const Matrix g = abc ? io::read_abc(file, &labels) : io::read_mci(file);
  mcl::Options opt;
  opt.inflation = inflation;
  opt.memory_budget_bytes = budget;
  Context cpu(Backend::cpu), gpu(Backend::automatic);  // cuda kernels where they exist
  const mcl::Result want = mcl::cluster(g, opt, cpu);
  poison_device_pool(std::size_t(64) << 20, gpu);
  const Matrix gd = g.to(Location::device, gpu);
  const mcl::Result got = mcl::cluster(gd, opt, gpu);
  const auto [d1, d2] =
      split_join(with_labels(got.clusters, labels), with_labels(want.clusters, labels));
  EXPECT_EQ(d1 + d2, 0) << file << " -I " << inflation << ": split/join " << d1 << " + " << d2;
  EXPECT_EQ(got.clusters, want.clusters) << file;
  EXPECT_EQ(got.iterations, want.iterations) << file;
}

TEST_F(Mcl, SmallAndProteinsMci) {
  if (!std::filesystem::exists(kMcl)) GTEST_SKIP() << kMcl << " not found";
  expect_cuda_equals_cpu(kMcl + "/debian_mcl_examples/small.mci", false, 2.0);
  expect_cuda_equals_cpu(kMcl + "/debian_mcl_examples/proteins.mci.gz", false, 2.0);
}

TEST_F(Mcl, KroganCoreAndGavin) {
  if (!std::filesystem::exists(kMcl)) GTEST_SKIP() << kMcl << " not found";
  expect_cuda_equals_cpu(kMcl + "/ppi_yeast/krogan2006_core.txt.gz", true, 2.0);
  for (double inflation : {1.4, 2.0, 4.0})
    expect_cuda_equals_cpu(kMcl + "/ppi_yeast/gavin2006_socioaffinities_rescaled.txt.gz", true,
                           inflation);
}

TEST_F(Mcl, RowPhasesUnderABudget) {
  if (!std::filesystem::exists(kMcl)) GTEST_SKIP() << kMcl << " not found";
  // 24 MB: several row phases in iterations 2 and 3 of Krogan core (as on the cpu).
  expect_cuda_equals_cpu(kMcl + "/ppi_yeast/krogan2006_core.txt.gz", true, 2.0,
                         std::size_t(24000000));
}

}  // namespace
}  // namespace ringblas::test
