// `ringblas mcl`: mcl's output format and order on small.mci and label triples, progress lines,
// usage and input errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_cli_support.hpp"

namespace {

using ringblas::test_cli::run_cli;
using ringblas::test_cli::slurp;
using ringblas::test_cli::temp_dir;

const std::string kMcl = std::string(RINGBLAS_DATA_DIR) + "/mcl";

TEST(MclCli, SmallMciAsMclWritesIt) {
  const std::string in = kMcl + "/debian_mcl_examples/small.mci";
  if (!std::filesystem::exists(in)) GTEST_SKIP() << in << " not found";
  const auto r = run_cli({"mcl", in, "-I", "2.0", "-o", "-", "--backend", "cpu"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, slurp(kMcl + "/reference_output_mcl22-282/small.mci.I20.clusters.txt"));
  // One progress line per iteration after the header, then the summary.
  EXPECT_NE(r.err.find(" ite "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("3 clusters"), std::string::npos) << r.err;
}

TEST(MclCli, LabelTriplesGiveLabelledClustersInMclsDefaultFile) {
  const auto dir = temp_dir() / "mcl_abc";
  std::filesystem::create_directories(dir);
  const auto in = dir / "cliques.abc";
  std::ofstream(in)
      << "a\tb\t1\na\tc\t1\na\td\t1\nb\tc\t1\nb\td\t1\nc\td\t1\ne\tf\t1\ne\tg\t1\nf\tg\t1\n";
  const std::string cwd = std::filesystem::current_path().string();
  std::filesystem::current_path(dir);
  const auto r = run_cli({"mcl", in.string(), "--abc", "-q", "--backend", "cpu"});
  std::filesystem::current_path(cwd);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;  // -q: no progress
  EXPECT_EQ(slurp(dir / "out.cliques.abc.I20"), "a\tb\tc\td\ne\tf\tg\n");
}

// A SNAP edge list holds undirected pairs, each listed once: clustered as mcl --abc clusters
// the same pairs (read as a directed graph it would flow into a single attractor instead).
TEST(MclCli, SnapEdgeListIsClusteredAsTheSamePairsWithAbc) {
  const auto dir = temp_dir() / "mcl_snap";
  std::filesystem::create_directories(dir);
  const auto snap = dir / "two_cliques.txt", abc = dir / "two_cliques.abc";
  std::ofstream s(snap), a(abc);
  s << "# two 4-cliques joined by the edge 3-4, each pair once with i < j\n";
  const int pairs[][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}, {3, 4},
                          {4, 5}, {4, 6}, {4, 7}, {5, 6}, {5, 7}, {6, 7}};
  for (const auto& p : pairs) {
    s << p[0] << ' ' << p[1] << '\n';
    a << p[0] << '\t' << p[1] << "\t1\n";
  }
  s.close();
  a.close();
  const auto from_snap = run_cli({"mcl", snap.string(), "-q", "-o", "-", "--backend", "cpu"});
  const auto from_abc =
      run_cli({"mcl", abc.string(), "--abc", "-q", "-o", "-", "--backend", "cpu"});
  ASSERT_EQ(from_snap.code, 0) << from_snap.err;
  ASSERT_EQ(from_abc.code, 0) << from_abc.err;
  EXPECT_EQ(from_snap.out, "0\t1\t2\t3\n4\t5\t6\t7\n");
  EXPECT_EQ(from_snap.out, from_abc.out);
}

TEST(MclCli, UsageAndInputErrors) {
  EXPECT_EQ(run_cli({"mcl"}).code, 2);
  EXPECT_EQ(run_cli({"mcl", "x.mci", "-I", "two"}).code, 2);
  const auto dir = temp_dir();
  const auto bad = dir / "bad.mci";
  std::ofstream(bad)
      << "(mclheader\nmcltype matrix\ndimensions 2x2\n)\n(mclmatrix\nbegin\n0 7 $\n)\n";
  const auto r = run_cli({"mcl", bad.string(), "-o", "-"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("bad.mci:7: row index 7 out of range"), std::string::npos) << r.err;
}

}  // namespace
