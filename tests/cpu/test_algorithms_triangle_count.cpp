// Triangle counting (algorithms/triangle_count), every method with and without the degree
// presort, against a node-iterator count over sorted adjacency sets; karate has 45 triangles.
#include <gtest/gtest.h>

#include <set>

#include "algorithms/triangle_count.hpp"
#include "support/graph_cases.hpp"

namespace {

using namespace ringblas;
using algorithms::TriangleMethod;

/// Node iterator: for each vertex, count the pairs of higher neighbours that are adjacent.
std::int64_t node_iterator(const test::Adjacency& adj) {
  std::vector<std::set<Index>> up(static_cast<std::size_t>(adj.n()));
  for (Index i = 0; i < adj.n(); ++i)
    for (auto [j, w] : adj.out[i])
      if (j > i) up[i].insert(j);
  std::int64_t count = 0;
  for (Index i = 0; i < adj.n(); ++i)
    for (Index j : up[i])
      for (Index k : up[j])
        if (up[i].count(k)) ++count;
  return count;
}

void check_all_methods(const Matrix& A, std::int64_t expected) {
  Context ctx(Backend::cpu);
  for (TriangleMethod m :
       {TriangleMethod::automatic, TriangleMethod::forward, TriangleMethod::sandia_llt,
        TriangleMethod::sandia_ll, TriangleMethod::sandia_lut, TriangleMethod::cohen})
    for (bool presort : {false, true}) {
      algorithms::TriangleOptions opt;
      opt.method = m;
      opt.presort = presort;
      EXPECT_EQ(algorithms::triangle_count(A, opt, ctx), expected)
          << "method " << int(m) << " presort " << presort;
    }
}

TEST(AlgorithmsTriangleCount, TinyCases) {
  check_all_methods(Matrix(0, 0), 0);
  check_all_methods(Matrix(1, 1), 0);
  // One triangle with self-loops on two corners, plus a separate square (no triangle).
  check_all_methods(
      test::graph_of(7, {{0, 0}, {0, 1}, {1, 2}, {2, 0}, {2, 2}, {3, 4}, {4, 5}, {5, 6}, {6, 3}},
                     true),
      1);
  // K4 has 4 triangles.
  check_all_methods(test::graph_of(4, {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}, true), 4);
}

TEST(AlgorithmsTriangleCount, KarateHas45) {
  if (!test::data_present("suitesparse/karate.mtx")) GTEST_SKIP() << "test data absent";
  check_all_methods(test::load_shared_graph("suitesparse/karate.mtx"), 45);
}

TEST(AlgorithmsTriangleCount, SharedGraphs) {
  for (const std::string& file : test::shared_graph_files()) {
    if (!test::data_present(file)) GTEST_SKIP() << "test data absent: " << file;
    SCOPED_TRACE(file);
    const Matrix A = test::load_shared_graph(file);
    check_all_methods(A, node_iterator(test::adjacency_of(A)));
  }
}

}  // namespace
