// Core numbers (algorithms/kcore) against sequential peeling (repeatedly remove a vertex of
// minimum remaining degree; its core number is the largest minimum seen so far).
#include <gtest/gtest.h>

#include <set>

#include "algorithms/kcore.hpp"
#include "support/graph_cases.hpp"

namespace {

using namespace ringblas;

std::vector<Index> peeling(const test::Adjacency& adj) {
  const Index n = adj.n();
  std::vector<std::set<Index>> nb(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i)
    for (auto [j, w] : adj.out[i])
      if (j != i) nb[i].insert(j);
  std::vector<Index> core(nb.size(), -1);
  std::set<std::pair<Index, Index>> by_degree;
  for (Index i = 0; i < n; ++i) by_degree.insert({Index(nb[i].size()), i});
  Index k = 0;
  while (!by_degree.empty()) {
    auto [d, v] = *by_degree.begin();
    by_degree.erase(by_degree.begin());
    k = std::max(k, d);
    core[v] = k;
    for (Index u : nb[v]) {
      by_degree.erase({Index(nb[u].size()), u});
      nb[u].erase(v);
      by_degree.insert({Index(nb[u].size()), u});
    }
    nb[v].clear();
  }
  return core;
}

void check_cores(const Matrix& A) {
  Context ctx(Backend::cpu);
  const std::vector<Index> want = peeling(test::adjacency_of(A));
  for (auto update : {algorithms::KCoreUpdate::sparse_loss, algorithms::KCoreUpdate::in_place}) {
    SCOPED_TRACE(update == algorithms::KCoreUpdate::in_place ? "in_place" : "sparse_loss");
    const Vector core = algorithms::core_numbers(A, update, ctx);
    ASSERT_EQ(core.nnz(), A.nrows());
    EXPECT_EQ(test::dense_of<Index>(core, -1, ctx), want);
  }
}

TEST(AlgorithmsKCore, TinyCases) {
  check_cores(Matrix(0, 0));
  check_cores(Matrix(1, 1));
  check_cores(Matrix(4, 4));
  // K4 (core 3) with a self-loop, a pendant path (core 1) and an isolated vertex (core 0).
  check_cores(test::graph_of(
      8, {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}, {2, 2}, {3, 4}, {4, 5}, {6, 6}}, true));
}

TEST(AlgorithmsKCore, SharedGraphs) {
  for (const std::string& file : test::shared_graph_files()) {
    if (!test::data_present(file)) GTEST_SKIP() << "test data absent: " << file;
    SCOPED_TRACE(file);
    check_cores(test::load_shared_graph(file));
  }
}

}  // namespace
