// Markov clustering against mcl 22-282's own output on the PPI networks and mcl's examples:
// the collector's references (../shared/data/mcl/reference_output_mcl22-282) and the outputs
// stored in tests/data/mcl (made as tests/data/mcl/README.md says).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "algorithms/mcl.hpp"
#include "ringblas/ringblas.hpp"
#include "support/clusterings.hpp"
#include "support/op_cases.hpp"

namespace {

using namespace ringblas;
using test::Clustering;

const std::string kMcl = std::string(RINGBLAS_DATA_DIR) + "/mcl";
const std::string kExpected = RINGBLAS_REPO_DATA_DIR "/mcl";

#define REQUIRE_MCL_DATA()                           \
  if (!std::filesystem::exists(kMcl + "/ppi_yeast")) \
  GTEST_SKIP() << "shared mcl data not found at " << kMcl

/// Clusters `path` (label triples with `abc`, else .mci) at inflation I, as label/index lines.
Clustering ours(const std::string& path, bool abc, double inflation) {
  std::vector<std::string> labels;
  const Matrix g = abc ? io::read_abc(path, &labels) : io::read_mci(path);
  mcl::Options opt;
  opt.inflation = inflation;
  Context ctx = test::cpu_context();
  return test::with_labels(mcl::cluster(g, opt, ctx).clusters, labels);
}

void expect_same(const Clustering& got, const Clustering& want, const std::string& what) {
  const auto [d1, d2] = test::split_join(got, want);
  EXPECT_EQ(d1 + d2, 0) << what << ": split/join distance " << d1 << " + " << d2;
  EXPECT_EQ(got, want) << what << ": same partition expected in mcl's order";
}

TEST(MclData, KroganCoreAtI2IsMclsClustering) {
  REQUIRE_MCL_DATA();
  expect_same(ours(kMcl + "/ppi_yeast/krogan2006_core.txt.gz", true, 2.0),
              test::read_clustering(
                  kMcl + "/reference_output_mcl22-282/krogan2006_core.abc.I20.clusters.txt"),
              "krogan core -I 2.0");
}

TEST(MclData, ProteinsMciIsMclsClustering) {
  REQUIRE_MCL_DATA();
  expect_same(
      ours(kMcl + "/debian_mcl_examples/proteins.mci.gz", false, 2.0),
      test::read_clustering(kMcl + "/reference_output_mcl22-282/proteins.mci.I20.clusters.txt"),
      "proteins.mci -I 2.0");
}

TEST(MclData, SmallMciIsMclsClustering) {
  REQUIRE_MCL_DATA();
  expect_same(
      ours(kMcl + "/debian_mcl_examples/small.mci", false, 2.0),
      test::read_clustering(kMcl + "/reference_output_mcl22-282/small.mci.I20.clusters.txt"),
      "small.mci -I 2.0");
}

struct PpiCase {
  const char* name;
  const char* file;
  double inflation;
  const char* expected;
};

class MclPpi : public testing::TestWithParam<PpiCase> {};

TEST_P(MclPpi, SameClustersAsMcl) {
  REQUIRE_MCL_DATA();
  const PpiCase& c = GetParam();
  expect_same(ours(kMcl + "/ppi_yeast/" + c.file, true, c.inflation),
              test::read_clustering(kExpected + "/" + c.expected), c.name);
}

INSTANTIATE_TEST_SUITE_P(
    GavinAndKroganExtended, MclPpi,
    testing::Values(
        PpiCase{"gavin_I14", "gavin2006_socioaffinities_rescaled.txt.gz", 1.4,
                "gavin.I14.clusters.txt"},
        PpiCase{"gavin_I20", "gavin2006_socioaffinities_rescaled.txt.gz", 2.0,
                "gavin.I20.clusters.txt"},
        PpiCase{"gavin_I40", "gavin2006_socioaffinities_rescaled.txt.gz", 4.0,
                "gavin.I40.clusters.txt"},
        PpiCase{"krogan_ext_I14", "krogan2006_extended.txt.gz", 1.4, "krogan_ext.I14.clusters.txt"},
        PpiCase{"krogan_ext_I20", "krogan2006_extended.txt.gz", 2.0, "krogan_ext.I20.clusters.txt"},
        PpiCase{"krogan_ext_I40", "krogan2006_extended.txt.gz", 4.0,
                "krogan_ext.I40.clusters.txt"}),
    [](const testing::TestParamInfo<PpiCase>& p) { return std::string(p.param.name); });

TEST(MclData, SplitJoinDistanceCountsMovedNodes) {
  // The test's own yardstick: moving one node between two clusters costs 1 on each side.
  const Clustering a{{"x", "y", "z"}, {"u", "v"}}, b{{"x", "y"}, {"z", "u", "v"}};
  EXPECT_EQ(test::split_join(a, b), (std::pair<long, long>{1, 1}));
  EXPECT_EQ(test::split_join(a, a), (std::pair<long, long>{0, 0}));
}

}  // namespace
