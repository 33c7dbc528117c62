// The operations with vector index lists (include/ringblas/index_vectors.hpp) on the cpu
// executor: sort_permutation against std::stable_sort of the entries (ties, -0.0, sparse and
// empty vectors, both orders, every type), extract with vector lists against extract with the
// same Indices (repeats, GrB_ALL, transposed A, mask and accumulator), and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "ringblas/index_vectors.hpp"
#include "ringblas/ringblas.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

/// The expected permutation: u's indices stably sorted by value (-0.0 equal to +0.0).
std::vector<std::int64_t> naive_permutation(const Vector& u, bool descending) {
  const std::vector<Index> idx = u.indices_vector();
  const std::vector<double> val = u.cast(Type::fp64).values_vector<double>();
  std::vector<std::size_t> order(idx.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return descending ? val[a] > val[b] : val[a] < val[b];
  });
  std::vector<std::int64_t> out;
  for (std::size_t k : order) out.push_back(idx[k]);
  return out;
}

void expect_permutation(const Vector& u, bool descending, Context& ctx, const std::string& what) {
  Vector p(u.size(), Type::int64);
  sort_permutation(p, u, descending ? SortOrder::descending : SortOrder::ascending, ctx);
  const Vector h = p.location() == Location::host ? p : p.to(Location::host, ctx);
  ASSERT_EQ(h.size(), u.size()) << what;
  ASSERT_EQ(h.nnz(), u.nnz()) << what;
  std::vector<Index> want_idx(static_cast<std::size_t>(u.nnz()));
  std::iota(want_idx.begin(), want_idx.end(), Index{0});
  EXPECT_EQ(h.indices_vector(), want_idx) << what;
  EXPECT_EQ(h.values_vector<std::int64_t>(), naive_permutation(u, descending)) << what;
}

TEST(IndexVectors, SortPermutationMatchesAStableSort) {
  Context ctx(Backend::cpu);
  std::uint64_t seed = 40;
  for (Type t : {Type::boolean, Type::int32, Type::int64, Type::fp32, Type::fp64})
    for (double density : {0.0, 0.3, 1.0})
      for (bool desc : {false, true}) {
        // Small integer values (ValueKind::integral): many ties.
        const Vector u = random_vector(200, density, t, ++seed, ValueKind::integral);
        expect_permutation(u, desc, ctx,
                           std::string(type_name(t)) + " density " + std::to_string(density) +
                               (desc ? " descending" : " ascending"));
      }
  // -0.0 and +0.0 are equal values: index order between them.
  const Vector z =
      Vector::from_entries<double>(6, {0, 1, 2, 3, 4, 5}, {0.0, -0.0, 1.5, -0.0, 0.0, -2.0});
  expect_permutation(z, false, ctx, "signed zeros ascending");
  expect_permutation(z, true, ctx, "signed zeros descending");
  expect_permutation(Vector(0, Type::int64), true, ctx, "size 0");
}

TEST(IndexVectors, SortPermutationRejectsBadOutputs) {
  Context ctx(Backend::cpu);
  const Vector u = random_vector(10, 1.0, Type::int64, 3);
  Vector wrong_size(9, Type::int64), wrong_type(10, Type::int32);
  EXPECT_THROW(sort_permutation(wrong_size, u, SortOrder::ascending, ctx), DimensionMismatch);
  EXPECT_THROW(sort_permutation(wrong_type, u, SortOrder::ascending, ctx), InvalidValue);
}

void expect_same(const Matrix& a, const Matrix& b, const std::string& what) {
  ASSERT_EQ(a.nrows(), b.nrows()) << what;
  ASSERT_EQ(a.ncols(), b.ncols()) << what;
  EXPECT_EQ(a.row_ptr_vector(), b.row_ptr_vector()) << what;
  EXPECT_EQ(a.col_idx_vector(), b.col_idx_vector()) << what;
  EXPECT_EQ(a.cast(Type::fp64).values_vector<double>(), b.cast(Type::fp64).values_vector<double>())
      << what;
}

Vector list_vector(const std::vector<Index>& list, Type t) {
  std::vector<Index> idx(list.size());
  std::iota(idx.begin(), idx.end(), Index{0});
  if (t == Type::int32) {
    std::vector<std::int32_t> v(list.begin(), list.end());
    return Vector::from_entries<std::int32_t>(Index(list.size()), idx, v);
  }
  std::vector<std::int64_t> v(list.begin(), list.end());
  return Vector::from_entries<std::int64_t>(Index(list.size()), idx, v);
}

TEST(IndexVectors, ExtractWithVectorListsMatchesIndices) {
  Context ctx(Backend::cpu);
  const Matrix A = random_matrix(30, 25, 0.25, Type::fp64, 9);
  const std::vector<Index> rl = {3, 0, 29, 3, 17, 8, 8};             // repeats, unsorted
  const std::vector<Index> cl = {24, 1, 1, 0, 7, 13, 12, 11, 2, 2};  // repeats, unsorted
  const Matrix M = random_mask(7, 10, 0.5, Type::boolean, 11);
  for (Type lt : {Type::int32, Type::int64})
    for (bool ta : {false, true})
      for (int which = 0; which < 4; ++which) {
        const bool use_r = which & 1, use_c = which & 2;
        const Index ar = ta ? A.ncols() : A.nrows(), ac = ta ? A.nrows() : A.ncols();
        std::vector<Index> r = rl, c = cl;
        for (Index& x : r) x %= ar;
        for (Index& x : c) x %= ac;
        const Vector rv = list_vector(r, lt), cv = list_vector(c, lt);
        Indices ri = use_r ? Indices{r, false} : Indices::all();
        Indices ci = use_c ? Indices{c, false} : Indices::all();
        const Index nr = use_r ? Index(r.size()) : ar, nc = use_c ? Index(c.size()) : ac;
        Descriptor d;
        d.transpose_a = ta;
        const std::string what = std::string(type_name(lt)) + (ta ? " A'" : " A") +
                                 (use_r ? " rows" : "") + (use_c ? " cols" : "");
        Matrix want(nr, nc), got(nr, nc);
        extract(want, nullptr, no_accum, A, ri, ci, d, ctx);
        extract(got, nullptr, no_accum, A, use_r ? &rv : nullptr, use_c ? &cv : nullptr, d, ctx);
        expect_same(got, want, what);
        if (nr == 7 && nc == 10) {  // with a mask and an accumulator into a non-empty C
          const Matrix C0 = random_matrix(7, 10, 0.3, Type::fp64, 13);
          Matrix w = C0, g = C0;
          extract(w, &M, BinaryOpCode::plus, A, ri, ci, d, ctx);
          extract(g, &M, BinaryOpCode::plus, A, &rv, &cv, d, ctx);
          expect_same(g, w, what + " masked, accumulated");
        }
      }
}

TEST(IndexVectors, ExtractWithVectorListsRejectsBadLists) {
  Context ctx(Backend::cpu);
  const Matrix A = random_matrix(5, 6, 0.5, Type::fp64, 1);
  Matrix C(2, 6);
  const Vector out_of_range = list_vector({1, 5}, Type::int64);
  const Vector negative = list_vector({-1, 2}, Type::int32);
  const Vector ok = list_vector({1, 4}, Type::int64);
  const Vector floats = Vector::from_entries<double>(2, {0, 1}, {1.0, 2.0});
  EXPECT_THROW(extract(C, nullptr, no_accum, A, &out_of_range, nullptr, {}, ctx), InvalidIndex);
  EXPECT_THROW(extract(C, nullptr, no_accum, A, &negative, nullptr, {}, ctx), InvalidIndex);
  EXPECT_THROW(extract(C, nullptr, no_accum, A, &floats, nullptr, {}, ctx), InvalidValue);
  Matrix wrong(3, 6);
  EXPECT_THROW(extract(wrong, nullptr, no_accum, A, &ok, nullptr, {}, ctx), DimensionMismatch);
  EXPECT_NO_THROW(extract(C, nullptr, no_accum, A, &ok, nullptr, {}, ctx));
}

}  // namespace
}  // namespace ringblas::test
