// SSSP (algorithms/sssp: min.+ Bellman-Ford and delta-stepping) against Dijkstra (non-negative
// weights) and a plain Bellman-Ford over the edge list (negative weights and cycles).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "algorithms/sssp.hpp"
#include "support/graph_cases.hpp"

namespace {

using namespace ringblas;
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> dijkstra(const test::Adjacency& adj, Index s) {
  std::vector<double> d(static_cast<std::size_t>(adj.n()), kInf);
  using Item = std::pair<double, Index>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> pq;
  d[s] = 0;
  pq.push({0, s});
  while (!pq.empty()) {
    auto [du, u] = pq.top();
    pq.pop();
    if (du > d[u]) continue;
    for (auto [v, w] : adj.out[u])
      if (du + w < d[v]) pq.push({d[v] = du + w, v});
  }
  return d;
}

/// Plain Bellman-Ford; nullopt on a negative cycle reachable from s.
std::optional<std::vector<double>> bellman_ford(const test::Adjacency& adj, Index s) {
  std::vector<double> d(static_cast<std::size_t>(adj.n()), kInf);
  d[s] = 0;
  for (Index round = 0; round <= adj.n(); ++round) {
    bool changed = false;
    for (Index u = 0; u < adj.n(); ++u)
      if (d[u] < kInf)
        for (auto [v, w] : adj.out[u])
          if (d[u] + w < d[v]) {
            d[v] = d[u] + w;
            changed = true;
          }
    if (!changed) return d;
  }
  return std::nullopt;
}

void expect_same(const Vector& distance, const std::vector<double>& want, Context& ctx) {
  const std::vector<double> got = test::dense_of<double>(distance, kInf, ctx);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t v = 0; v < got.size(); ++v) {
    if (std::isinf(want[v]))
      EXPECT_TRUE(std::isinf(got[v])) << "vertex " << v;
    else
      EXPECT_NEAR(got[v], want[v], 1e-9 * (1 + std::fabs(want[v]))) << "vertex " << v;
  }
}

/// Bellman-Ford, and delta-stepping (default and a few fixed bucket widths) where no weight is
/// negative.
void expect_distances(const Matrix& A, Index s, const std::vector<double>& want) {
  Context ctx(Backend::cpu);
  {
    SCOPED_TRACE("bellman-ford");
    expect_same(algorithms::sssp_bellman_ford(A, s, ctx).distance, want, ctx);
  }
  const std::vector<double> w = A.cast(Type::fp64).values_vector<double>();
  if (std::any_of(w.begin(), w.end(), [](double x) { return x < 0; })) return;
  for (double delta : {0.0, 0.3, 1.0, 5.0, 1e9}) {
    SCOPED_TRACE("delta-stepping, delta " + std::to_string(delta));
    expect_same(algorithms::sssp_delta_stepping(A, s, delta, ctx).distance, want, ctx);
  }
}

TEST(AlgorithmsSssp, TinyCases) {
  expect_distances(test::graph_of(1, {}, false), 0, {0});
  // Zero weights and a zero-weight cycle.
  expect_distances(test::graph_of(4, {{0, 1, 0}, {1, 2, 0}, {2, 1, 0}, {2, 3, 2}}, false), 0,
                   {0, 0, 0, 2});
  const Matrix A =
      test::graph_of(6, {{0, 1, 4}, {0, 2, 1}, {2, 1, 2}, {1, 3, 1}, {3, 3, 5}, {4, 5, 1}}, false);
  expect_distances(A, 0, {0, 3, 1, 4, kInf, kInf});
  expect_distances(A, 3, {kInf, kInf, kInf, 0, kInf, kInf});  // only a self-loop leaves 3
}

TEST(AlgorithmsSssp, NegativeWeightsWithoutCycle) {
  const Matrix A = test::graph_of(5,
                                  {{0, 1, 6},
                                   {0, 2, 7},
                                   {1, 2, 8},
                                   {1, 3, 5},
                                   {1, 4, -4},
                                   {2, 3, -3},
                                   {2, 4, 9},
                                   {3, 1, -2},
                                   {4, 0, 2},
                                   {4, 3, 7}},
                                  false);
  const auto want = bellman_ford(test::adjacency_of(A), 0);
  ASSERT_TRUE(want);
  expect_distances(A, 0, *want);
}

TEST(AlgorithmsSssp, NegativeCycleIsAnError) {
  Context ctx(Backend::cpu);
  const Matrix A = test::graph_of(4, {{0, 1, 1}, {1, 2, -2}, {2, 1, 1}, {3, 0, 1}}, false);
  ASSERT_FALSE(bellman_ford(test::adjacency_of(A), 0));
  EXPECT_THROW(algorithms::sssp_bellman_ford(A, 0, ctx), InvalidValue);
  // A negative self-loop is a cycle too; an unreachable negative cycle is no error.
  EXPECT_THROW(algorithms::sssp_bellman_ford(test::graph_of(2, {{0, 0, -1}}, false), 0, ctx),
               InvalidValue);
  expect_distances(test::graph_of(3, {{1, 2, -3}, {2, 1, 1}}, false), 0, {0, kInf, kInf});
  EXPECT_THROW(algorithms::sssp_bellman_ford(A, 4, ctx), InvalidIndex);
  EXPECT_THROW(algorithms::sssp_bellman_ford(Matrix(0, 0), 0, ctx), InvalidIndex);  // empty graph
  EXPECT_THROW(algorithms::sssp_delta_stepping(Matrix(0, 0), 0, 0, ctx), InvalidIndex);
  EXPECT_THROW(algorithms::sssp_bellman_ford(Matrix(2, 3), 0, ctx), DimensionMismatch);
  EXPECT_THROW(algorithms::sssp_delta_stepping(A, 0, 0, ctx), InvalidValue);  // negative weight
  EXPECT_THROW(algorithms::sssp_delta_stepping(test::graph_of(2, {{0, 1}}, false), 0, -1, ctx),
               InvalidValue);
}

TEST(AlgorithmsSssp, SharedGraphs) {
  for (const std::string& file : test::shared_graph_files()) {
    if (!test::data_present(file)) GTEST_SKIP() << "test data absent: " << file;
    SCOPED_TRACE(file);
    const Matrix A = test::load_shared_graph(file);
    expect_distances(A, 0, dijkstra(test::adjacency_of(A), 0));
  }
  // Weighted: jazz has integer weights; G51 / 1138_bus real values (abs taken: Dijkstra's).
  Context ctx(Backend::cpu);
  for (const char* file : {"suitesparse/jazz.mtx", "suitesparse/1138_bus.mtx"}) {
    SCOPED_TRACE(file);
    const Matrix raw = io::read_matrix_market(test::data_path(file)).cast(Type::fp64);
    Matrix A(raw.nrows(), raw.ncols(), Type::fp64);
    apply(A, nullptr, no_accum, UnaryOpCode::abs, raw, {}, ctx);
    expect_distances(A, 1, dijkstra(test::adjacency_of(A), 1));
  }
}

}  // namespace
