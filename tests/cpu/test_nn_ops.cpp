// The dense nn operations (include/ringblas/nn.hpp) on the cpu executor against naive loops
// (tests/support/nn_reference.hpp), fp32 and fp64, and their argument checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "ringblas/error.hpp"
#include "ringblas/nn.hpp"
#include "support/nn_reference.hpp"

namespace ringblas::test {
namespace {

Context cpu_ctx() { return Context(Backend::cpu); }
double tol_for(Type t) { return t == Type::fp32 ? 2e-5 : 1e-12; }

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double tol,
                     const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t k = 0; k < got.size(); ++k)
    ASSERT_NEAR(got[k], want[k], tol * (1 + std::fabs(want[k]))) << what << " at " << k;
}

class NnOps : public testing::TestWithParam<Type> {};
INSTANTIATE_TEST_SUITE_P(Types, NnOps, testing::Values(Type::fp32, Type::fp64),
                         [](const auto& info) { return std::string(type_name(info.param)); });

TEST_P(NnOps, GemmEveryTransposeAlphaBetaAgainstNaiveLoops) {
  const Type t = GetParam();
  Context ctx = cpu_ctx();
  const Index m = 7, n = 5, k = 9;
  for (int tr = 0; tr < 4; ++tr)
    for (double beta : {0.0, 1.0, -0.5}) {
      const bool ta = tr & 1, tb = tr & 2;
      const DenseMatrix A =
          ta ? nn_ref::random_dense(k, m, t, 1 + tr) : nn_ref::random_dense(m, k, t, 1 + tr);
      const DenseMatrix B =
          tb ? nn_ref::random_dense(n, k, t, 11 + tr) : nn_ref::random_dense(k, n, t, 11 + tr);
      DenseMatrix C = nn_ref::random_dense(m, n, t, 21 + tr);
      if (beta == 0) {  // C's old values must not be read: NaN there may not show
        C = DenseMatrix::from_values(m, n, std::vector<double>(std::size_t(m * n), NAN));
        if (t == Type::fp32)
          C = DenseMatrix::from_values(m, n, std::vector<float>(std::size_t(m * n), NAN));
      }
      const std::vector<double> want = nn_ref::gemm(1.5, A, ta, B, tb, beta, C);
      Descriptor d;
      d.transpose_a = ta;
      d.transpose_b = tb;
      nn::gemm(C, 1.5, A, B, beta, d, ctx);
      expect_near_all(nn_ref::values(C), want, tol_for(t) * k,
                      "ta=" + std::to_string(ta) + " tb=" + std::to_string(tb) +
                          " beta=" + std::to_string(beta));
    }
}

TEST_P(NnOps, GemmEmptyInnerDimensionScalesC) {
  const Type t = GetParam();
  Context ctx = cpu_ctx();
  DenseMatrix C = nn_ref::random_dense(3, 4, t, 5);
  const std::vector<double> before = nn_ref::values(C);
  nn::gemm(C, 1.0, DenseMatrix(3, 0, t), DenseMatrix(0, 4, t), 2.0, {}, ctx);
  const std::vector<double> after = nn_ref::values(C);
  for (std::size_t e = 0; e < before.size(); ++e) EXPECT_NEAR(after[e], 2 * before[e], 1e-6);
}

TEST_P(NnOps, ColumnSumsAndReluBackward) {
  const Type t = GetParam();
  Context ctx = cpu_ctx();
  const DenseMatrix A = nn_ref::random_dense(37, 6, t, 3);
  DenseVector s(6, t);
  nn::column_sums(s, A, ctx);
  std::vector<double> want(6, 0.0);
  const std::vector<double> a = nn_ref::values(A);
  for (Index i = 0; i < 37; ++i)
    for (Index j = 0; j < 6; ++j) want[std::size_t(j)] += a[std::size_t(i * 6 + j)];
  expect_near_all(nn_ref::values(s), want, tol_for(t) * 37, "column_sums");

  DenseMatrix G = nn_ref::random_dense(37, 6, t, 4);
  const std::vector<double> g0 = nn_ref::values(G);
  nn::relu_backward(G, A, ctx);  // A plays Y: about half its entries are <= 0
  const std::vector<double> g = nn_ref::values(G);
  int zeroed = 0;
  for (std::size_t e = 0; e < g.size(); ++e) {
    EXPECT_EQ(g[e], a[e] > 0 ? g0[e] : 0.0) << e;
    zeroed += a[e] <= 0;
  }
  EXPECT_GT(zeroed, 20);
  EXPECT_LT(zeroed, 37 * 6 - 20);
}

TEST_P(NnOps, DropoutKeepsAboutOneMinusPScalesAndRepeatsItsMask) {
  const Type t = GetParam();
  Context ctx = cpu_ctx();
  const Index r = 100, c = 50;
  const DenseMatrix X0 = nn_ref::random_dense(r, c, t, 9, 0.5, 1.5);  // no zeros
  DenseMatrix X = X0;
  nn::dropout(X, 0.3, 42, 7, ctx);
  const std::vector<double> x0 = nn_ref::values(X0), x = nn_ref::values(X);
  Index kept = 0;
  for (std::size_t e = 0; e < x.size(); ++e) {
    const bool keep = nn::dropout_uniform(42, 7, e) >= 0.3f;
    kept += keep;
    EXPECT_NEAR(x[e], keep ? x0[e] / 0.7 : 0.0, 1e-5 * (1 + std::fabs(x0[e]))) << e;
  }
  EXPECT_NEAR(double(kept) / double(r * c), 0.7, 0.03);
  // The backward: the same call on the gradient zeroes the same entries.
  DenseMatrix G = nn_ref::random_dense(r, c, t, 10, 0.5, 1.5);
  nn::dropout(G, 0.3, 42, 7, ctx);
  const std::vector<double> g = nn_ref::values(G);
  for (std::size_t e = 0; e < g.size(); ++e) EXPECT_EQ(g[e] == 0.0, x[e] == 0.0) << e;
  // Another stream draws another mask; p = 0 changes nothing.
  DenseMatrix Y = X0;
  nn::dropout(Y, 0.3, 42, 8, ctx);
  EXPECT_NE(nn_ref::values(Y), x);
  DenseMatrix Z = X0;
  nn::dropout(Z, 0.0, 42, 8, ctx);
  EXPECT_EQ(nn_ref::values(Z), x0);
  EXPECT_THROW(nn::dropout(Z, 1.0, 1, 1, ctx), InvalidValue);
  EXPECT_THROW(nn::dropout(Z, -0.1, 1, 1, ctx), InvalidValue);
}

TEST(NnOpsRng, DropoutUniformIsInUnitIntervalAndSpreadsOverIt) {
  std::vector<int> bins(10, 0);
  std::set<float> distinct;
  for (std::uint64_t e = 0; e < 100000; ++e) {
    const float u = nn::dropout_uniform(1, 2, e);
    ASSERT_GE(u, 0.0f);
    ASSERT_LT(u, 1.0f);
    ++bins[std::size_t(u * 10)];
    distinct.insert(u);
  }
  for (int b : bins) EXPECT_NEAR(b, 10000, 500);
  EXPECT_GT(distinct.size(), 99000u);
  EXPECT_NE(nn::dropout_uniform(1, 2, 3), nn::dropout_uniform(2, 2, 3));
  EXPECT_NE(nn::dropout_uniform(1, 2, 3), nn::dropout_uniform(1, 3, 3));
}

TEST_P(NnOps, SoftmaxCrossEntropyLossAndGradientAgainstNaive) {
  const Type t = GetParam();
  Context ctx = cpu_ctx();
  const Index n = 20, c = 5;
  const DenseMatrix Z = nn_ref::random_dense(n, c, t, 12, -3, 3);
  std::vector<std::int32_t> labels(n);
  for (Index i = 0; i < n; ++i) labels[std::size_t(i)] = std::int32_t((i * 7) % c);
  const std::vector<std::int32_t> rows = {0, 3, 4, 9, 17, 19};
  DenseMatrix G = nn_ref::random_dense(n, c, t, 13);  // overwritten everywhere
  DenseVector out(3, t);
  nn::softmax_cross_entropy(&G, out, 1, Z, nn_ref::int32_vector(labels), nn_ref::int32_vector(rows),
                            ctx);
  const auto [loss, grad] = nn_ref::softmax_ce(Z, labels, rows);
  EXPECT_NEAR(nn_ref::values(out)[1], loss, tol_for(t) * 10);
  EXPECT_EQ(nn_ref::values(out)[0], 0.0);
  expect_near_all(nn_ref::values(G), grad, tol_for(t) * 10, "gradient");
  // Without a gradient: only the loss.
  DenseVector out2(1, t);
  nn::softmax_cross_entropy(nullptr, out2, 0, Z, nn_ref::int32_vector(labels),
                            nn_ref::int32_vector(rows), ctx);
  EXPECT_NEAR(nn_ref::values(out2)[0], loss, tol_for(t) * 10);
}

TEST(NnOpsFiniteDifferences, SoftmaxCrossEntropyGradientFp64) {
  Context ctx(Backend::cpu);
  const Index n = 6, c = 4;
  DenseMatrix Z = nn_ref::random_dense(n, c, Type::fp64, 21, -2, 2);
  const std::vector<std::int32_t> labels = {0, 3, 1, 2, 2, 0}, rows = {1, 2, 5};
  const DenseVector L = nn_ref::int32_vector(labels), R = nn_ref::int32_vector(rows);
  DenseMatrix G(n, c, Type::fp64);
  DenseVector out(1, Type::fp64);
  nn::softmax_cross_entropy(&G, out, 0, Z, L, R, ctx);
  const double h = 1e-6;
  for (Index e = 0; e < n * c; ++e) {
    double* z = Z.values().as<double>();
    const double keep = z[e];
    z[e] = keep + h;
    nn::softmax_cross_entropy(nullptr, out, 0, Z, L, R, ctx);
    const double up = out.values().as<double>()[0];
    z[e] = keep - h;
    nn::softmax_cross_entropy(nullptr, out, 0, Z, L, R, ctx);
    const double down = out.values().as<double>()[0];
    z[e] = keep;
    EXPECT_NEAR(G.values().as<double>()[e], (up - down) / (2 * h), 1e-8) << e;
  }
}

TEST_P(NnOps, AccuracyTiesGoToTheLowestColumn) {
  const Type t = GetParam();
  Context ctx = cpu_ctx();
  const std::vector<double> z = {1, 3, 3,   // tie between 1 and 2: argmax 1
                                 5, 0, 5,   // tie: 0
                                 0, 0, 1,   // 2
                                 2, 1, 0};  // 0
  DenseMatrix Z = t == Type::fp64
                      ? DenseMatrix::from_values(4, 3, z)
                      : DenseMatrix::from_values(4, 3, std::vector<float>(z.begin(), z.end()));
  const DenseVector labels = nn_ref::int32_vector({1, 2, 2, 1});
  DenseVector out(2, t);
  nn::accuracy(out, 1, Z, labels, nn_ref::int32_vector({0, 1, 2, 3}), ctx);
  EXPECT_DOUBLE_EQ(nn_ref::values(out)[1], 0.5);
  nn::accuracy(out, 0, Z, labels, nn_ref::int32_vector({2}), ctx);
  EXPECT_DOUBLE_EQ(nn_ref::values(out)[0], 1.0);
}

TEST_P(NnOps, AdamMatchesItsFormulaOverThreeSteps) {
  const Type t = GetParam();
  Context ctx = cpu_ctx();
  DenseMatrix W = nn_ref::random_dense(4, 3, t, 30), m(4, 3, t), v(4, 3, t);
  nn::AdamOptions o;
  o.lr = 0.05;
  o.weight_decay = 0.1;
  std::vector<double> w = nn_ref::values(W), mm(12, 0.0), vv(12, 0.0);
  for (Index step = 1; step <= 3; ++step) {
    const DenseMatrix G = nn_ref::random_dense(4, 3, t, 40 + step);
    const std::vector<double> g = nn_ref::values(G);
    nn::adam_step(W, G, m, v, o, step, ctx);
    for (std::size_t e = 0; e < 12; ++e) {
      const double ge = g[e] + o.weight_decay * w[e];
      mm[e] = o.beta1 * mm[e] + (1 - o.beta1) * ge;
      vv[e] = o.beta2 * vv[e] + (1 - o.beta2) * ge * ge;
      const double mh = mm[e] / (1 - std::pow(o.beta1, step)),
                   vh = vv[e] / (1 - std::pow(o.beta2, step));
      w[e] -= o.lr * mh / (std::sqrt(vh) + o.eps);
    }
    expect_near_all(nn_ref::values(W), w, tol_for(t) * 10, "W at step " + std::to_string(step));
    expect_near_all(nn_ref::values(m), mm, tol_for(t) * 10, "m");
  }
  // The vector form updates a bias the same way, and hands its buffers back.
  DenseVector b = DenseVector::from_values(std::vector<double>{1.0, -2.0});
  DenseVector gb = DenseVector::from_values(std::vector<double>{0.5, 0.5});
  DenseVector mb(2, Type::fp64), vb(2, Type::fp64);
  nn::adam_step(b, gb, mb, vb, o, 1, ctx);
  ASSERT_EQ(b.size(), 2);
  ASSERT_EQ(gb.values().size(), 2 * sizeof(double));
  // Step 1: m̂ = g, v̂ = g², so every element moves by lr·sign(g) (up to eps).
  EXPECT_NEAR(b.values().as<double>()[0], 1.0 - 0.05, 1e-6);
  EXPECT_NEAR(b.values().as<double>()[1], -2.0 - 0.05, 1e-6);  // g + wd·w = 0.5 - 0.2 > 0
}

TEST(NnOpsErrors, ShapesTypesRowsAndLabelsAreChecked) {
  Context ctx(Backend::cpu);
  DenseMatrix C(3, 4, Type::fp32);
  EXPECT_THROW(
      nn::gemm(C, 1, DenseMatrix(3, 2, Type::fp32), DenseMatrix(3, 4, Type::fp32), 0, {}, ctx),
      DimensionMismatch);
  EXPECT_THROW(
      nn::gemm(C, 1, DenseMatrix(3, 2, Type::fp64), DenseMatrix(2, 4, Type::fp32), 0, {}, ctx),
      InvalidValue);
  DenseMatrix Ci(3, 4, Type::int32);
  EXPECT_THROW(
      nn::gemm(Ci, 1, DenseMatrix(3, 2, Type::int32), DenseMatrix(2, 4, Type::int32), 0, {}, ctx),
      InvalidValue);
  DenseMatrix Ccol(3, 4, Type::fp32, Layout::col_major);
  EXPECT_THROW(
      nn::gemm(Ccol, 1, DenseMatrix(3, 2, Type::fp32), DenseMatrix(2, 4, Type::fp32), 0, {}, ctx),
      InvalidValue);
  DenseVector s(3, Type::fp32);
  EXPECT_THROW(nn::column_sums(s, C, ctx), DimensionMismatch);

  const DenseMatrix Z(4, 3, Type::fp32);
  DenseVector out(1, Type::fp32);
  const DenseVector labels = nn_ref::int32_vector({0, 1, 2, 3});  // label 3 out of range
  try {
    nn::softmax_cross_entropy(nullptr, out, 0, Z, labels, nn_ref::int32_vector({0, 3}), ctx);
    ADD_FAILURE() << "no throw";
  } catch (const InvalidIndex& e) {
    EXPECT_NE(std::string(e.what()).find("labels(3) = 3 is out of range 0..2"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(
      nn::softmax_cross_entropy(nullptr, out, 0, Z, labels, nn_ref::int32_vector({0, 2}), ctx));
  EXPECT_THROW(nn::accuracy(out, 0, Z, labels, nn_ref::int32_vector({4}), ctx), InvalidIndex);
  EXPECT_THROW(nn::accuracy(out, 1, Z, labels, nn_ref::int32_vector({0}), ctx), InvalidIndex);
  EXPECT_THROW(nn::accuracy(out, 0, Z, labels, nn_ref::int32_vector({}), ctx), InvalidValue);
  EXPECT_THROW(
      nn::accuracy(out, 0, Z, nn_ref::int32_vector({0, 1}), nn_ref::int32_vector({0}), ctx),
      DimensionMismatch);
  DenseMatrix W(2, 2, Type::fp32), m(2, 2, Type::fp32), v(2, 3, Type::fp32);
  EXPECT_THROW(nn::adam_step(W, W, m, v, {}, 1, ctx), DimensionMismatch);
  EXPECT_THROW(nn::adam_step(W, W, m, m, {}, 0, ctx), InvalidValue);
}

TEST(NnOpsDispatch, CudaRowsRefuseFp64AndForcedVariantsAreChecked) {
  Context ctx(Backend::cuda);
  DenseMatrix C(2, 2, Type::fp64);
  // No GPU here or fp64: either way the cuda backend cannot run it, and says so.
  EXPECT_ANY_THROW(
      nn::gemm(C, 1, DenseMatrix(2, 2, Type::fp64), DenseMatrix(2, 2, Type::fp64), 0, {}, ctx));
  Context cpu(Backend::cpu);
  Descriptor d;
  d.variant = Variant::cublas;
  EXPECT_THROW(
      nn::gemm(C, 1, DenseMatrix(2, 2, Type::fp64), DenseMatrix(2, 2, Type::fp64), 0, d, cpu),
      InvalidValue);
  d.variant = Variant::host_dense;
  EXPECT_NO_THROW(
      nn::gemm(C, 1, DenseMatrix(2, 2, Type::fp64), DenseMatrix(2, 2, Type::fp64), 0, d, cpu));
}

}  // namespace
}  // namespace ringblas::test
