// GPU tests of the operations with vector index lists (include/ringblas/index_vectors.hpp):
// sort_permutation and extract with device index lists, cuda against the cpu executor
// (Backend::verify) with the device pool poisoned first: every sortable type, ties, sparse and
// empty vectors, both orders; row and column lists with repeats, GrB_ALL, transposed A, mask
// and accumulator; the results left on the device; bool values refused by the cuda row.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "ringblas/index_vectors.hpp"
#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

using IndexVectorsGpu = GpuTest;

Vector on_device(const Vector& v, Context& ctx) { return v.to(Location::device, ctx); }

TEST_F(IndexVectorsGpu, SortPermutationAgreesWithCpu) {
  Context ctx(Backend::verify);
  poison_device_pool(std::size_t(16) << 20, ctx);
  std::uint64_t seed = 500;
  for (Type t : {Type::int32, Type::int64, Type::fp32, Type::fp64})
    for (double density : {0.0, 0.2, 1.0})
      for (Index n : {Index{1}, Index{1000}, Index{70000}})
        for (SortOrder o : {SortOrder::ascending, SortOrder::descending}) {
          const Vector u =
              on_device(random_vector(n, density, t, ++seed, ValueKind::integral), ctx);
          Vector p = on_device(Vector(n, Type::int64), ctx);
          EXPECT_NO_THROW(sort_permutation(p, u, o, ctx))
              << type_name(t) << " n " << n << " density " << density;
        }
  // Signed zeros sort as equal values (index order), as the cpu's comparison sort has them.
  const Vector z = on_device(
      Vector::from_entries<double>(6, {0, 1, 2, 3, 4, 5}, {0.0, -0.0, 1.5, -0.0, 0.0, -2.0}), ctx);
  Vector p = on_device(Vector(6, Type::int64), ctx);
  EXPECT_NO_THROW(sort_permutation(p, z, SortOrder::ascending, ctx));
}

TEST_F(IndexVectorsGpu, SortPermutationStaysOnTheDeviceAndRefusesBool) {
  Context ctx(Backend::cuda);
  const Vector u = on_device(Vector::dense<std::int64_t>({3, 1, 3, 7, 1, 0}), ctx);
  Vector p = on_device(Vector(6, Type::int64), ctx);
  sort_permutation(p, u, SortOrder::descending, ctx);
  EXPECT_EQ(p.location(), Location::device);
  EXPECT_EQ(p.to(Location::host, ctx).values_vector<std::int64_t>(),
            (std::vector<std::int64_t>{3, 0, 2, 1, 4, 5}));
  const Vector b = on_device(Vector::dense<bool>({true, false}), ctx);
  Vector pb = on_device(Vector(2, Type::int64), ctx);
  EXPECT_THROW(sort_permutation(pb, b, SortOrder::ascending, ctx), NotImplemented);
}

Vector list_vector(const std::vector<Index>& list, Type t, Context& ctx) {
  std::vector<Index> idx(list.size());
  std::iota(idx.begin(), idx.end(), Index{0});
  if (t == Type::int32)
    return on_device(
        Vector::from_entries<std::int32_t>(Index(list.size()), idx,
                                           std::vector<std::int32_t>(list.begin(), list.end())),
        ctx);
  return on_device(
      Vector::from_entries<std::int64_t>(Index(list.size()), idx,
                                         std::vector<std::int64_t>(list.begin(), list.end())),
      ctx);
}

TEST_F(IndexVectorsGpu, ExtractWithDeviceListsAgreesWithCpu) {
  Context ctx(Backend::verify);
  poison_device_pool(std::size_t(16) << 20, ctx);
  const Matrix A =
      random_matrix(300, 250, 0.05, Type::fp64, 21, Pattern::dense_row).to(Location::device, ctx);
  std::vector<Index> rl, cl;
  for (Index k = 0; k < 180; ++k) rl.push_back((k * 7919 + 13) % 250);  // repeats, unsorted
  for (Index k = 0; k < 120; ++k) cl.push_back((k * 104729 + 5) % 250);
  for (Type lt : {Type::int32, Type::int64})
    for (bool ta : {false, true})
      for (int which = 1; which < 4; ++which) {
        const bool use_r = which & 1, use_c = which & 2;
        const Vector rv = list_vector(rl, lt, ctx), cv = list_vector(cl, lt, ctx);
        const Index ar = ta ? A.ncols() : A.nrows(), ac = ta ? A.nrows() : A.ncols();
        const Index nr = use_r ? Index(rl.size()) : ar, nc = use_c ? Index(cl.size()) : ac;
        Descriptor d;
        d.transpose_a = ta;
        const std::string what = std::string(type_name(lt)) + (ta ? " A'" : " A") +
                                 (use_r ? " rows" : "") + (use_c ? " cols" : "");
        Matrix C(nr, nc);
        EXPECT_NO_THROW(
            extract(C, nullptr, no_accum, A, use_r ? &rv : nullptr, use_c ? &cv : nullptr, d, ctx))
            << what;
        if (use_r && use_c) {
          const Matrix M = random_mask(nr, nc, 0.4, Type::boolean, 31).to(Location::device, ctx);
          Matrix C0 = random_matrix(nr, nc, 0.2, Type::fp64, 33).to(Location::device, ctx);
          EXPECT_NO_THROW(extract(C0, &M, BinaryOpCode::plus, A, &rv, &cv, d, ctx))
              << what << ", masked, accumulated";
        }
      }
}

TEST_F(IndexVectorsGpu, SymmetricPermutationByTwoRowGathers) {
  // P A Pᵀ = P (P A)ᵀ for symmetric A, as triangle counting relabels its graph.
  Context gpu(Backend::cuda), cpu(Backend::cpu);
  const Matrix R = random_matrix(400, 400, 0.03, Type::fp64, 8, Pattern::dense_row);
  Matrix S(400, 400);
  Descriptor rt;
  rt.transpose_b = true;
  ewise_add(S, nullptr, no_accum, BinaryOpCode::plus, R, R, rt, cpu);
  std::vector<Index> perm(400);
  std::iota(perm.begin(), perm.end(), Index{0});
  for (Index k = 0; k < 400; ++k) std::swap(perm[k], perm[(k * 7 + 3) % 400]);
  Matrix want(400, 400);
  extract(want, nullptr, no_accum, S, Indices{perm, false}, Indices{perm, false}, {}, cpu);
  const Vector pv = list_vector(perm, Type::int64, gpu);
  const Matrix d = S.to(Location::device, gpu);
  Matrix PA(400, 400), got(400, 400);
  extract(PA, nullptr, no_accum, d, &pv, nullptr, {}, gpu);
  Descriptor t;
  t.transpose_a = true;
  extract(got, nullptr, no_accum, PA, &pv, nullptr, t, gpu);
  const Matrix h = got.to(Location::host, gpu);
  EXPECT_EQ(h.row_ptr_vector(), want.row_ptr_vector());
  EXPECT_EQ(h.col_idx_vector(), want.col_idx_vector());
  EXPECT_EQ(h.values_vector<double>(), want.values_vector<double>());
}

}  // namespace
}  // namespace ringblas::test
