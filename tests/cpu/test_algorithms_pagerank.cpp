// PageRank (algorithms/pagerank) against a plain power iteration written here from networkx's
// definition (_pagerank_python: dangling rank spread uniformly, L1 test against n * tol).
#include <gtest/gtest.h>

#include <cmath>

#include "algorithms/pagerank.hpp"
#include "support/graph_cases.hpp"

namespace {

using namespace ringblas;

std::vector<double> power_iteration(const test::Adjacency& adj, double alpha, double tol) {
  const Index n = adj.n();
  std::vector<double> x(static_cast<std::size_t>(n), 1.0 / double(n)), outw(x.size(), 0.0);
  for (Index i = 0; i < n; ++i)
    for (auto [j, w] : adj.out[i]) outw[i] += w;
  for (int it = 0; it < 1000; ++it) {
    std::vector<double> next(x.size(), 0.0);
    double dangling = 0;
    for (Index i = 0; i < n; ++i) {
      if (outw[i] == 0) {
        dangling += x[i];
        continue;
      }
      for (auto [j, w] : adj.out[i]) next[j] += alpha * x[i] * w / outw[i];
    }
    double err = 0;
    for (Index i = 0; i < n; ++i) {
      next[i] += alpha * dangling / double(n) + (1 - alpha) / double(n);
      err += std::fabs(next[i] - x[i]);
    }
    x = next;
    if (err < double(n) * tol) return x;
  }
  ADD_FAILURE() << "reference power iteration did not converge";
  return x;
}

void check_pagerank(const Matrix& A, double alpha = 0.85) {
  Context ctx(Backend::cpu);
  algorithms::PageRankOptions opt;
  opt.damping = alpha;
  opt.tol = 1e-12;
  const std::vector<double> want = power_iteration(test::adjacency_of(A), alpha, 1e-12);
  // y = (x .* w) +.× A, and y = Aᵀ +.× (x .* w) with Aᵀ given (the pull form).
  Matrix at(A.ncols(), A.nrows(), A.type());
  transpose(at, nullptr, no_accum, A, {}, ctx);
  const Matrix* given = &at;
  for (const Matrix* t : {static_cast<const Matrix*>(nullptr), given}) {
    SCOPED_TRACE(t ? "transposed given" : "vxm on A");
    opt.transposed = t;
    const algorithms::PageRankResult r = algorithms::pagerank(A, opt, ctx);
    ASSERT_TRUE(r.converged);
    ASSERT_EQ(r.rank.nnz(), A.nrows());
    const std::vector<double> got = test::dense_of<double>(r.rank, -1.0, ctx);
    double sum = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 1e-9) << "vertex " << i;
      sum += got[i];
    }
    EXPECT_NEAR(sum, 1.0, 1e-9);
  }
}

TEST(AlgorithmsPageRank, EmptyAndSingleVertex) {
  Context ctx(Backend::cpu);
  EXPECT_EQ(algorithms::pagerank(Matrix(0, 0), {}, ctx).rank.nnz(), 0);
  const algorithms::PageRankResult one = algorithms::pagerank(Matrix(1, 1), {}, ctx);
  EXPECT_NEAR(test::dense_of<double>(one.rank, 0.0, ctx)[0], 1.0, 1e-12);
}

TEST(AlgorithmsPageRank, DanglingSelfLoopsAndWeights) {
  // 3 and 4 are dangling; 1 has a self-loop; weights differ.
  check_pagerank(test::graph_of(5, {{0, 1, 2.0}, {1, 1}, {1, 2, 0.5}, {2, 0}, {2, 3, 3.0}}, false));
  check_pagerank(test::graph_of(6, {{0, 1}, {1, 2}, {3, 4}}, true), 0.5);
}

TEST(AlgorithmsPageRank, NotConvergedIsReported) {
  Context ctx(Backend::cpu);
  algorithms::PageRankOptions opt;
  opt.max_iterations = 2;
  opt.tol = 0;
  const algorithms::PageRankResult r =
      algorithms::pagerank(test::graph_of(3, {{0, 1}, {1, 2}}, false), opt, ctx);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 2);
  opt.damping = 1.5;
  EXPECT_THROW(algorithms::pagerank(Matrix(2, 2), opt, ctx), InvalidValue);
}

TEST(AlgorithmsPageRank, SharedGraphs) {
  for (const std::string& file : test::shared_graph_files()) {
    if (!test::data_present(file)) GTEST_SKIP() << "test data absent: " << file;
    SCOPED_TRACE(file);
    check_pagerank(test::load_shared_graph(file));
  }
  check_pagerank(
      io::read_matrix_market(test::data_path("suitesparse/cage8.mtx.gz")).cast(Type::fp64));
}

}  // namespace
