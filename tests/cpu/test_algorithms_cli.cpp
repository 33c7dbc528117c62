// The graph commands of the CLI (bfs, sssp, pagerank, tc, cc, kcore, bc): outputs on a small
// file against known answers, and exit codes for bad usage (2) and run-time errors (1). Values
// are compared with networkx by tests/cpu/algorithms_networkx.py.
#include <gtest/gtest.h>

#include <fstream>

#include "test_cli_support.hpp"

namespace {

using ringblas::test_cli::run_cli;
using ringblas::test_cli::slurp;
using ringblas::test_cli::temp_dir;

/// A directed 5-vertex graph: 0 -> 1 (2), 1 -> 2 (-1), 0 -> 2 (4), 3 -> 4 (1); 1-based file.
std::string small_graph(bool negative_cycle = false) {
  const auto path = temp_dir() / (negative_cycle ? "cycle.mtx" : "small.mtx");
  std::ofstream f(path);
  f << "%%MatrixMarket matrix coordinate real general\n5 5 " << (negative_cycle ? 5 : 4) << "\n"
    << "1 2 2\n2 3 -1\n1 3 4\n4 5 1\n";
  if (negative_cycle) f << "3 2 0.5\n";
  return path.string();
}

TEST(AlgorithmsCli, BfsLevelsAndParentsAsVectors) {
  const auto out = (temp_dir() / "levels.mtx").string();
  auto r = run_cli({"bfs", small_graph(), "--source", "0", "-o", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("reached: 3"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(out),
            "%%MatrixMarket matrix coordinate integer general\n5 1 3\n1 1 0\n2 1 1\n3 1 1\n");
  r = run_cli({"bfs", small_graph(), "--source", "0", "--parents", "-o", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(out),
            "%%MatrixMarket matrix coordinate integer general\n5 1 3\n1 1 0\n2 1 0\n3 1 0\n");
}

TEST(AlgorithmsCli, SsspNegativeWeightsAndCycle) {
  const auto out = (temp_dir() / "dist.mtx").string();
  auto r = run_cli({"sssp", small_graph(), "--source", "0", "-o", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("method: bellman-ford"), std::string::npos) << r.out;
  EXPECT_NE(slurp(out).find("3 1 1\n"), std::string::npos) << slurp(out);  // 0 -> 1 -> 2 = 1
  r = run_cli({"sssp", small_graph(), "--source", "0", "--method", "delta-stepping"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("non-negative"), std::string::npos) << r.err;
  r = run_cli({"sssp", small_graph(true), "--source", "0"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("negative cycle"), std::string::npos) << r.err;
}

TEST(AlgorithmsCli, UndirectedCommandsSymmetrise) {
  auto r = run_cli({"cc", small_graph()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("components: 2"), std::string::npos) << r.out;
  r = run_cli({"tc", small_graph()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "triangles: 1\n");
  r = run_cli({"kcore", small_graph()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "max_core: 2\n");
}

TEST(AlgorithmsCli, BadUsageExitsTwo) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"bfs", small_graph()},
        {"bfs", small_graph(), "--source", "5"},
        {"sssp", small_graph(), "--source", "x"},
        {"sssp", small_graph(), "--source", "0", "--method", "dijkstra"},
        {"pagerank", small_graph(), "--damping", "abc"},
        {"tc", small_graph(), "--method", "x"},
        {"cc", small_graph(), "--bogus"},
        {"bc", small_graph(), "--sources", "6"},
        {"kcore", small_graph(), "--backend", "gpu"}}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args[0] << " " << args.back() << ": " << r.err;
  }
  const auto h = run_cli({"pagerank", "--help"});
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("--damping"), std::string::npos);
}

TEST(AlgorithmsCli, PageRankAndBetweennessWriteEveryVertex) {
  const auto out = (temp_dir() / "v.mtx").string();
  for (const char* cmd : {"pagerank", "bc"}) {
    const auto r = run_cli({cmd, small_graph(), "-o", out});
    ASSERT_EQ(r.code, 0) << cmd << ": " << r.err;
    EXPECT_EQ(slurp(out).find("%%MatrixMarket matrix coordinate real general\n5 1 5\n"), 0u)
        << cmd << ": " << slurp(out);
  }
}

}  // namespace
