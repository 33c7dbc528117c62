// The fused hidden-layer passes of include/ringblas/nn.hpp (bias_relu_dropout,
// linear_dropout_relu_backward, dropout_gemm, dense_layer_backward) on the cpu executor: against
// naive loops written from their formulas (with nn::dropout_uniform's mask), against the unfused
// sequence of operations they replace, and their argument checks.
#include <gtest/gtest.h>

#include <cmath>

#include "ringblas/error.hpp"
#include "ringblas/nn.hpp"
#include "support/nn_reference.hpp"

namespace ringblas::test {
namespace {

double tol_for(Type t) { return t == Type::fp32 ? 2e-5 : 1e-12; }

class NnFused : public testing::TestWithParam<Type> {};
INSTANTIATE_TEST_SUITE_P(Types, NnFused, testing::Values(Type::fp32, Type::fp64),
                         [](const auto& info) { return std::string(type_name(info.param)); });

/// dropout(X) from the formula (nn::dropout_uniform's mask), as a host matrix of X's type.
DenseMatrix dropped_by_formula(const DenseMatrix& X, double p, std::uint64_t seed,
                               std::uint64_t stream) {
  const std::vector<double> x = nn_ref::values(X);
  std::vector<double> d(x.size());
  for (std::size_t e = 0; e < x.size(); ++e)
    d[e] = p == 0 || nn::dropout_uniform(seed, stream, e) >= float(p) ? x[e] / (1 - p) : 0.0;
  if (X.type() == Type::fp32)
    return DenseMatrix::from_values(X.nrows(), X.ncols(), std::vector<float>(d.begin(), d.end()));
  return DenseMatrix::from_values(X.nrows(), X.ncols(), d);
}

DenseVector random_vector(Index n, Type t, std::uint64_t seed) {
  const DenseMatrix m = nn_ref::random_dense(1, n, t, seed);
  DenseVector v(n, t);
  v.values() = m.values();
  return v;
}

TEST_P(NnFused, BiasReluDropoutAgainstItsFormula) {
  const Type t = GetParam();
  Context ctx(Backend::cpu);
  const Index r = 41, c = 13;
  const DenseMatrix H0 = nn_ref::random_dense(r, c, t, 1);
  const DenseVector b = random_vector(c, t, 2);
  const std::vector<double> h0 = nn_ref::values(H0), bv = nn_ref::values(b);
  for (double p : {0.0, 0.5}) {
    DenseMatrix H = H0;
    nn::bias_relu_dropout(H, b, p, 7, 3, ctx);
    const std::vector<double> h = nn_ref::values(H);
    int positive = 0, dropped = 0;
    for (Index i = 0; i < r; ++i)
      for (Index j = 0; j < c; ++j) {
        const std::size_t e = std::size_t(i * c + j);
        const double relu = std::max(h0[e] + bv[std::size_t(j)], 0.0);
        const bool keep = p == 0 || nn::dropout_uniform(7, 3, e) >= float(p);
        const double want = keep ? relu / (1 - p) : 0.0;
        ASSERT_NEAR(h[e], want, tol_for(t) * (1 + std::fabs(want))) << "p " << p << " at " << e;
        positive += relu > 0;
        dropped += relu > 0 && !keep;
      }
    EXPECT_GT(positive, r * c / 4);  // the ReLU passes some and zeroes some
    EXPECT_LT(positive, r * c);
    if (p > 0) {
      EXPECT_GT(dropped, positive / 4);
    }
  }
}

TEST_P(NnFused, BiasReluDropoutEqualsBiasReluThenDropout) {
  const Type t = GetParam();
  Context ctx(Backend::cpu);
  const DenseMatrix H0 = nn_ref::random_dense(30, 8, t, 3);
  const DenseVector b = random_vector(8, t, 4);
  DenseMatrix fused = H0;
  nn::bias_relu_dropout(fused, b, 0.3, 5, 9, ctx);
  DenseMatrix seq = H0;
  auto bias_relu = [&](auto zero) {
    using T = decltype(zero);
    T* h = seq.values().as<T>();
    const T* bv = b.values().as<T>();
    for (Index i = 0; i < 30; ++i)
      for (Index j = 0; j < 8; ++j) h[i * 8 + j] = std::max(h[i * 8 + j] + bv[j], T(0));
  };
  if (t == Type::fp32)
    bias_relu(float{});
  else
    bias_relu(double{});
  nn::dropout(seq, 0.3, 5, 9, ctx);
  EXPECT_EQ(nn_ref::values(fused), nn_ref::values(seq));  // the same steps: bit for bit
}

/// G and s of linear_dropout_relu_backward from the formula, in double.
std::pair<std::vector<double>, std::vector<double>> backward_formula(const DenseMatrix& D,
                                                                     const DenseMatrix& W,
                                                                     const DenseMatrix* Y, double p,
                                                                     std::uint64_t seed,
                                                                     std::uint64_t stream) {
  const Index n = D.nrows(), m = W.nrows();
  DenseMatrix zero(n, m, D.type());
  std::vector<double> g = nn_ref::gemm(1.0, D, false, W, true, 0.0, zero);
  std::vector<double> s(std::size_t(m), 0.0);
  const std::vector<double> y = Y ? nn_ref::values(*Y) : std::vector<double>();
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < m; ++j) {
      const std::size_t e = std::size_t(i * m + j);
      if (p > 0) g[e] = nn::dropout_uniform(seed, stream, e) >= float(p) ? g[e] / (1 - p) : 0.0;
      if (Y && !(y[e] > 0)) g[e] = 0.0;
      s[std::size_t(j)] += g[e];
    }
  return {g, s};
}

TEST_P(NnFused, LinearDropoutReluBackwardAgainstItsFormula) {
  const Type t = GetParam();
  Context ctx(Backend::cpu);
  for (Index k : {Index(1), Index(5), Index(40)})
    for (double p : {0.0, 0.4})
      for (bool relu : {false, true}) {
        const Index n = 23, m = 9;
        const std::string what =
            "k " + std::to_string(k) + " p " + std::to_string(p) + (relu ? " relu" : " no relu");
        const DenseMatrix D = nn_ref::random_dense(n, k, t, 10 + k);
        const DenseMatrix W = nn_ref::random_dense(m, k, t, 20 + k);
        const DenseMatrix Y = nn_ref::random_dense(n, m, t, 30 + k);
        DenseMatrix G = nn_ref::random_dense(n, m, t, 40);  // overwritten
        DenseVector s = random_vector(m, t, 41);            // overwritten
        nn::linear_dropout_relu_backward(G, &s, D, W, relu ? &Y : nullptr, p, 3, 11, ctx);
        const auto [g, sums] = backward_formula(D, W, relu ? &Y : nullptr, p, 3, 11);
        const std::vector<double> got = nn_ref::values(G), got_s = nn_ref::values(s);
        int zeros = 0;
        for (std::size_t e = 0; e < g.size(); ++e) {
          ASSERT_NEAR(got[e], g[e], tol_for(t) * double(k) * (1 + std::fabs(g[e])))
              << what << " at " << e;
          zeros += g[e] == 0.0;
        }
        for (std::size_t j = 0; j < sums.size(); ++j)
          ASSERT_NEAR(got_s[j], sums[j], tol_for(t) * double(k * n) * (1 + std::fabs(sums[j])))
              << what << " column " << j;
        if (p > 0 || relu)
          EXPECT_GT(zeros, 0) << what;  // the masks did something
        else
          EXPECT_EQ(zeros, 0) << what;
        // Without s: the same G.
        DenseMatrix G2(n, m, t);
        nn::linear_dropout_relu_backward(G2, nullptr, D, W, relu ? &Y : nullptr, p, 3, 11, ctx);
        EXPECT_EQ(nn_ref::values(G2), got) << what;
      }
}

TEST_P(NnFused, LinearDropoutReluBackwardEqualsTheUnfusedSequence) {
  const Type t = GetParam();
  Context ctx(Backend::cpu);
  const Index n = 50, m = 12, k = 4;
  const DenseMatrix D = nn_ref::random_dense(n, k, t, 1), W = nn_ref::random_dense(m, k, t, 2);
  const DenseMatrix Y = nn_ref::random_dense(n, m, t, 3);
  DenseMatrix G(n, m, t), Gs(n, m, t);
  DenseVector s(m, t), ss(m, t);
  nn::linear_dropout_relu_backward(G, &s, D, W, &Y, 0.5, 8, 2, ctx);
  Descriptor tb;
  tb.transpose_b = true;
  nn::gemm(Gs, 1.0, D, W, 0.0, tb, ctx);
  nn::dropout(Gs, 0.5, 8, 2, ctx);
  nn::relu_backward(Gs, Y, ctx);
  nn::column_sums(ss, Gs, ctx);
  EXPECT_EQ(nn_ref::values(G), nn_ref::values(Gs));
  EXPECT_EQ(nn_ref::values(s), nn_ref::values(ss));
}

TEST_P(NnFused, DropoutGemmAgainstItsFormulaBothWays) {
  const Type t = GetParam();
  Context ctx(Backend::cpu);
  const Index m = 19, k = 11, n = 6;
  const DenseMatrix A = nn_ref::random_dense(m, k, t, 5);
  const std::vector<double> a = nn_ref::values(A);
  for (double p : {0.0, 0.5})
    for (bool ta : {false, true}) {
      // The dropped A from the formula, then the naive product.
      const DenseMatrix Ad = dropped_by_formula(A, p, 4, 6);
      const DenseMatrix B = nn_ref::random_dense(ta ? m : k, n, t, 6);
      DenseMatrix C(ta ? k : m, n, t);
      const std::vector<double> want = nn_ref::gemm(0.5, Ad, ta, B, false, 0.0, C);
      Descriptor d;
      d.transpose_a = ta;
      nn::dropout_gemm(C, 0.5, A, B, p, 4, 6, d, ctx);
      const std::vector<double> got = nn_ref::values(C);
      for (std::size_t e = 0; e < want.size(); ++e)
        ASSERT_NEAR(got[e], want[e], tol_for(t) * double(m) * (1 + std::fabs(want[e])))
            << "p " << p << " ta " << ta << " at " << e;
      EXPECT_EQ(nn_ref::values(A), a);  // A is not changed
    }
  DenseMatrix C(m, n, t);
  EXPECT_THROW(nn::dropout_gemm(C, 1, A, nn_ref::random_dense(k + 1, n, t, 7), 0.5, 1, 1, {}, ctx),
               DimensionMismatch);
  EXPECT_THROW(nn::dropout_gemm(C, 1, A, nn_ref::random_dense(k, n, t, 7), 1.5, 1, 1, {}, ctx),
               InvalidValue);
}

TEST_P(NnFused, DenseLayerBackwardAgainstItsFormula) {
  const Type t = GetParam();
  Context ctx(Backend::cpu);
  const Index n = 21, m = 9, k = 4;
  const DenseMatrix X = nn_ref::random_dense(n, m, t, 1), D = nn_ref::random_dense(n, k, t, 2);
  const DenseMatrix W = nn_ref::random_dense(m, k, t, 3);
  for (double p : {0.0, 0.5})
    for (bool relu : {false, true}) {
      const std::string what = "p " + std::to_string(p) + (relu ? " relu" : "");
      DenseMatrix dW(m, k, t), G(n, m, t);
      DenseVector s(m, t);
      nn::dense_layer_backward(dW, G, &s, X, D, W, relu, false, p, 5, 7, ctx);
      // dW from the dropped X (the formula), G and s from backward_formula (Y = X for ReLU).
      const DenseMatrix Xd = dropped_by_formula(X, p, 5, 7);
      const std::vector<double> want_dw = nn_ref::gemm(1.0, Xd, true, D, false, 0.0, dW);
      const auto [want_g, want_s] = backward_formula(D, W, relu ? &X : nullptr, p, 5, 7);
      const std::vector<double> got_dw = nn_ref::values(dW), got_g = nn_ref::values(G),
                                got_s = nn_ref::values(s);
      for (std::size_t e = 0; e < want_dw.size(); ++e)
        ASSERT_NEAR(got_dw[e], want_dw[e], tol_for(t) * double(n) * (1 + std::fabs(want_dw[e])))
            << what << " dW at " << e;
      for (std::size_t e = 0; e < want_g.size(); ++e)
        ASSERT_NEAR(got_g[e], want_g[e], tol_for(t) * double(k) * (1 + std::fabs(want_g[e])))
            << what << " G at " << e;
      for (std::size_t e = 0; e < want_s.size(); ++e)
        ASSERT_NEAR(got_s[e], want_s[e], tol_for(t) * double(n * k) * (1 + std::fabs(want_s[e])))
            << what << " s at " << e;
    }
  DenseMatrix dW(m, k, t), G(n, m, t);
  EXPECT_THROW(nn::dense_layer_backward(dW, G, nullptr, X, nn_ref::random_dense(n + 1, k, t, 4), W,
                                        true, false, 0.5, 1, 1, ctx),
               DimensionMismatch);
  DenseMatrix dW_bad(m, k + 1, t);
  EXPECT_THROW(nn::dense_layer_backward(dW_bad, G, nullptr, X, D, W, true, false, 0.5, 1, 1, ctx),
               DimensionMismatch);
  EXPECT_THROW(nn::dense_layer_backward(dW, G, nullptr, X, D, W, true, false, 1.0, 1, 1, ctx),
               InvalidValue);
}

/// dense_layer_backward from X with the dropout mask drawn (p 0.5, seeds 3, 4) and from
/// `dropped` (X already dropped with that mask) gives the same G and s, and dW within rounding;
/// returns G.
std::vector<double> expect_same_backward(const DenseMatrix& X, const DenseMatrix& dropped,
                                         const DenseMatrix& D, const DenseMatrix& W, bool relu,
                                         Type t, Context& ctx) {
  const Index n = X.nrows(), m = X.ncols(), k = D.ncols();
  DenseMatrix dW1(m, k, t), G1(n, m, t), dW2(m, k, t), G2(n, m, t);
  DenseVector s1(m, t), s2(m, t);
  nn::dense_layer_backward(dW1, G1, &s1, X, D, W, relu, false, 0.5, 3, 4, ctx);
  nn::dense_layer_backward(dW2, G2, &s2, dropped, D, W, relu, true, 0.5, 3, 4, ctx);
  EXPECT_EQ(nn_ref::values(G2), nn_ref::values(G1));
  EXPECT_EQ(nn_ref::values(s2), nn_ref::values(s1));
  const std::vector<double> a = nn_ref::values(dW1), b = nn_ref::values(dW2);
  for (std::size_t e = 0; e < a.size(); ++e)
    EXPECT_NEAR(a[e], b[e], tol_for(t) * double(n) * (1 + std::fabs(a[e]))) << e;
  return nn_ref::values(G2);
}

/// X already dropped by the forward (bias_relu_dropout): the same dW, G and s as from the
/// undropped relu(Z) with the mask drawn.
TEST_P(NnFused, DenseLayerBackwardFromAnAlreadyDroppedInput) {
  const Type t = GetParam();
  Context ctx(Backend::cpu);
  const Index n = 25, m = 8, k = 3;
  const DenseMatrix Z = nn_ref::random_dense(n, m, t, 11), D = nn_ref::random_dense(n, k, t, 12);
  const DenseMatrix W = nn_ref::random_dense(m, k, t, 13);
  const DenseVector zero(m, t);
  DenseMatrix relu = Z, dropped = Z;
  nn::bias_relu_dropout(relu, zero, 0.0, 3, 4, ctx);
  nn::bias_relu_dropout(dropped, zero, 0.5, 3, 4, ctx);
  expect_same_backward(relu, dropped, D, W, true, t, ctx);
}

/// Without relu (a MaxK-GCN layer's output, dropped by its mxm): dW from X as given, G with the
/// mask drawn again, equal to the undropped input with the mask drawn for both; X's own zeros
/// (values, not dropped entries) keep their gradient.
TEST_P(NnFused, DenseLayerBackwardFromAnAlreadyDroppedInputWithoutRelu) {
  const Type t = GetParam();
  Context ctx(Backend::cpu);
  const Index n = 25, m = 8, k = 3;
  std::vector<double> zv = nn_ref::values(nn_ref::random_dense(n, m, t, 21));
  for (Index e = 0; e < n * m; e += 3) zv[std::size_t(e)] = 0.0;  // zeros that are values
  const DenseMatrix Z =
      t == Type::fp32 ? DenseMatrix::from_values(n, m, std::vector<float>(zv.begin(), zv.end()))
                      : DenseMatrix::from_values(n, m, zv);
  const DenseMatrix D = nn_ref::random_dense(n, k, t, 22), W = nn_ref::random_dense(m, k, t, 23);
  DenseMatrix dropped(n, m, t);
  nn::dropout(dropped, Z, 0.5, 3, 4, ctx);
  const std::vector<double> g = expect_same_backward(Z, dropped, D, W, false, t, ctx);
  // The gradient reaches X's zero values where the mask keeps them.
  bool zero_value_with_gradient = false;
  for (Index e = 0; e < n * m; e += 3) zero_value_with_gradient |= g[std::size_t(e)] != 0.0;
  EXPECT_TRUE(zero_value_with_gradient);
}

TEST(NnFusedErrors, ShapesTypesAndPAreChecked) {
  Context ctx(Backend::cpu);
  const Type t = Type::fp32;
  DenseMatrix H = nn_ref::random_dense(4, 3, t, 1);
  EXPECT_THROW(nn::bias_relu_dropout(H, random_vector(4, t, 2), 0.5, 1, 1, ctx), DimensionMismatch);
  EXPECT_THROW(nn::bias_relu_dropout(H, random_vector(3, Type::fp64, 2), 0.5, 1, 1, ctx),
               InvalidValue);
  EXPECT_THROW(nn::bias_relu_dropout(H, random_vector(3, t, 2), 1.0, 1, 1, ctx), InvalidValue);
  const DenseMatrix D = nn_ref::random_dense(4, 2, t, 3), W = nn_ref::random_dense(3, 2, t, 4);
  DenseMatrix G(4, 3, t);
  DenseVector s(3, t), s_bad(2, t);
  EXPECT_NO_THROW(nn::linear_dropout_relu_backward(G, &s, D, W, &H, 0.5, 1, 1, ctx));
  EXPECT_THROW(nn::linear_dropout_relu_backward(G, &s, D, nn_ref::random_dense(3, 3, t, 5), &H, 0,
                                                1, 1, ctx),
               DimensionMismatch);
  DenseMatrix G_bad(4, 4, t);
  EXPECT_THROW(nn::linear_dropout_relu_backward(G_bad, nullptr, D, W, nullptr, 0, 1, 1, ctx),
               DimensionMismatch);
  EXPECT_THROW(nn::linear_dropout_relu_backward(G, &s_bad, D, W, nullptr, 0, 1, 1, ctx),
               DimensionMismatch);
  const DenseMatrix Y_bad = nn_ref::random_dense(3, 3, t, 6);
  EXPECT_THROW(nn::linear_dropout_relu_backward(G, nullptr, D, W, &Y_bad, 0, 1, 1, ctx),
               DimensionMismatch);
  EXPECT_THROW(nn::linear_dropout_relu_backward(G, nullptr, D, W, nullptr, -0.5, 1, 1, ctx),
               InvalidValue);
  EXPECT_THROW(nn::linear_dropout_relu_backward(
                   G, nullptr, nn_ref::random_dense(4, 2, Type::fp64, 7), W, nullptr, 0, 1, 1, ctx),
               InvalidValue);
}

}  // namespace
}  // namespace ringblas::test
