// Connected components (algorithms/connected_components, FastSV) against union-find with the
// smallest id as each set's label.
#include <gtest/gtest.h>

#include <numeric>

#include "algorithms/connected_components.hpp"
#include "support/graph_cases.hpp"

namespace {

using namespace ringblas;

std::vector<Index> union_find_labels(const test::Adjacency& adj) {
  std::vector<Index> parent(static_cast<std::size_t>(adj.n()));
  std::iota(parent.begin(), parent.end(), Index{0});
  auto find = [&](Index x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (Index i = 0; i < adj.n(); ++i)
    for (auto [j, w] : adj.out[i]) {
      const Index a = find(i), b = find(j);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the smaller root wins
    }
  std::vector<Index> label(parent.size());
  for (Index i = 0; i < adj.n(); ++i) label[i] = find(i);
  return label;
}

void check_components(const Matrix& A) {
  Context ctx(Backend::cpu);
  const algorithms::ComponentsResult r = algorithms::connected_components(A, ctx);
  ASSERT_EQ(r.label.nnz(), A.nrows());
  EXPECT_EQ(test::dense_of<Index>(r.label, -1, ctx), union_find_labels(test::adjacency_of(A)));
}

TEST(AlgorithmsConnectedComponents, TinyCases) {
  check_components(Matrix(0, 0));
  check_components(Matrix(1, 1));
  check_components(Matrix(5, 5));  // no edges: every vertex alone
  check_components(test::graph_of(8, {{0, 0}, {7, 1}, {1, 6}, {2, 3}, {5, 5}, {4, 3}}, true));
  // A path numbered against its order, which takes several hooking rounds.
  check_components(
      test::graph_of(9, {{8, 3}, {3, 7}, {7, 1}, {1, 6}, {6, 0}, {2, 5}, {5, 4}}, true));
}

TEST(AlgorithmsConnectedComponents, SharedGraphs) {
  for (const std::string& file : test::shared_graph_files()) {
    if (!test::data_present(file)) GTEST_SKIP() << "test data absent: " << file;
    SCOPED_TRACE(file);
    check_components(test::load_shared_graph(file));
  }
  // Many components: a road graph cut into pieces is not here; p2p-Gnutella31 has several.
  check_components(test::load_shared_graph("snap/p2p-Gnutella31.txt.gz"));
}

}  // namespace
