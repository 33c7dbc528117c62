// Smoke tests of the cpu (SuiteSparse:GraphBLAS) executor: each entry point through the public
// API with ctx.backend = cpu on small cases whose answers are worked out by hand in comments.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ringblas/ringblas.hpp"

namespace {

using namespace ringblas;

constexpr double X = std::numeric_limits<double>::quiet_NaN();  // "no entry" in a grid
using Grid = std::vector<std::vector<double>>;

Matrix from_grid(const Grid& g, Type t = Type::fp64, IndexType it = IndexType::i64) {
  std::vector<Index> r, c;
  std::vector<double> v;
  for (std::size_t i = 0; i < g.size(); ++i)
    for (std::size_t j = 0; j < g[i].size(); ++j)
      if (!std::isnan(g[i][j])) {
        r.push_back(Index(i));
        c.push_back(Index(j));
        v.push_back(g[i][j]);
      }
  const Index ncols = g.empty() ? 0 : Index(g[0].size());
  return Matrix::from_triplets(Index(g.size()), ncols, r, c, v, Dup::error, it).cast(t);
}

Vector from_list(const std::vector<double>& g, Type t = Type::fp64) {
  std::vector<Index> idx;
  std::vector<double> v;
  for (std::size_t i = 0; i < g.size(); ++i)
    if (!std::isnan(g[i])) {
      idx.push_back(Index(i));
      v.push_back(g[i]);
    }
  return Vector::from_entries(Index(g.size()), idx, v).cast(t);
}

void expect_grid(const Matrix& m, const Grid& want) {
  m.check_invariants();
  ASSERT_EQ(m.nrows(), Index(want.size()));
  Grid got(want.size(), std::vector<double>(std::size_t(m.ncols()), X));
  const auto rp = m.row_ptr_vector();
  const auto ci = m.col_idx_vector();
  const auto val = m.values_vector<double>();
  for (Index i = 0; i < m.nrows(); ++i)
    for (Index p = rp[std::size_t(i)]; p < rp[std::size_t(i) + 1]; ++p)
      got[std::size_t(i)][std::size_t(ci[std::size_t(p)])] = val[std::size_t(p)];
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].size(), want[i].size());
    for (std::size_t j = 0; j < want[i].size(); ++j) {
      if (std::isnan(want[i][j]))
        EXPECT_TRUE(std::isnan(got[i][j])) << "unexpected entry at (" << i << "," << j << ")";
      else
        EXPECT_EQ(got[i][j], want[i][j]) << "at (" << i << "," << j << ")";
    }
  }
}

void expect_list(const Vector& w, const std::vector<double>& want) {
  w.check_invariants();
  ASSERT_EQ(w.size(), Index(want.size()));
  std::vector<double> got(want.size(), X);
  const auto idx = w.indices_vector();
  const auto val = w.values_vector<double>();
  for (std::size_t k = 0; k < idx.size(); ++k) got[std::size_t(idx[k])] = val[k];
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << "unexpected entry at " << i;
    else
      EXPECT_EQ(got[i], want[i]) << "at " << i;
  }
}

// A = [1 2 .; . 3 .; 4 . 5], B = [1 . 2; . 1 .; 3 . .]
// A*B (plus_times): row 0 = [1, 2, 2]; row 1 = [., 3, .]; row 2 = [4+15, ., 8].
const Grid kA = {{1, 2, X}, {X, 3, X}, {4, X, 5}};
const Grid kB = {{1, X, 2}, {X, 1, X}, {3, X, X}};
const Grid kAB = {{1, 2, 2}, {X, 3, X}, {19, X, 8}};

class CpuSmoke : public ::testing::Test {
 protected:
  Context ctx{Backend::cpu};
};

TEST_F(CpuSmoke, MxmPlusTimes) {
  Matrix C(3, 3, Type::fp64, IndexType::i32);
  mxm(C, nullptr, no_accum, semiring("plus_times"), from_grid(kA), from_grid(kB), {}, ctx);
  EXPECT_EQ(C.index_type(), IndexType::i32);
  expect_grid(C, kAB);
}

TEST_F(CpuSmoke, MxmComplementedStructuralMask) {
  // Mask = diagonal (values 0, structural): complemented, only off-diagonal entries are written.
  Matrix M = from_grid({{0, X, X}, {X, 0, X}, {X, X, 0}});
  Matrix C(3, 3);
  Descriptor d;
  d.mask_complement = true;
  d.mask_structure = true;
  mxm(C, &M, no_accum, semiring("plus_times"), from_grid(kA), from_grid(kB), d, ctx);
  expect_grid(C, {{X, 2, 2}, {X, X, X}, {19, X, X}});
}

TEST_F(CpuSmoke, MxmValueMaskIgnoresZeros) {
  // Value mask: (0,0)=1 admits, (2,0)=0 does not.
  Matrix M = from_grid({{1, X, X}, {X, X, X}, {0, X, X}});
  Matrix C(3, 3);
  mxm(C, &M, no_accum, semiring("plus_times"), from_grid(kA), from_grid(kB), {}, ctx);
  expect_grid(C, {{1, X, X}, {X, X, X}, {X, X, X}});
}

TEST_F(CpuSmoke, MxmAccumulate) {
  // C = [10 . .; 7 . .; . . .] plus-accumulated with A*B: (0,0) = 11, (1,0) = 7 kept.
  Matrix C = from_grid({{10, X, X}, {7, X, X}, {X, X, X}});
  mxm(C, nullptr, BinaryOpCode::plus, semiring("plus_times"), from_grid(kA), from_grid(kB), {},
      ctx);
  expect_grid(C, {{11, 2, 2}, {7, 3, X}, {19, X, 8}});
}

TEST_F(CpuSmoke, MxmReplaceClearsOutsideMask) {
  // Mask = row 0. Without replace, C(1,0) = 7 stays; with replace it goes.
  Matrix M = from_grid({{1, 1, 1}, {X, X, X}, {X, X, X}});
  const Grid c0 = {{10, X, X}, {7, X, X}, {X, X, X}};
  Matrix keep = from_grid(c0), cleared = from_grid(c0);
  mxm(keep, &M, no_accum, semiring("plus_times"), from_grid(kA), from_grid(kB), {}, ctx);
  expect_grid(keep, {{1, 2, 2}, {7, X, X}, {X, X, X}});
  Descriptor d;
  d.replace = true;
  mxm(cleared, &M, no_accum, semiring("plus_times"), from_grid(kA), from_grid(kB), d, ctx);
  expect_grid(cleared, {{1, 2, 2}, {X, X, X}, {X, X, X}});
}

TEST_F(CpuSmoke, MxmTransposeAndMinPlus) {
  // Aᵀ = [1 . 4; 2 3 .; . . 5]; min_plus Aᵀ B: (0,0) = min(1+1, 4+3) = 2, (0,2) = 1+2 = 3,
  // (1,0) = 2+1 = 3, (1,1) = 3+1 = 4, (1,2) = 2+2 = 4; row 2 uses A(2,2)=5 with B(2,0)=3 -> 8.
  Descriptor d;
  d.transpose_a = true;
  Matrix C(3, 3);
  mxm(C, nullptr, no_accum, semiring("min_plus"), from_grid(kA), from_grid(kB), d, ctx);
  expect_grid(C, {{2, X, 3}, {3, 4, 4}, {8, X, X}});
}

TEST_F(CpuSmoke, MxmPositionalAndBool) {
  // min_secondi: C(i,j) = min over k with A(i,k), B(k,j) of k.
  Matrix C(3, 3, Type::int64);
  mxm(C, nullptr, no_accum, semiring("min_secondi", Type::int64), from_grid(kA), from_grid(kB), {},
      ctx);
  expect_grid(C, {{0, 1, 0}, {X, 1, X}, {0, X, 0}});
  // lor_land on bool gives the pattern of A*B.
  Matrix P(3, 3, Type::boolean);
  mxm(P, nullptr, no_accum, semiring("lor_land", Type::boolean), from_grid(kA, Type::boolean),
      from_grid(kB, Type::boolean), {}, ctx);
  expect_grid(P, {{1, 1, 1}, {X, 1, X}, {1, X, 1}});
}

struct Plus {
  double operator()(double a, double b) const { return a + b; }
};
struct AbsDiff {
  double operator()(double a, double b) const { return std::fabs(a - b); }
};

TEST_F(CpuSmoke, MxmUserSemiring) {
  // plus over |a - b|: row 0: |1-1| + |2-0|... only matching k: (0,0): k=0: |1-1| = 0,
  // (0,1): k=1: |2-1| = 1, (0,2): k=0: |1-2| = 1; (1,1): |3-1| = 2; (2,0): |4-1| + |5-3| = 5,
  // (2,2): |4-2| = 2.
  Semiring s = user_semiring<double>("plus_absdiff", Plus{}, AbsDiff{}, 0.0);
  Matrix C(3, 3);
  mxm(C, nullptr, no_accum, s, from_grid(kA), from_grid(kB), {}, ctx);
  expect_grid(C, {{0, 1, 1}, {X, 2, X}, {5, X, 2}});
}

TEST_F(CpuSmoke, MxvVxm) {
  // A u with u = [1, ., 2]: w = [1, ., 4 + 10] ; u A = [1 + 8, 2, 10].
  Vector u = from_list({1, X, 2});
  Vector w(3);
  mxv(w, nullptr, no_accum, semiring("plus_times"), from_grid(kA), u, {}, ctx);
  expect_list(w, {1, X, 14});
  Vector y(3);
  vxm(y, nullptr, no_accum, semiring("plus_times"), u, from_grid(kA), {}, ctx);
  expect_list(y, {9, 2, 10});
}

TEST_F(CpuSmoke, DenseMxmFillsIdentity) {
  // min_plus with A row 1 = [., 3, .]: C(1,:) = 3 + B(1,:); an empty row of A gives +inf.
  Matrix A = from_grid({{1, X}, {X, X}});
  DenseMatrix B = DenseMatrix::from_values<double>(2, 2, {1, 2, 3, 4});
  DenseMatrix C(2, 2);
  mxm(C, semiring("min_plus"), A, B, {}, ctx);
  EXPECT_EQ(C.at<double>(0, 0), 2);
  EXPECT_EQ(C.at<double>(0, 1), 3);
  EXPECT_EQ(C.at<double>(1, 0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(C.at<double>(1, 1), std::numeric_limits<double>::infinity());
  // plus_times into column-major C: [1 .; . .] * B = [1 2; 0 0].
  DenseMatrix D(2, 2, Type::fp64, Layout::col_major);
  mxm(D, semiring("plus_times"), A, B, {}, ctx);
  EXPECT_EQ(D.layout(), Layout::col_major);
  EXPECT_EQ(D.at<double>(0, 1), 2);
  EXPECT_EQ(D.at<double>(1, 0), 0);
}

TEST_F(CpuSmoke, DenseMxmEpilogueAndBatched) {
  // [1 .; . -2] * [1 2; 3 4] = [1 2; -6 -8]; + bias [10, -5] = [11 -3; 4 -13]; relu, clamp 5.
  Matrix A = from_grid({{1, X}, {X, -2}});
  DenseMatrix B = DenseMatrix::from_values<double>(2, 2, {1, 2, 3, 4});
  DenseVector bias = DenseVector::from_values<double>({10, -5});
  DenseMatrix C(2, 2);
  mxm(C, semiring("plus_times"), A, B, Epilogue(EpilogueKind::bias_relu, &bias, 5.0), {}, ctx);
  EXPECT_EQ(C.at<double>(0, 0), 5);
  EXPECT_EQ(C.at<double>(0, 1), 0);
  EXPECT_EQ(C.at<double>(1, 0), 4);
  EXPECT_EQ(C.at<double>(1, 1), 0);
  // Batch: [2] * [3 4] = [6 8]; [. 1; 1 .] * [1 2; 3 4] = [3 4; 1 2].
  std::vector<Matrix> As = {from_grid({{2}}), from_grid({{X, 1}, {1, X}})};
  std::vector<DenseMatrix> Bs = {DenseMatrix::from_values<double>(1, 2, {3, 4}), B};
  std::vector<DenseMatrix> Cs = {DenseMatrix(1, 2), DenseMatrix(2, 2)};
  mxm_batched(Cs, semiring("plus_times"), As, Bs, {}, ctx);
  EXPECT_EQ(Cs[0].at<double>(0, 0), 6);
  EXPECT_EQ(Cs[0].at<double>(0, 1), 8);
  EXPECT_EQ(Cs[1].at<double>(0, 0), 3);
  EXPECT_EQ(Cs[1].at<double>(0, 1), 4);
  EXPECT_EQ(Cs[1].at<double>(1, 0), 1);
  EXPECT_EQ(Cs[1].at<double>(1, 1), 2);
}

TEST_F(CpuSmoke, EwiseAddMult) {
  // A + B on the union; A .* B on the intersection ((0,0) and (1,1) only).
  Matrix C(3, 3);
  ewise_add(C, nullptr, no_accum, BinaryOpCode::plus, from_grid(kA), from_grid(kB), {}, ctx);
  expect_grid(C, {{2, 2, 2}, {X, 4, X}, {7, X, 5}});
  ewise_mult(C, nullptr, no_accum, BinaryOpCode::minus, from_grid(kA), from_grid(kB), {}, ctx);
  expect_grid(C, {{0, X, X}, {X, 2, X}, {1, X, X}});
  Vector w(3);
  ewise_add(w, nullptr, no_accum, BinaryOpCode::max, from_list({1, X, 5}), from_list({3, 2, X}), {},
            ctx);
  expect_list(w, {3, 2, 5});
  ewise_mult(w, nullptr, no_accum, BinaryOpCode::times, from_list({1, X, 5}), from_list({3, 2, X}),
             {}, ctx);
  expect_list(w, {3, X, X});
}

TEST_F(CpuSmoke, ApplyVariants) {
  Matrix C(3, 3);
  apply(C, nullptr, no_accum, UnaryOpCode::ainv, from_grid(kA), {}, ctx);
  expect_grid(C, {{-1, -2, X}, {X, -3, X}, {-4, X, -5}});
  // 10 - a (bound first operand).
  apply(C, nullptr, no_accum, BinaryOpCode::minus, BindSide::first, Scalar(10.0), from_grid(kA), {},
        ctx);
  expect_grid(C, {{9, 8, X}, {X, 7, X}, {6, X, 5}});
  // a / 2 (bound second operand).
  apply(C, nullptr, no_accum, BinaryOpCode::div, BindSide::second, Scalar(std::int32_t(2)),
        from_grid(kA), {}, ctx);
  expect_grid(C, {{0.5, 1, X}, {X, 1.5, X}, {2, X, 2.5}});
  // j - i + 1 over A's pattern.
  Matrix D(3, 3, Type::int64);
  apply(D, nullptr, no_accum, IndexUnaryOpCode::diagindex, 1, from_grid(kA), {}, ctx);
  expect_grid(D, {{1, 2, X}, {X, 1, X}, {-1, X, 1}});
  Vector w(3);
  apply(w, nullptr, no_accum, UnaryOpCode::sqrt, from_list({4, X, 9}), {}, ctx);
  expect_list(w, {2, X, 3});
}

TEST_F(CpuSmoke, SelectTrilTriuValue) {
  const Grid full = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  Matrix C(3, 3);
  select(C, nullptr, no_accum, SelectOpCode::tril, Scalar(std::int64_t(0)), from_grid(full), {},
         ctx);
  expect_grid(C, {{1, X, X}, {4, 5, X}, {7, 8, 9}});
  select(C, nullptr, no_accum, SelectOpCode::triu, Scalar(std::int64_t(1)), from_grid(full), {},
         ctx);
  expect_grid(C, {{X, 2, 3}, {X, X, 6}, {X, X, X}});
  select(C, nullptr, no_accum, SelectOpCode::value_gt, Scalar(5.5), from_grid(full), {}, ctx);
  expect_grid(C, {{X, X, X}, {X, X, 6}, {7, 8, 9}});
}

TEST_F(CpuSmoke, SelectTopK) {
  // Row top-2 with a tie in row 1 (both 4s; the smaller column wins).
  const Grid g = {{5, 1, 3}, {4, 4, 4}, {X, 2, X}};
  Matrix C(3, 3);
  select(C, nullptr, no_accum, SelectOpCode::row_topk, Scalar(std::int64_t(2)), from_grid(g), {},
         ctx);
  expect_grid(C, {{5, X, 3}, {4, 4, X}, {X, 2, X}});
  // Column top-1: col 0 -> 5 (row 0), col 1 -> 4 (row 1), col 2 -> 4 (row 1).
  select(C, nullptr, no_accum, SelectOpCode::col_topk, Scalar(std::int64_t(1)), from_grid(g), {},
         ctx);
  expect_grid(C, {{5, X, X}, {X, 4, 4}, {X, X, X}});
  // With an accumulator: C keeps (2,2) = 1 and adds the selected entries.
  Matrix D = from_grid({{1, X, X}, {X, X, X}, {X, X, 1}});
  select(D, nullptr, BinaryOpCode::plus, SelectOpCode::col_topk, Scalar(std::int64_t(1)),
         from_grid(g), {}, ctx);
  expect_grid(D, {{6, X, X}, {X, 4, 4}, {X, X, 1}});
}

TEST_F(CpuSmoke, Reduce) {
  Vector w(3);
  reduce(w, nullptr, no_accum, MonoidCode::plus, from_grid(kA), ReduceDim::rows, {}, ctx);
  expect_list(w, {3, 3, 9});
  reduce(w, nullptr, no_accum, MonoidCode::max, from_grid(kA), ReduceDim::cols, {}, ctx);
  expect_list(w, {4, 3, 5});
  EXPECT_EQ(reduce(MonoidCode::plus, from_grid(kA), ctx).as<double>(), 15);
  EXPECT_EQ(reduce(MonoidCode::min, Matrix(2, 2), ctx).as<double>(),
            std::numeric_limits<double>::infinity());
  EXPECT_EQ(reduce(MonoidCode::times, from_list({2, X, 3}), ctx).as<double>(), 6);
}

TEST_F(CpuSmoke, Transpose) {
  Matrix C(3, 3);
  transpose(C, nullptr, no_accum, from_grid(kA), {}, ctx);
  expect_grid(C, {{1, X, 4}, {2, 3, X}, {X, X, 5}});
}

TEST_F(CpuSmoke, Kronecker) {
  // kron([1 2; . 3], [. 1; 1 .]) with times.
  Matrix C(4, 4);
  kronecker(C, nullptr, no_accum, BinaryOpCode::times, from_grid({{1, 2}, {X, 3}}),
            from_grid({{X, 1}, {1, X}}), {}, ctx);
  expect_grid(C, {{X, 1, X, 2}, {1, X, 2, X}, {X, X, X, 3}, {X, X, 3, X}});
}

TEST_F(CpuSmoke, ExtractAssign) {
  // A([2, 0], all) = [4 . 5; 1 2 .].
  Matrix C(2, 3);
  extract(C, nullptr, no_accum, from_grid(kA), Indices{{2, 0}}, Indices::all(), {}, ctx);
  expect_grid(C, {{4, X, 5}, {1, 2, X}});
  // C([0, 2], [1, 2]) = [7 .; . 8] into a copy of A: (0,1) = 7, (0,2) cleared (no entry in the
  // source), (2,1) cleared, (2,2) = 8; the rest of A is untouched.
  Matrix D = from_grid(kA);
  assign(D, nullptr, no_accum, from_grid({{7, X}, {X, 8}}), Indices{{0, 2}}, Indices{{1, 2}}, {},
         ctx);
  expect_grid(D, {{1, 7, X}, {X, 3, X}, {4, X, 8}});
}

// Regressions for SuiteSparse 7.4 behaviours the cpu backend works around.
TEST_F(CpuSmoke, EwiseAddPositionalCopiesLoneEntries) {
  // firsti applies only where both have an entry ((1,1) -> row 1); lone entries are copied.
  Matrix C(2, 2);
  ewise_add(C, nullptr, no_accum, BinaryOpCode::firsti, from_grid({{5, X}, {X, 6}}),
            from_grid({{X, X}, {1, 7}}), {}, ctx);
  expect_grid(C, {{5, X}, {1, 1}});
}

TEST_F(CpuSmoke, ApplyBindFirstTransposed) {
  // 10 - Aᵀ with Aᵀ = [1 .; 2 3].
  Descriptor d;
  d.transpose_a = true;
  Matrix C(2, 2);
  apply(C, nullptr, no_accum, BinaryOpCode::minus, BindSide::first, Scalar(10.0),
        from_grid({{1, 2}, {X, 3}}), d, ctx);
  expect_grid(C, {{9, X}, {8, 7}});
}

TEST_F(CpuSmoke, SelectBoolThunkCastToTrue) {
  // A 0.5 thunk becomes true at A's type: nothing is > true, only true is >= true.
  Matrix A = from_grid({{1, 0}}, Type::boolean);
  Matrix C(1, 2, Type::boolean);
  select(C, nullptr, no_accum, SelectOpCode::value_gt, Scalar(0.5), A, {}, ctx);
  expect_grid(C, {{X, X}});
  select(C, nullptr, no_accum, SelectOpCode::value_ge, Scalar(0.5), A, {}, ctx);
  expect_grid(C, {{1, X}});
}

TEST_F(CpuSmoke, EmptyOutputWithMaskAndAccum) {
  Matrix C(0, 0, Type::int32), M(0, 0, Type::boolean);
  mxm(C, &M, BinaryOpCode::plus, semiring("plus_times", Type::int32), Matrix(0, 0, Type::int32),
      Matrix(0, 0, Type::int32), {}, ctx);
  EXPECT_EQ(C.nnz(), 0);
  EXPECT_EQ(C.nrows(), 0);
}

TEST_F(CpuSmoke, ErrorsLeaveOutputUnchanged) {
  Matrix C = from_grid(kA, Type::int32);
  EXPECT_THROW(apply(C, nullptr, no_accum, UnaryOpCode::sqrt, from_grid(kB), {}, ctx),
               InvalidValue);
  expect_grid(C, kA);
  EXPECT_THROW(mxm(C, nullptr, BinaryOpCode::firsti, semiring("plus_times"), from_grid(kA),
                   from_grid(kB), {}, ctx),
               NotImplemented);
  expect_grid(C, kA);
  EXPECT_THROW(
      extract(C, nullptr, no_accum, from_grid(kA), Indices{{0, 1, 5}}, Indices::all(), {}, ctx),
      Error);
  expect_grid(C, kA);
}

}  // namespace
