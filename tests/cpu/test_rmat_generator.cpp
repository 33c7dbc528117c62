// The benchmark's R-MAT generator (tests/support/rmat.hpp): deterministic, symmetric, no
// self-loops, weights in (0, 1], and the skewed degrees R-MAT is chosen for.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/rmat.hpp"

namespace {

using namespace ringblas;

TEST(RmatGenerator, DeterministicSymmetricNoSelfLoops) {
  const test::RmatGraph g = test::rmat(10);
  const Matrix& a = g.adjacency;
  ASSERT_EQ(a.nrows(), 1024);
  EXPECT_EQ(g.input_edges, 16 * 1024);
  a.check_invariants();
  const test::RmatGraph again = test::rmat(10);
  EXPECT_EQ(again.adjacency.col_idx_vector(), a.col_idx_vector());
  EXPECT_EQ(again.adjacency.values_vector<double>(), a.values_vector<double>());
  EXPECT_NE(test::rmat(10, 16, 7).adjacency.col_idx_vector(), a.col_idx_vector());

  const std::vector<Index> rp = a.row_ptr_vector(), ci = a.col_idx_vector();
  const std::vector<double> v = a.values_vector<double>();
  Index max_degree = 0;
  for (Index i = 0; i < a.nrows(); ++i) {
    max_degree = std::max(max_degree, rp[i + 1] - rp[i]);
    for (Index p = rp[i]; p < rp[i + 1]; ++p) {
      const Index j = ci[p];
      ASSERT_NE(i, j) << "self-loop";
      ASSERT_GT(v[p], 0.0);
      ASSERT_LE(v[p], 1.0);
      const auto b = ci.begin() + rp[j], e = ci.begin() + rp[j + 1];
      const auto q = std::lower_bound(b, e, i);
      ASSERT_TRUE(q != e && *q == i) << "(" << i << ", " << j << ") has no mirror";
      ASSERT_EQ(v[std::size_t(q - ci.begin())], v[p]);
    }
  }
  // Duplicates removed, so fewer than 2M entries; skew: the largest degree far above the mean.
  EXPECT_LT(a.nnz(), 2 * g.input_edges);
  EXPECT_GT(a.nnz(), g.input_edges);
  EXPECT_GT(double(max_degree), 8.0 * double(a.nnz()) / double(a.nrows()));
}

}  // namespace
