// Known answers on the cpu backend: triangle counts of karate (45) and of small hand-made graphs,
// by L = tril(A, -1), C<L> = L plus_pair Lᵀ, sum(C) (the masked SandiaDot method of LAGraph's
// LAGr_TriangleCount), checked also against a brute-force count over vertex triples.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "ringblas/ringblas.hpp"

namespace {

using namespace ringblas;

std::int64_t triangles_by_mxm(const Matrix& A, Context& ctx) {
  const Index n = A.nrows();
  Matrix L(n, n, A.type());
  select(L, nullptr, no_accum, SelectOpCode::tril, Scalar(Index(-1)), A, {}, ctx);
  Matrix C(n, n, Type::int64);
  Descriptor d;
  d.mask_structure = true;
  d.transpose_b = true;
  mxm(C, &L, no_accum, semiring("plus_pair", Type::int64), L, L, d, ctx);
  return reduce(MonoidCode::plus, C, ctx).as<std::int64_t>();
}

/// Brute force over i < j < k on the adjacency sets (independent of every library operation).
std::int64_t triangles_by_triples(const Matrix& A) {
  const Index n = A.nrows();
  const std::vector<Index> rp = A.row_ptr_vector(), ci = A.col_idx_vector();
  std::vector<std::set<Index>> adj(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i)
    for (Index p = rp[i]; p < rp[i + 1]; ++p)
      if (ci[p] != i) adj[i].insert(ci[p]);
  std::int64_t count = 0;
  for (Index i = 0; i < n; ++i)
    for (Index j : adj[i])
      if (j > i)
        for (Index k : adj[j])
          if (k > j && adj[i].count(k)) ++count;
  return count;
}

Matrix undirected(Index n, const std::vector<std::pair<Index, Index>>& edges) {
  std::vector<Index> r, c;
  for (auto [i, j] : edges) {
    r.push_back(i);
    c.push_back(j);
    r.push_back(j);
    c.push_back(i);
  }
  return Matrix::from_triplets<bool>(n, n, r, c, std::vector<bool>(r.size(), true));
}

TEST(KnownAnswers, KarateHas45Triangles) {
  const std::string path = std::string(RINGBLAS_REPO_DATA_DIR) + "/suitesparse/karate.mtx";
  Context ctx(Backend::cpu);
  const Matrix A = io::read_matrix_market(path);
  ASSERT_EQ(A.nrows(), 34);
  ASSERT_EQ(A.nnz(), 156);
  EXPECT_EQ(triangles_by_triples(A), 45);
  EXPECT_EQ(triangles_by_mxm(A, ctx), 45);
}

TEST(KnownAnswers, HandMadeGraphs) {
  Context ctx(Backend::cpu);
  // K4 (4 triangles) + a pendant vertex + a disjoint triangle: 5 triangles.
  const Matrix g1 = undirected(
      8, {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}, {3, 4}, {5, 6}, {6, 7}, {5, 7}});
  EXPECT_EQ(triangles_by_triples(g1), 5);
  EXPECT_EQ(triangles_by_mxm(g1, ctx), 5);
  // A 5-cycle has none; adding one chord makes one.
  const Matrix cycle = undirected(5, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}});
  EXPECT_EQ(triangles_by_mxm(cycle, ctx), 0);
  const Matrix chord = undirected(5, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}, {0, 2}});
  EXPECT_EQ(triangles_by_mxm(chord, ctx), 1);
  // K6: C(6, 3) = 20 triangles; the empty graph and 0x0 have none.
  std::vector<std::pair<Index, Index>> k6;
  for (Index i = 0; i < 6; ++i)
    for (Index j = i + 1; j < 6; ++j) k6.push_back({i, j});
  EXPECT_EQ(triangles_by_mxm(undirected(6, k6), ctx), 20);
  EXPECT_EQ(triangles_by_mxm(Matrix(4, 4, Type::boolean), ctx), 0);
  EXPECT_EQ(triangles_by_mxm(Matrix(0, 0, Type::boolean), ctx), 0);
}

}  // namespace
