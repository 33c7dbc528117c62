// GPU tests of mxm on the spgemm_dot and spgemm_dot_hash kernels (masked dot products,
// Descriptor.variant forced; every test runs both variants): every manifest semiring x
// value/structural mask x accumulator x replace x transposes, on random, empty-row, full-row,
// diagonal and empty operands, against the cpu backend (Backend::verify) with the device pool
// poisoned first; rows of A past the hash kernels' warp table, block table and block-table limit
// (binary-search fallback), rows of many mask entries shared by several blocks; the
// triangle-counting products C<L> = L +.pair Uᵀ and L +.pair Lᵀ on a random graph with hubs,
// automatic dispatch choosing a masked dot variant, the work measured on the data that orders the
// two variants; and the problems they must refuse (no mask, complemented mask).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "backend/cuda/spgemm_dot/spgemm_dot.hpp"
#include "ringblas/ringblas.hpp"
#include "ringblas_generated/cuda_manifest/spgemm_dot.hpp"
#include "support/gpu_fixture.hpp"
#include "support/op_cases.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

std::vector<Semiring> dot_semirings() {
  return cuda::manifest::semirings<cuda::manifest::spgemm_dot>();
}

Accum accum_for(const Semiring& s) {
  if (s.type == Type::boolean) return BinaryOpCode::lor;
  return s.add == MonoidCode::min ? Accum(BinaryOpCode::min) : Accum(BinaryOpCode::plus);
}

constexpr Variant kDotVariants[] = {Variant::spgemm_dot, Variant::spgemm_dot_hash};

/// mxm with `v` forced under Backend::verify (cpu and cuda compared entry by entry); "" when
/// they agree.
std::string verify_dot(Variant v, const Matrix* M, Accum accum, const Semiring& s, const Matrix& A,
                       const Matrix& B, Descriptor d, Matrix C) {
  d.variant = v;
  Context ctx(Backend::verify);
  try {
    mxm(C, M, accum, s, A, B, d, ctx);
  } catch (const std::exception& e) {
    return std::string(variant_name(v)) + ", " + s.name() + ": " + e.what();
  }
  return "";
}

/// C<M> = A ⊕.⊗ Btᵀ (structural mask, int64 plus_times and plus_pair) on every dot variant
/// agrees with the cpu.
void expect_variants_agree(const Matrix& M, const Matrix& A, const Matrix& Bt) {
  for (const char* name : {"plus_times", "plus_pair"})
    for (Variant v : kDotVariants)
      EXPECT_EQ(verify_dot(v, &M, no_accum, semiring(name, Type::int64), A, Bt,
                           make_desc(MaskMode::structure, false, false, true),
                           Matrix(M.nrows(), M.ncols(), Type::int64)),
                "");
}

using SpgemmDot = GpuTest;

TEST_F(SpgemmDot, ManifestSemiringsMasksAccumReplaceTransposes) {
  Context ctx(Backend::cuda);
  poison_device_pool(std::size_t(64) << 20, ctx);
  std::uint64_t seed = 700;
  const Index m = 47, k = 61, n = 38;
  for (const Semiring& s : dot_semirings())
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        const Matrix A =
            ta ? random_matrix(k, m, 0.15, s.type, ++seed, Pattern::dense_row, ValueKind::integral)
               : random_matrix(m, k, 0.15, s.type, ++seed, Pattern::dense_row, ValueKind::integral);
        const Matrix B =
            tb ? random_matrix(n, k, 0.2, s.type, ++seed, Pattern::empty_rows, ValueKind::integral)
               : random_matrix(k, n, 0.2, s.type, ++seed, Pattern::empty_rows, ValueKind::integral);
        const Matrix M = random_mask(m, n, 0.3, Type::int32, ++seed);
        const Matrix C0 =
            random_matrix(m, n, 0.2, s.type, ++seed, Pattern::random, ValueKind::integral);
        for (Variant v : kDotVariants)
          for (MaskMode mm : {MaskMode::value, MaskMode::structure})
            for (bool replace : {false, true})
              for (bool acc : {false, true}) {
                EXPECT_EQ(verify_dot(v, &M, acc ? accum_for(s) : no_accum, s, A, B,
                                     make_desc(mm, replace, ta, tb), C0),
                          "")
                    << mask_mode_name(mm) << (replace ? ", replace" : "") << (acc ? ", accum" : "")
                    << (ta ? ", A'" : "") << (tb ? ", B'" : "");
              }
      }
}

TEST_F(SpgemmDot, DegenerateOperands) {
  const Semiring s = semiring("plus_times", Type::fp64);
  std::uint64_t seed = 900;
  const Index m = 33, k = 29, n = 31;
  for (Pattern pa : {Pattern::empty, Pattern::full, Pattern::diagonal, Pattern::empty_rows})
    for (Pattern pm : {Pattern::empty, Pattern::full, Pattern::diagonal, Pattern::empty_rows}) {
      const Matrix A = random_matrix(m, k, 0.3, Type::fp64, ++seed, pa, ValueKind::integral);
      const Matrix B =
          random_matrix(n, k, 0.3, Type::fp64, ++seed, Pattern::dense_row, ValueKind::integral);
      const Matrix M = random_matrix(m, n, 0.3, Type::boolean, ++seed, pm);
      for (Variant v : kDotVariants)
        EXPECT_EQ(
            verify_dot(v, &M, no_accum, s, A, B, make_desc(MaskMode::structure, false, false, true),
                       Matrix(m, n, Type::fp64)),
            "")
            << "A " << pattern_name(pa) << ", mask " << pattern_name(pm);
    }
  // Zero-sized shapes.
  for (Index z : {Index{0}, Index{1}}) {
    const Matrix A = random_matrix(z, 5, 0.5, Type::fp64, ++seed);
    const Matrix B = random_matrix(z, 5, 0.5, Type::fp64, ++seed);
    const Matrix M = random_matrix(z, z, 1.0, Type::boolean, ++seed, Pattern::full);
    for (Variant v : kDotVariants)
      EXPECT_EQ(
          verify_dot(v, &M, no_accum, s, A, B, make_desc(MaskMode::structure, false, false, true),
                     Matrix(z, z, Type::fp64)),
          "")
          << z << " x " << z;
  }
}

TEST_F(SpgemmDot, HashTablesOfEverySize) {
  // Rows of A of 512 (a warp's table's limit), 513 and 600 (block kernel), 3000, 4096 (the block
  // table's limit), 4097 and 6000 entries (past it: binary search), each with many mask entries
  // whose rows of Bᵀ are short and long, values read (plus_times) and not (plus_pair).
  const Index m = 12, k = 9000, n = 300;
  const std::vector<Index> row_len = {20, 600, 0, 3000, 4096, 6000, 1, 512, 513, 20, 4097, 64};
  std::vector<Index> rows, cols;
  std::vector<std::int64_t> vals;
  std::uint64_t h = 12345;
  auto next = [&h] {
    h ^= h << 13, h ^= h >> 7, h ^= h << 17;
    return h;
  };
  // Exactly len columns: c -> (7919 c + offset) mod k is a bijection (7919 is prime to k).
  auto in_row = [k](Index c, Index offset, Index len) { return (7919 * c + offset) % k < len; };
  for (Index i = 0; i < m; ++i)
    for (Index c = 0; c < k; ++c)
      if (in_row(c, 131 * i, row_len[std::size_t(i)]))
        rows.push_back(i), cols.push_back(c), vals.push_back(std::int64_t(next() % 7) - 3);
  const Matrix A = Matrix::from_triplets<std::int64_t>(m, k, rows, cols, vals, Dup::first);
  rows.clear(), cols.clear(), vals.clear();
  for (Index j = 0; j < n; ++j) {
    const Index len = j % 3 == 0 ? 4000 : j % 3 == 1 ? 40 : 400;
    for (Index c = 0; c < k; ++c)
      if (in_row(c, 17 * j + 5, len))
        rows.push_back(j), cols.push_back(c), vals.push_back(std::int64_t(next() % 5) - 2);
  }
  const Matrix Bt = Matrix::from_triplets<std::int64_t>(n, k, rows, cols, vals, Dup::first);
  const Matrix M = random_mask(m, n, 0.6, Type::int32, 77);
  expect_variants_agree(M, A, Bt);
}

TEST_F(SpgemmDot, RowsWithManyMaskEntriesShareBlocks) {
  // Mask rows of 6000 (short row of A, past a warp's mask limit), 3000 and 2500 entries (long
  // rows of A: several blocks per row, with and without a table) and 10 entries.
  const Index m = 4, k = 7000, n = 6000;
  const std::vector<Index> a_len = {100, 700, 5000, 30}, m_len = {6000, 3000, 2500, 10};
  auto in_row = [](Index c, Index offset, Index len, Index size) {
    return (7919 * c + offset) % size < len;
  };
  std::vector<Index> rows, cols;
  std::vector<std::int64_t> vals;
  for (Index i = 0; i < m; ++i)
    for (Index c = 0; c < k; ++c)
      if (in_row(c, 31 * i, a_len[std::size_t(i)], k))
        rows.push_back(i), cols.push_back(c), vals.push_back(std::int64_t((c + i) % 5) - 2);
  const Matrix A = Matrix::from_triplets<std::int64_t>(m, k, rows, cols, vals, Dup::first);
  rows.clear(), cols.clear(), vals.clear();
  for (Index j = 0; j < n; ++j)
    for (Index c = 0; c < k; ++c)
      if (in_row(c, 13 * j + 1, 25 + j % 50, k))
        rows.push_back(j), cols.push_back(c), vals.push_back(std::int64_t((c + j) % 3) - 1);
  const Matrix Bt = Matrix::from_triplets<std::int64_t>(n, k, rows, cols, vals, Dup::first);
  rows.clear(), cols.clear();
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < n; ++j)
      if (in_row(j, 7 * i, m_len[std::size_t(i)], n)) rows.push_back(i), cols.push_back(j);
  const Matrix M = Matrix::from_triplets<bool>(m, n, rows, cols,
                                               std::vector<bool>(rows.size(), true), Dup::first);
  expect_variants_agree(M, A, Bt);
}

/// An undirected graph with hubs: random edges plus vertices 5 and 1700 adjacent to every other
/// even vertex (int32 values, n = 3000).
Matrix skewed_graph(Index n) {
  const Matrix R = random_matrix(n, n, 6.0 / double(n), Type::boolean, 42);
  std::vector<Index> rows, cols;
  const std::vector<Index> rp = R.row_ptr_vector(), ci = R.col_idx_vector();
  for (Index i = 0; i < n; ++i)
    for (Index p = rp[i]; p < rp[i + 1]; ++p) {
      rows.push_back(i), cols.push_back(ci[p]);
      rows.push_back(ci[p]), cols.push_back(i);
    }
  for (Index h : {Index{5}, Index{1700}})
    for (Index v = 0; v < n; v += 2)
      rows.push_back(h), cols.push_back(v), rows.push_back(v), cols.push_back(h);
  return Matrix::from_triplets<std::int32_t>(n, n, rows, cols,
                                             std::vector<std::int32_t>(rows.size(), 1), Dup::first);
}

TEST_F(SpgemmDot, TriangleProductOnSkewedGraphAutomaticChoosesDot) {
  const Index n = 3000;
  const Matrix S = skewed_graph(n);
  Context cpu(Backend::cpu);
  Matrix L(n, n, Type::boolean), U(n, n, Type::boolean);
  select(L, nullptr, no_accum, SelectOpCode::tril, Scalar(Index{-1}), S, {}, cpu);
  select(U, nullptr, no_accum, SelectOpCode::triu, Scalar(Index{1}), S, {}, cpu);
  const Semiring pp = semiring("plus_pair", Type::int64);
  Descriptor d = make_desc(MaskMode::structure, false, false, true);
  const Descriptor plain = make_desc(MaskMode::structure, false, false, false);
  for (Variant v : kDotVariants) {
    // sandia_lut's form, sandia_llt's (L +.pair Lᵀ), sandia_ll's (B not transposed: the
    // launcher transposes it) and Cohen's (mask S).
    EXPECT_EQ(verify_dot(v, &L, no_accum, pp, L, U, d, Matrix(n, n, Type::int64)), "");
    EXPECT_EQ(verify_dot(v, &L, no_accum, pp, L, L, d, Matrix(n, n, Type::int64)), "");
    EXPECT_EQ(verify_dot(v, &L, no_accum, pp, L, L, plain, Matrix(n, n, Type::int64)), "");
    EXPECT_EQ(verify_dot(v, &S, no_accum, pp, L, U, plain, Matrix(n, n, Type::int64)), "");
  }
  // automatic picks a masked dot variant for the masked product and agrees with the cpu.
  std::ostringstream trace;
  Context ctx(Backend::verify);
  ctx.trace = true;
  ctx.trace_out = &trace;
  Matrix C(n, n, Type::int64);
  mxm(C, &L, no_accum, pp, L, U, d, ctx);
  EXPECT_NE(trace.str().find("mxm: spgemm_dot"), std::string::npos) << trace.str();
}

TEST_F(SpgemmDot, MeasuredWorkOrdersTheTwoVariants) {
  // C<L> = L +.pair Lᵀ on the hub graph without a degree order: the work measured on the device
  // is the sums over the mask's entries computed here; the hubs' long rows, met by many entries,
  // make the hash variant's probes outweigh the dot variant's searches, so the measured cost
  // orders spgemm_dot first where the size-only model (no context) orders the hash one first.
  const Index n = 3000;
  const Matrix S = skewed_graph(n);
  Context cpu(Backend::cpu);
  Matrix L(n, n, Type::boolean);
  select(L, nullptr, no_accum, SelectOpCode::tril, Scalar(Index{-1}), S, {}, cpu);
  Context ctx(Backend::cuda);
  const Matrix Ld = L.with_index_type(IndexType::i32).to(Location::device, ctx);
  const Descriptor d = make_desc(MaskMode::structure, false, false, true);
  const auto w = cuda::spgemm_dot::measured_entry_work(&Ld, Ld, Ld, d, ctx);
  ASSERT_TRUE(w.has_value());
  const std::vector<Index> rp = L.row_ptr_vector(), ci = L.col_idx_vector();
  double dot = 0, hash = 0;
  for (Index i = 0; i < n; ++i)
    for (Index p = rp[i]; p < rp[i + 1]; ++p) {
      const Index j = ci[p], a = rp[i + 1] - rp[i], b = rp[j + 1] - rp[j];
      dot += double(std::min(a, b)) * std::log2(double(std::max(a, b)) + 1.0);
      hash += double(b);
    }
  EXPECT_NEAR(w->dot, dot, 1e-9 * dot);
  EXPECT_EQ(w->hash, hash);
  // The skew the averages miss: the size-only model counts nnz(L) · nnz(L) / n probes (146K
  // here, against 647K met).
  EXPECT_GT(w->hash, 3.0 * double(L.nnz()) * double(L.nnz()) / double(n));
  // Host operands and a product without Bᵀ given are not measured (the model stands in).
  EXPECT_FALSE(cuda::spgemm_dot::measured_entry_work(&L, L, L, d, ctx).has_value());
  EXPECT_FALSE(cuda::spgemm_dot::measured_entry_work(
                   &Ld, Ld, Ld, make_desc(MaskMode::structure, false, false, false), ctx)
                   .has_value());
  const Semiring pp = semiring("plus_pair", Type::int64);
  using cuda::spgemm_dot::variant_cost;
  EXPECT_LT(variant_cost(pp, &Ld, Ld, Ld, d, true, nullptr),
            variant_cost(pp, &Ld, Ld, Ld, d, false, nullptr));
  const double dot_cost = variant_cost(pp, &Ld, Ld, Ld, d, false, &ctx, 0.0);
  const double hash_cost = variant_cost(pp, &Ld, Ld, Ld, d, true, &ctx, 0.0);
  EXPECT_LT(dot_cost, hash_cost);
  // The better variant keeps the lower model cost (its place against the row-wise product).
  EXPECT_DOUBLE_EQ(dot_cost, std::min(cuda::spgemm_dot::cost(&Ld, Ld, Ld, d),
                                      cuda::spgemm_dot::hash_cost(&Ld, Ld, Ld, d)));
}

TEST_F(SpgemmDot, RefusesWhatItCannotCompute) {
  const Semiring s = semiring("plus_times", Type::fp64);
  const Matrix A = random_matrix(10, 10, 0.3, Type::fp64, 1);
  const Matrix M = random_mask(10, 10, 0.3, Type::int32, 2);
  Context ctx(Backend::cuda);
  for (Variant v : kDotVariants) {
    Descriptor d;
    d.variant = v;
    Matrix C(10, 10);
    EXPECT_THROW(mxm(C, nullptr, no_accum, s, A, A, d, ctx), NotImplemented);
    d.mask_complement = true;
    EXPECT_THROW(mxm(C, &M, no_accum, s, A, A, d, ctx), NotImplemented);
    d.mask_complement = false;
    EXPECT_THROW(mxm(C, &M, no_accum, semiring("max_min", Type::fp64), A, A, d, ctx),
                 NotImplemented);
  }
  // Without a mask automatic keeps the row-wise product.
  std::ostringstream trace;
  Context t(Backend::cuda);
  t.trace = true;
  t.trace_out = &trace;
  Matrix C2(10, 10);
  mxm(C2, nullptr, no_accum, s, A, A, {}, t);
  EXPECT_EQ(trace.str().find("spgemm_dot ("), std::string::npos) << trace.str();
}

}  // namespace
}  // namespace ringblas::test
