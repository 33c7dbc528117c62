// Betweenness centrality (algorithms/betweenness, batched Brandes) against Brandes' algorithm
// written here with a BFS queue and a stack, per source.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <queue>
#include <stack>

#include "algorithms/betweenness.hpp"
#include "support/graph_cases.hpp"

namespace {

using namespace ringblas;

std::vector<double> brandes(const test::Adjacency& adj, const std::vector<Index>& sources) {
  const std::size_t n = std::size_t(adj.n());
  std::vector<double> bc(n, 0.0);
  for (Index s : sources) {
    std::vector<double> sigma(n, 0.0), delta(n, 0.0);
    std::vector<Index> dist(n, -1);
    std::vector<std::vector<Index>> pred(n);
    std::stack<Index> order;
    std::queue<Index> q;
    sigma[s] = 1;
    dist[s] = 0;
    q.push(s);
    while (!q.empty()) {
      const Index v = q.front();
      q.pop();
      order.push(v);
      for (auto [w, x] : adj.out[v]) {
        if (dist[w] < 0) {
          dist[w] = dist[v] + 1;
          q.push(w);
        }
        if (dist[w] == dist[v] + 1) {
          sigma[w] += sigma[v];
          pred[w].push_back(v);
        }
      }
    }
    while (!order.empty()) {
      const Index w = order.top();
      order.pop();
      for (Index v : pred[w]) delta[v] += sigma[v] / sigma[w] * (1 + delta[w]);
      if (w != s) bc[w] += delta[w];
    }
  }
  return bc;
}

void check_bc(const Matrix& A, const std::vector<Index>& sources, Index batch) {
  Context ctx(Backend::cpu);
  const Vector got_v = algorithms::betweenness(A, sources, batch, ctx);
  ASSERT_EQ(got_v.nnz(), A.nrows());
  const std::vector<double> got = test::dense_of<double>(got_v, -1.0, ctx);
  const std::vector<double> want = brandes(test::adjacency_of(A), sources);
  for (std::size_t v = 0; v < got.size(); ++v)
    EXPECT_NEAR(got[v], want[v], 1e-9 * (1 + want[v])) << "vertex " << v;
}

std::vector<Index> first(Index k) {
  std::vector<Index> s(static_cast<std::size_t>(k));
  std::iota(s.begin(), s.end(), Index{0});
  return s;
}

TEST(AlgorithmsBetweenness, TinyCases) {
  check_bc(Matrix(0, 0), {}, 4);
  check_bc(Matrix(1, 1), {0}, 4);
  // Two paths between 0 and 3 (through 1 and 2), a self-loop, a directed tail and an isolated
  // vertex 6.
  const Matrix A =
      test::graph_of(7, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 3}, {3, 4}, {4, 5}}, false);
  check_bc(A, first(7), 3);  // batches of 3, 3 and 1
  check_bc(A, {3, 0}, 64);
  Context ctx(Backend::cpu);
  EXPECT_THROW(algorithms::betweenness(A, {7}, 4, ctx), InvalidIndex);
  EXPECT_THROW(algorithms::betweenness(A, {0}, 0, ctx), InvalidValue);
}

TEST(AlgorithmsBetweenness, SharedGraphs) {
  for (const std::string& file :
       {"suitesparse/karate.mtx", "suitesparse/jazz.mtx", "suitesparse/dwt_1005.mtx"}) {
    if (!test::data_present(file)) GTEST_SKIP() << "test data absent: " << file;
    SCOPED_TRACE(file);
    const Matrix A = test::load_shared_graph(file);
    check_bc(A, first(std::min<Index>(A.nrows(), 100)), 32);
  }
  const Matrix W = io::read_matrix_market(test::data_path("suitesparse/west0479.mtx"));
  check_bc(W, first(50), 16);
}

}  // namespace
