// The MaxK-GNN operations on the cpu executor (include/ringblas/cbsr.hpp) against the naive dense
// references of tests/support/maxk_reference.hpp: MaxK for k in {1, 2, 8, 32, H} with and without
// ties, H = 256 and H not a multiple of 32, the forward A x CBSR and the sampled backward with
// degree-0 nodes and transposed A, the CBSR container's invariants, the errors, and the MaxK
// layer's gradient against finite differences.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backend/core/dispatch/dispatch_tables_maxk.hpp"
#include "ringblas/nn.hpp"
#include "ringblas/ringblas.hpp"
#include "support/maxk_reference.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

const Semiring kPlusTimes = semiring("plus_times", Type::fp32);

void expect_topk(const Cbsr& x, const TopkRef& ref, const std::string& what) {
  ASSERT_EQ(x.location(), Location::host) << what;
  EXPECT_NO_THROW(x.check_invariants()) << what;
  EXPECT_EQ(x.indices_vector(), ref.indices) << what;
  EXPECT_EQ(x.values_vector(), ref.values) << what;
}

void expect_near_all(const std::vector<float>& got, const std::vector<double>& want,
                     const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t e = 0; e < got.size(); ++e)
    ASSERT_NEAR(got[e], want[e], 1e-4 * (1.0 + std::abs(want[e]))) << what << " at " << e;
}

TEST(MaxkCpu, TopkMatchesReference) {
  Context ctx(Backend::cpu);
  for (Index h : {Index{5}, Index{40}, Index{256}})
    for (bool ties : {false, true})
      for (int k : ks_for(h)) {
        const Index n = 37;
        const auto y = random_features(n, h, ties, std::uint64_t(h * 131 + k));
        Cbsr x;
        maxk(x, DenseMatrix::from_values(n, h, y), k, {}, ctx);
        expect_topk(x, reference_topk(y, n, h, k),
                    "H " + std::to_string(h) + " k " + std::to_string(k) + (ties ? " ties" : ""));
      }
}

TEST(MaxkCpu, TiesTakeTheSmallerColumn) {
  Context ctx(Backend::cpu);
  // Row 0: four 3s; k = 3 takes columns 1, 2, 4 (the 3 at column 6 loses the tie).
  // Row 1: all equal: the first k columns. Row 2: one larger value, then the earliest 1s.
  const std::vector<float> y = {0, 3, 3, 1, 3, 0, 3, 0,  //
                                2, 2, 2, 2, 2, 2, 2, 2,  //
                                1, 0, 1, 0, 1, 5, 1, 0};
  Cbsr x;
  maxk(x, DenseMatrix::from_values(3, 8, y), 3, {}, ctx);
  EXPECT_EQ(x.indices_vector(), (std::vector<std::uint8_t>{1, 2, 4, 0, 1, 2, 0, 2, 5}));
  EXPECT_EQ(x.values_vector(), (std::vector<float>{3, 3, 3, 2, 2, 2, 1, 1, 5}));
}

TEST(MaxkCpu, SignedZerosAndNaNFollowTotalOrder) {
  Context ctx(Backend::cpu);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  // totalOrder: -NaN < -inf < -1 < -0 < +0 < 1 < inf < +NaN.
  const std::vector<float> y = {-0.0f, 0.0f, -1.0f, inf, -inf, 1.0f, nan, -nan};
  Cbsr x;
  maxk(x, DenseMatrix::from_values(1, 8, y), 4, {}, ctx);
  EXPECT_EQ(x.indices_vector(), (std::vector<std::uint8_t>{1, 3, 5, 6}));  // +0, inf, 1, NaN
  maxk(x, DenseMatrix::from_values(1, 8, y), 5, {}, ctx);
  EXPECT_EQ(x.indices_vector(), (std::vector<std::uint8_t>{0, 1, 3, 5, 6}));  // and -0
}

// Regression (GPU round 1): verify compared inf with inf as |inf - inf| = NaN > tolerance and
// reported "X(0, entry 0): inf vs inf".
TEST(MaxkCpu, VerifyComparisonTakesEqualInfinitiesAsEqual) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Cbsr a = Cbsr::from_host(1, 4, 3, {inf, -inf, nan}, {0, 2, 3});
  const detail::Tolerance tol = detail::Tolerance::for_type(Type::fp32);
  EXPECT_EQ(detail::compare(a, a, tol), std::nullopt);
  const Cbsr b = Cbsr::from_host(1, 4, 3, {inf, inf, nan}, {0, 2, 3});
  EXPECT_NE(detail::compare(a, b, tol), std::nullopt);
  const Cbsr c = Cbsr::from_host(1, 4, 3, {inf, -inf, nan}, {0, 1, 3});
  EXPECT_NE(detail::compare(a, c, tol), std::nullopt);
}

TEST(MaxkCpu, ForwardMatchesReference) {
  Context ctx(Backend::cpu);
  for (Index h : {Index{40}, Index{256}})
    for (int k : ks_for(h))
      for (bool transposed : {false, true}) {
        const Index n = 50;
        const auto y = random_features(n, h, false, std::uint64_t(k + 7));
        Cbsr x;
        maxk(x, DenseMatrix::from_values(n, h, y), k, {}, ctx);
        const Matrix A = random_adjacency(n, n, 5, std::uint64_t(k * 3 + h));
        Descriptor d;
        d.transpose_a = transposed;
        DenseMatrix c(n, h, Type::fp32);
        mxm(c, kPlusTimes, A, x, d, ctx);
        const auto got = std::vector<float>(c.values().as<float>(), c.values().as<float>() + n * h);
        expect_near_all(
            got, reference_forward(A, x, transposed),
            "H " + std::to_string(h) + " k " + std::to_string(k) + (transposed ? " A^T" : ""));
      }
}

TEST(MaxkCpu, ForwardRectangularAndEmpty) {
  Context ctx(Backend::cpu);
  // A is 7 x 30 (more feature rows than output rows); A without entries gives zeros.
  const auto y = random_features(30, 20, true, 3);
  Cbsr x;
  maxk(x, DenseMatrix::from_values(30, 20, y), 4, {}, ctx);
  for (int degree : {0, 3}) {
    const Matrix A = random_adjacency(7, 30, degree, 11);
    DenseMatrix c(7, 20, Type::fp32);
    mxm(c, kPlusTimes, A, x, {}, ctx);
    const auto got = std::vector<float>(c.values().as<float>(), c.values().as<float>() + 7 * 20);
    expect_near_all(got, reference_forward(A, x, false), "degree " + std::to_string(degree));
  }
}

TEST(MaxkCpu, ForwardEpilogue) {
  Context ctx(Backend::cpu);
  const Index n = 30, h = 40;
  Cbsr x;
  maxk(x, DenseMatrix::from_values(n, h, random_features(n, h, false, 2)), 8, {}, ctx);
  const Matrix A = random_adjacency(n, n, 4, 6);
  std::vector<float> b(static_cast<std::size_t>(h));
  for (Index j = 0; j < h; ++j) b[j] = float(j % 5) * 0.1f - 0.2f;
  const DenseVector bias = DenseVector::from_values(b);
  const auto ref = reference_forward(A, x, false);
  for (const Epilogue& ep :
       {Epilogue::bias_add(bias), Epilogue::bias_relu(bias), Epilogue::relu()}) {
    DenseMatrix c(n, h, Type::fp32);
    mxm(c, kPlusTimes, A, x, ep, {}, ctx);
    std::vector<double> want(ref);
    for (Index i = 0; i < n; ++i)
      for (Index j = 0; j < h; ++j) {
        double& w = want[i * h + j];
        if (ep.has_bias()) w += b[j];
        if (ep.has_relu()) w = std::max(w, 0.0);
      }
    const auto got = std::vector<float>(c.values().as<float>(), c.values().as<float>() + n * h);
    expect_near_all(got, want, "epilogue " + std::to_string(int(ep.kind)));
  }
  DenseMatrix c(n, h, Type::fp32);
  const DenseVector short_bias = DenseVector::from_values(std::vector<float>(3, 1.0f));
  EXPECT_THROW(mxm(c, kPlusTimes, A, x, Epilogue::bias_add(short_bias), {}, ctx), InvalidValue);
}

/// The output dropout (cbsr.hpp's OutputDropout): the reference's bias-added values with
/// nn::dropout's mask and scale (drawn here from nn::dropout_uniform), p == 0 none.
TEST(MaxkCpu, ForwardOutputDropout) {
  Context ctx(Backend::cpu);
  const Index n = 30, h = 40;
  Cbsr x;
  maxk(x, DenseMatrix::from_values(n, h, random_features(n, h, false, 5)), 8, {}, ctx);
  const Matrix A = random_adjacency(n, n, 4, 9);
  std::vector<float> b(static_cast<std::size_t>(h));
  for (Index j = 0; j < h; ++j) b[j] = float(j % 3) * 0.1f - 0.1f;
  const DenseVector bias = DenseVector::from_values(b);
  const auto ref = reference_forward(A, x, false);
  for (double p : {0.0, 0.5}) {
    DenseMatrix c(n, h, Type::fp32);
    mxm(c, kPlusTimes, A, x, Epilogue::bias_add(bias), OutputDropout{p, 3, 4}, {}, ctx);
    std::vector<double> want(ref);
    Index dropped = 0;
    for (Index i = 0; i < n; ++i)
      for (Index j = 0; j < h; ++j) {
        double& w = want[i * h + j];
        w += b[j];
        if (p > 0) {
          const bool keep = nn::dropout_uniform(3, 4, std::uint64_t(i * h + j)) >= float(p);
          w = keep ? w / (1 - p) : 0.0;
          dropped += keep ? 0 : 1;
        }
      }
    if (p > 0) EXPECT_GT(dropped, n * h / 4);
    const auto got = std::vector<float>(c.values().as<float>(), c.values().as<float>() + n * h);
    expect_near_all(got, want, "p " + std::to_string(p));
  }
  DenseMatrix c(n, h, Type::fp32);
  EXPECT_THROW(
      mxm(c, kPlusTimes, A, x, Epilogue::bias_add(bias), OutputDropout{1.0, 3, 4}, {}, ctx),
      InvalidValue);
}

TEST(MaxkCpu, SampledBackwardMatchesReference) {
  Context ctx(Backend::cpu);
  for (Index h : {Index{40}, Index{256}})
    for (int k : ks_for(h))
      for (bool transposed : {true, false}) {
        const Index n = 50;
        Cbsr dh;
        maxk(dh, DenseMatrix::from_values(n, h, random_features(n, h, false, std::uint64_t(k))), k,
             {}, ctx);
        const Matrix A = random_adjacency(n, n, 5, std::uint64_t(k * 5 + h));
        const DenseMatrix dy = random_dense(n, h, Type::fp32, std::uint64_t(h + k));
        const auto pattern = dh.indices_vector();
        Descriptor d;
        d.transpose_a = transposed;
        mxm(dh, kPlusTimes, A, dy, d, ctx);
        EXPECT_EQ(dh.indices_vector(), pattern) << "the pattern is kept";
        expect_near_all(
            dh.values_vector(), reference_sampled(A, dy, dh, transposed),
            "H " + std::to_string(h) + " k " + std::to_string(k) + (transposed ? " A^T" : " A"));
      }
}

TEST(MaxkCpu, CbsrContainer) {
  const Cbsr c = Cbsr::from_host(2, 6, 2, {1, 2, 3, 4}, {0, 5, 2, 3});
  EXPECT_EQ(c.to_dense().at<float>(0, 5), 2.0f);
  EXPECT_EQ(c.to_dense().at<float>(1, 2), 3.0f);
  EXPECT_EQ(c.to_sparse().nnz(), 4);
  EXPECT_THROW(Cbsr::from_host(1, 6, 2, {1, 2}, {3, 3}), InvalidIndex);  // not increasing
  EXPECT_THROW(Cbsr::from_host(1, 6, 2, {1, 2}, {1, 6}), InvalidIndex);  // column >= ncols
  EXPECT_THROW(Cbsr::from_host(1, 6, 2, {1}, {1, 2}), InvalidValue);
  EXPECT_THROW(Cbsr(1, 257, 1), NotImplemented);
  EXPECT_THROW(Cbsr(1, 6, 7), InvalidValue);
  const Cbsr z(3, 256, 256);
  EXPECT_NO_THROW(z.check_invariants());
}

TEST(MaxkCpu, DensifyPutsEntriesAtTheirColumns) {
  Context ctx(Backend::cpu);
  const Cbsr x = Cbsr::from_host(2, 5, 2, {1, 2, 3, 4}, {0, 4, 1, 2});
  for (Layout l : {Layout::row_major, Layout::col_major}) {
    DenseMatrix d(2, 5, Type::fp32, l);
    densify(d, x, {}, ctx);
    EXPECT_EQ(d.layout(), l);
    for (Index i = 0; i < 2; ++i)
      for (Index j = 0; j < 5; ++j)
        EXPECT_EQ(d.at<float>(i, j), x.to_dense().at<float>(i, j)) << i << ", " << j;
  }
  DenseMatrix wrong(3, 5, Type::fp32);
  EXPECT_THROW(densify(wrong, x, {}, ctx), DimensionMismatch);
}

TEST(MaxkCpu, Errors) {
  Context ctx(Backend::cpu);
  Cbsr x;
  const DenseMatrix y = DenseMatrix::from_values(2, 4, std::vector<float>(8, 1.0f));
  EXPECT_THROW(maxk(x, y, 0, {}, ctx), InvalidValue);
  EXPECT_THROW(maxk(x, y, 5, {}, ctx), InvalidValue);
  EXPECT_THROW(maxk(x, DenseMatrix(2, 257, Type::fp32), 3, {}, ctx), NotImplemented);
  EXPECT_THROW(maxk(x, DenseMatrix(2, 4, Type::fp64), 3, {}, ctx), NotImplemented);
  maxk(x, y, 2, {}, ctx);
  const Matrix A = random_adjacency(2, 2, 1, 1);
  DenseMatrix c(2, 4, Type::fp32);
  EXPECT_THROW(mxm(c, semiring("min_plus", Type::fp32), A, x, {}, ctx), NotImplemented);
  EXPECT_THROW(mxm(c, semiring("plus_times", Type::fp64), A, x, {}, ctx), NotImplemented);
  DenseMatrix wrong(3, 4, Type::fp32);
  EXPECT_THROW(mxm(wrong, kPlusTimes, A, x, {}, ctx), DimensionMismatch);
  EXPECT_THROW(mxm(x, kPlusTimes, A, DenseMatrix(2, 5, Type::fp32), {}, ctx), DimensionMismatch);
  Descriptor masked;
  masked.mask_complement = true;
  EXPECT_THROW(mxm(c, kPlusTimes, A, x, masked, ctx), NotImplemented);
}

// The MaxK layer Z = A maxk(Y, k) with the loss L = Σ W ∘ Z: dL/dY(i, j) is (Aᵀ W)(i, j) where
// (i, j) is selected and 0 elsewhere; the backward gives the selected part. Finite differences on
// values spaced 0.01 apart with eps = 1e-3 never change the selection.
TEST(MaxkCpu, LayerGradientMatchesFiniteDifferences) {
  Context ctx(Backend::cpu);
  const Index n = 12, h = 40;
  const int k = 8;
  const auto y = random_features(n, h, false, 77);
  const Matrix A = random_adjacency(n, n, 4, 5);
  const DenseMatrix w = random_dense(n, h, Type::fp32, 9);
  auto loss = [&](const std::vector<float>& yy) {
    Cbsr x;
    maxk(x, DenseMatrix::from_values(n, h, yy), k, {}, ctx);
    DenseMatrix z(n, h, Type::fp32);
    mxm(z, kPlusTimes, A, x, {}, ctx);
    double l = 0;
    for (Index i = 0; i < n; ++i)
      for (Index j = 0; j < h; ++j) l += double(w.at<float>(i, j)) * z.at<float>(i, j);
    return l;
  };
  Cbsr grad;
  maxk(grad, DenseMatrix::from_values(n, h, y), k, {}, ctx);
  Descriptor t;
  t.transpose_a = true;
  mxm(grad, kPlusTimes, A, w, t, ctx);
  const DenseMatrix g = grad.to_dense();
  const double eps = 1e-3;
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < h; ++j) {
      auto yp = y, ym = y;
      yp[i * h + j] += float(eps);
      ym[i * h + j] -= float(eps);
      const double fd = (loss(yp) - loss(ym)) / (double(yp[i * h + j]) - double(ym[i * h + j]));
      ASSERT_NEAR(g.at<float>(i, j), fd, 2e-2 * (1.0 + std::abs(fd)))
          << "Y(" << i << ", " << j << ")";
    }
}

}  // namespace
}  // namespace ringblas::test
