// Markov clustering on graphs with known answers (checked with mcl 22-282: `mcl g.abc --abc`),
// mcl's interpretation rules on hand-made limits, the memory-bounded phases and option errors.
#include <gtest/gtest.h>

#include <vector>

#include "algorithms/mcl.hpp"
#include "ringblas/ringblas.hpp"
#include "support/op_cases.hpp"

namespace {

using namespace ringblas;
using Clusters = std::vector<std::vector<Index>>;

/// A symmetric graph from undirected weighted edges.
Matrix graph(Index n, const std::vector<std::tuple<Index, Index, double>>& edges) {
  std::vector<Index> r, c;
  std::vector<double> v;
  for (auto [i, j, w] : edges) {
    r.push_back(i), c.push_back(j), v.push_back(w);
    if (i != j) r.push_back(j), c.push_back(i), v.push_back(w);
  }
  return Matrix::from_triplets(n, n, r, c, v);
}

Clusters run(const Matrix& g, mcl::Options opt = {}) {
  Context ctx = test::cpu_context();
  return mcl::cluster(g, opt, ctx).clusters;
}

TEST(Mcl, DisconnectedCliquesAreTheClusters) {
  // K4 on 0..3 and K3 on 4..6; mcl: "a b c d" / "e f g".
  std::vector<std::tuple<Index, Index, double>> e;
  for (Index i = 0; i < 4; ++i)
    for (Index j = i + 1; j < 4; ++j) e.emplace_back(i, j, 1.0);
  for (Index i = 4; i < 7; ++i)
    for (Index j = i + 1; j < 7; ++j) e.emplace_back(i, j, 1.0);
  EXPECT_EQ(run(graph(7, e)), (Clusters{{0, 1, 2, 3}, {4, 5, 6}}));
}

TEST(Mcl, PathsSplitAsMclSplitsThem) {
  // mcl on the path a-b-c-d-e: "a b c" / "d e"; on a-...-i (9 nodes): "a..e" / "f..i".
  std::vector<std::tuple<Index, Index, double>> p5, p9;
  for (Index i = 0; i + 1 < 5; ++i) p5.emplace_back(i, i + 1, 1.0);
  for (Index i = 0; i + 1 < 9; ++i) p9.emplace_back(i, i + 1, 1.0);
  EXPECT_EQ(run(graph(5, p5)), (Clusters{{0, 1, 2}, {3, 4}}));
  EXPECT_EQ(run(graph(9, p9)), (Clusters{{0, 1, 2, 3, 4}, {5, 6, 7, 8}}));
}

TEST(Mcl, IsolatedNodesAreSingletons) {
  // A triangle and two nodes without edges (mcl: 0 1 2 / 3 / 4).
  EXPECT_EQ(run(graph(5, {{0, 1, 1.0}, {1, 2, 1.0}, {0, 2, 1.0}})),
            (Clusters{{0, 1, 2}, {3}, {4}}));
}

TEST(Mcl, SelfLoopsOnlyGiveSingletons) {
  EXPECT_EQ(run(graph(3, {{0, 0, 2.0}, {1, 1, 1.0}, {2, 2, 5.0}})), (Clusters{{0}, {1}, {2}}));
}

TEST(Mcl, ZeroWeightsAreNoEdges) {
  // A triangle and node 3 joined to 2 with weight 0 (mcl: "a b c" / "d").
  EXPECT_EQ(run(graph(4, {{0, 1, 1.0}, {1, 2, 1.0}, {0, 2, 1.0}, {2, 3, 0.0}})),
            (Clusters{{0, 1, 2}, {3}}));
}

TEST(Mcl, EmptyGraph) { EXPECT_TRUE(run(Matrix(0, 0)).empty()); }

TEST(Mcl, Fp32IterandsGiveTheSameCliques) {
  std::vector<std::tuple<Index, Index, double>> e;
  for (Index i = 0; i < 4; ++i)
    for (Index j = i + 1; j < 4; ++j) e.emplace_back(i, j, 1.0), e.emplace_back(i + 4, j + 4, 1.0);
  e.emplace_back(3, 4, 0.1);
  mcl::Options opt;
  opt.type = Type::fp32;
  EXPECT_EQ(run(graph(8, e), opt), (Clusters{{0, 1, 2, 3}, {4, 5, 6, 7}}));
}

TEST(MclInterpret, AttractorSystemsAndOverlapCut) {
  // Limit rows (row i = mcl's column i): 0 and 1 are attractors reaching each other (one
  // system), 4 is a lone attractor; 2 flows to 0, 3 flows half to 1 and half to 4 (overlap: it
  // keeps the cluster numbered first, that of {0, 1}); 5 flows to 3 only (reaches both systems).
  const std::vector<Index> r{0, 0, 1, 1, 2, 3, 3, 4, 5};
  const std::vector<Index> c{0, 1, 0, 1, 0, 1, 4, 4, 3};
  const std::vector<double> v{0.5, 0.5, 0.5, 0.5, 1.0, 0.5, 0.5, 1.0, 1.0};
  Context ctx = test::cpu_context();
  EXPECT_EQ(mcl::interpret(Matrix::from_triplets(6, 6, r, c, v), ctx),
            (Clusters{{0, 1, 2, 3, 5}, {4}}));
}

TEST(MclInterpret, OrderIsSizeThenMembers) {
  // Four lone attractors and 3 -> 1: clusters {1,3}, then {0}, {2} by their members.
  const std::vector<Index> r{0, 1, 2, 3}, c{0, 1, 2, 1};
  const std::vector<double> v{1, 1, 1, 1};
  Context ctx = test::cpu_context();
  EXPECT_EQ(mcl::interpret(Matrix::from_triplets(4, 4, r, c, v), ctx),
            (Clusters{{1, 3}, {0}, {2}}));
}

TEST(MclPhases, SmallBudgetGivesTheSameClustersInSeveralPhases) {
  // Two 12-cliques joined by one light edge; a budget that holds the iterand but only part of
  // its product forces row phases.
  std::vector<std::tuple<Index, Index, double>> e;
  for (Index i = 0; i < 12; ++i)
    for (Index j = i + 1; j < 12; ++j)
      e.emplace_back(i, j, 1.0), e.emplace_back(i + 12, j + 12, 1.0);
  e.emplace_back(0, 12, 0.2);
  const Matrix g = graph(24, e);
  Context ctx = test::cpu_context();
  const mcl::Result one = mcl::cluster(g, {}, ctx);
  mcl::Options opt;
  opt.memory_budget_bytes = 20000;  // about 8 of the 24 rows of a product per phase
  int max_phases = 0;
  const mcl::Result phased = mcl::cluster(g, opt, ctx, [&](const mcl::IterationInfo& it) {
    max_phases = std::max(max_phases, it.phases);
  });
  EXPECT_GT(max_phases, 1);
  EXPECT_EQ(phased.clusters, one.clusters);
  EXPECT_EQ(phased.iterations, one.iterations);
}

TEST(MclPruning, WithoutRecoveryEmptiedRowsGetALoopInEveryPhase) {
  // -P 3 -R 0 on the 9-node path: pruning at 1/3 empties rows, mcl adds loops ("emergency
  // measure"); mcl 22-282 gives "a b" / "h i" / c / d / e / f / g. Also in row phases.
  std::vector<std::tuple<Index, Index, double>> p9;
  for (Index i = 0; i + 1 < 9; ++i) p9.emplace_back(i, i + 1, 1.0);
  mcl::Options opt;
  opt.prune = 3;
  opt.recover = 0;
  const Clusters want{{0, 1}, {7, 8}, {2}, {3}, {4}, {5}, {6}};
  EXPECT_EQ(run(graph(9, p9), opt), want);
  opt.memory_budget_bytes = 1500;  // pruned rows of <= 4 entries: a few rows per phase
  Context ctx = test::cpu_context();
  int max_phases = 0;
  EXPECT_EQ(mcl::cluster(
                graph(9, p9), opt, ctx,
                [&](const mcl::IterationInfo& it) { max_phases = std::max(max_phases, it.phases); })
                .clusters,
            want);
  EXPECT_GT(max_phases, 1);
}

TEST(MclPhases, BudgetThatCanNeverFitThrowsOutOfMemory) {
  const Matrix g = graph(3, {{0, 1, 1.0}, {1, 2, 1.0}});
  mcl::Options opt;
  opt.memory_budget_bytes = 100;
  Context ctx = test::cpu_context();
  try {
    mcl::cluster(g, opt, ctx);
    FAIL() << "expected OutOfMemory";
  } catch (const OutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("budget of 100 bytes"), std::string::npos) << e.what();
  }
}

TEST(MclOptions, BadInputsThrow) {
  Context ctx = test::cpu_context();
  EXPECT_THROW(mcl::cluster(Matrix(2, 3), {}, ctx), DimensionMismatch);
  mcl::Options bad;
  bad.inflation = 0;
  EXPECT_THROW(mcl::cluster(Matrix(2, 2), bad, ctx), InvalidValue);
  EXPECT_THROW(mcl::cluster(graph(2, {{0, 1, -1.0}}), {}, ctx), InvalidValue);
}

TEST(MclPruning, SelectionAndRecoveryMatchFullProductOnSmallS) {
  // With -S 2 -R 3 the rows of a 6-clique prune to their 2 largest entries (ties kept: all
  // entries of a clique row are equal, so nothing is dropped) and the clusters stay one clique.
  std::vector<std::tuple<Index, Index, double>> e;
  for (Index i = 0; i < 6; ++i)
    for (Index j = i + 1; j < 6; ++j) e.emplace_back(i, j, 1.0);
  mcl::Options opt;
  opt.select = 2;
  opt.recover = 3;
  EXPECT_EQ(run(graph(6, e), opt), (Clusters{{0, 1, 2, 3, 4, 5}}));
}

}  // namespace
