// BFS (algorithms/bfs) against a plain queue BFS: levels exactly, parents as a valid BFS tree
// (parent one level up and joined by an edge), push-only and direction-optimising, on tiny cases
// and the shared graphs.
#include <gtest/gtest.h>

#include <queue>

#include "algorithms/bfs.hpp"
#include "support/graph_cases.hpp"

namespace {

using namespace ringblas;
using ringblas::test::Edge;

std::vector<Index> queue_bfs(const test::Adjacency& adj, Index s) {
  std::vector<Index> level(static_cast<std::size_t>(adj.n()), -1);
  std::queue<Index> q;
  level[s] = 0;
  q.push(s);
  while (!q.empty()) {
    const Index u = q.front();
    q.pop();
    for (auto [v, w] : adj.out[u])
      if (level[v] < 0) {
        level[v] = level[u] + 1;
        q.push(v);
      }
  }
  return level;
}

void check_bfs(const Matrix& A, Index s, bool direction_optimizing) {
  Context ctx(Backend::cpu);
  const test::Adjacency adj = test::adjacency_of(A);
  const std::vector<Index> expected = queue_bfs(adj, s);
  algorithms::BfsOptions opt;
  opt.parents = true;
  opt.direction_optimizing = direction_optimizing;
  const algorithms::BfsResult r = algorithms::bfs(A, s, opt, ctx);
  const std::vector<Index> level = test::dense_of<Index>(r.level, -1, ctx);
  const std::vector<Index> parent = test::dense_of<Index>(*r.parent, -1, ctx);
  ASSERT_EQ(level, expected);
  for (Index v = 0; v < adj.n(); ++v) {
    if (level[v] < 0) {
      EXPECT_EQ(parent[v], -1) << "unreached vertex " << v << " has a parent";
      continue;
    }
    if (v == s) {
      EXPECT_EQ(parent[v], s);
      continue;
    }
    const Index p = parent[v];
    ASSERT_GE(p, 0) << "vertex " << v;
    EXPECT_EQ(level[p], level[v] - 1) << "vertex " << v << " parent " << p;
    bool edge = false;
    for (auto [w, x] : adj.out[p]) edge |= w == v;
    EXPECT_TRUE(edge) << "parent " << p << " of " << v << " is no in-neighbour";
  }
  // Levels alone (any_pair frontier) agree with the levels of the parents run.
  opt.parents = false;
  const algorithms::BfsResult l = algorithms::bfs(A, s, opt, ctx);
  EXPECT_EQ(test::dense_of<Index>(l.level, -1, ctx), expected);
  EXPECT_FALSE(l.parent.has_value());
  // The vertex-count switch (not the default edge counts) changes the directions taken, never
  // the levels.
  opt.edge_counts = false;
  EXPECT_EQ(test::dense_of<Index>(algorithms::bfs(A, s, opt, ctx).level, -1, ctx), expected);
}

TEST(AlgorithmsBfs, SingleVertex) { check_bfs(test::graph_of(1, {}, false), 0, true); }

TEST(AlgorithmsBfs, SelfLoopsAndIsolatedSource) {
  const Matrix A = test::graph_of(4, {{0, 0}, {1, 2}, {2, 2}, {2, 3}}, true);
  check_bfs(A, 0, true);  // isolated apart from its self-loop: only the source is reached
  check_bfs(A, 1, true);
}

TEST(AlgorithmsBfs, DirectedPathAndDisconnectedParts) {
  const Matrix A = test::graph_of(7, {{0, 1}, {1, 2}, {2, 3}, {3, 1}, {5, 6}, {4, 0}}, false);
  for (Index s = 0; s < 7; ++s) {
    check_bfs(A, s, true);
    check_bfs(A, s, false);
  }
}

TEST(AlgorithmsBfs, BadSourceAndShape) {
  Context ctx(Backend::cpu);
  const Matrix A = test::graph_of(3, {{0, 1}}, false);
  EXPECT_THROW(algorithms::bfs(A, 3, {}, ctx), InvalidIndex);
  EXPECT_THROW(algorithms::bfs(A, -1, {}, ctx), InvalidIndex);
  EXPECT_THROW(algorithms::bfs(Matrix(2, 3), 0, {}, ctx), DimensionMismatch);
  EXPECT_THROW(algorithms::bfs(Matrix(0, 0), 0, {}, ctx), InvalidIndex);
}

TEST(AlgorithmsBfs, DirectionOptimizingTakesPullSteps) {
  Context ctx(Backend::cpu);
  // A star: the first frontier is every leaf, which must switch to pull.
  std::vector<Edge> edges;
  for (Index i = 1; i < 100; ++i) edges.push_back({0, i});
  for (Index i = 1; i < 99; ++i) edges.push_back({i, i + 1});
  const Matrix A = test::graph_of(100, edges, true);
  algorithms::BfsOptions opt;
  opt.symmetric = true;
  opt.edge_counts = false;  // the vertex-count rule
  const algorithms::BfsResult r = algorithms::bfs(A, 0, opt, ctx);
  EXPECT_GT(r.pull_steps, 0);
  EXPECT_EQ(test::dense_of<Index>(r.level, -1, ctx), queue_bfs(test::adjacency_of(A), 0));
  // On edge counts: the leaves' 1 + 2 + ... edges exceed the unexplored ones / alpha too.
  opt.edge_counts = true;
  const algorithms::BfsResult e = algorithms::bfs(A, 0, opt, ctx);
  EXPECT_GT(e.pull_steps, 0);
  EXPECT_EQ(test::dense_of<Index>(e.level, -1, ctx), queue_bfs(test::adjacency_of(A), 0));
  // The out-degrees given (a graph property kept with A): the same steps and levels; a degree
  // vector of the wrong size or type is refused.
  const std::vector<Index> rp = A.row_ptr_vector();
  std::vector<Index> degree(rp.size() - 1);
  for (std::size_t i = 0; i + 1 < rp.size(); ++i) degree[i] = rp[i + 1] - rp[i];
  const Vector deg = Vector::dense<Index>(degree);
  opt.out_degree = &deg;
  const algorithms::BfsResult g = algorithms::bfs(A, 0, opt, ctx);
  EXPECT_EQ(g.pull_steps, e.pull_steps);
  EXPECT_EQ(g.push_steps, e.push_steps);
  EXPECT_EQ(test::dense_of<Index>(g.level, -1, ctx), queue_bfs(test::adjacency_of(A), 0));
  const Vector short_deg = Vector::dense<Index>({1, 2});
  opt.out_degree = &short_deg;
  EXPECT_THROW(algorithms::bfs(A, 0, opt, ctx), DimensionMismatch);
  const Vector fp_deg = deg.cast(Type::fp64);
  opt.out_degree = &fp_deg;
  EXPECT_THROW(algorithms::bfs(A, 0, opt, ctx), DimensionMismatch);
}

TEST(AlgorithmsBfs, SharedGraphs) {
  for (const std::string& file : test::shared_graph_files()) {
    if (!test::data_present(file)) GTEST_SKIP() << "test data absent: " << file;
    SCOPED_TRACE(file);
    const Matrix A = test::load_shared_graph(file);
    check_bfs(A, 0, true);
    check_bfs(A, A.nrows() / 2, true);
  }
  // A directed one: wiki-Vote is read symmetrised; west0479 is unsymmetric.
  check_bfs(io::read_matrix_market(test::data_path("suitesparse/west0479.mtx")), 0, true);
}

}  // namespace
