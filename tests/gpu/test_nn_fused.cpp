// GPU tests of the fused hidden-layer passes (include/ringblas/nn.hpp: bias_relu_dropout,
// linear_dropout_relu_backward on backend/cuda/dense_nn/fused_kernels.cuh) and of the skinny
// GEMMs (gemm's dense_nn variant, backend/cuda/dense_nn/skinny_kernels.cuh) against the cpu
// executor, outputs poisoned first, over the kernel's paths (D·Wᵀ in the kernel for k <= 16 and
// k <= 32, cuBLAS first above that or when Wᵀ does not fit in shared memory; column sums in the
// kernel or after it); the row kernels' grid-stride loop on a large subset; and GCN training with
// the first layer aggregated first (cpu vs cuda, and against the other order on the device).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "algorithms/gcn.hpp"
#include "ringblas/error.hpp"
#include "ringblas/nn.hpp"
#include "ringblas/ringblas.hpp"
#include "support/gcn_cases.hpp"
#include "support/gpu_fixture.hpp"
#include "support/nn_gpu_fixture.hpp"
#include "support/nn_reference.hpp"

namespace ringblas::test {
namespace {

class NnFusedGpu : public NnGpuTest {
 protected:
  static DenseVector random_vector(Index n, std::uint64_t seed) {
    const DenseMatrix m = nn_ref::random_dense(1, n, Type::fp32, seed);
    DenseVector v(n, Type::fp32);
    v.values() = m.values();
    return v;
  }
  /// Max |got − want| / (1 + |want|) over the entries; got on the device.
  template <class X>
  static double max_rel_diff(const X& got_dev, const X& want) {
    const std::vector<double> g = nn_ref::values(
                                  got_dev.to(Location::host, Context(Backend::cuda))),
                              w = nn_ref::values(want);
    EXPECT_EQ(g.size(), w.size());
    double worst = 0;
    for (std::size_t k = 0; k < g.size() && k < w.size(); ++k) {
      const double d = std::fabs(g[k] - w[k]) / (1 + std::fabs(w[k]));
      worst = std::isnan(d) ? INFINITY : std::max(worst, d);
    }
    return worst;
  }
};

TEST_F(NnFusedGpu, BiasReluDropoutBitForBitWithTheCpu) {
  poison_device_pool(256 << 20, gpu);
  for (Index rows : {Index(1), Index(37), Index(100000)})
    for (Index cols : {Index(1), Index(7), Index(16), Index(33), Index(256)})
      for (double p : {0.0, 0.5}) {
        if (rows * cols > 4'000'000) continue;
        const std::string what =
            std::to_string(rows) + "x" + std::to_string(cols) + " p " + std::to_string(p);
        const DenseMatrix H0 = nn_ref::random_dense(rows, cols, Type::fp32, 3);
        const DenseVector b = random_vector(cols, 4);
        DenseMatrix want = H0;
        nn::bias_relu_dropout(want, b, p, 5, 6, cpu);
        DenseMatrix got = dev(H0);
        const DenseVector db = dev(b);
        const TransferCounters before = gpu.transfers;
        nn::bias_relu_dropout(got, db, p, 5, 6, gpu);
        EXPECT_EQ(gpu.transfers.device_to_host, before.device_to_host) << what;
        EXPECT_EQ(gpu.transfers.host_to_device, before.host_to_device) << what;
        ASSERT_EQ(got.location(), Location::device);
        EXPECT_EQ(max_rel_diff(got, want), 0.0) << what;  // same float steps, same generator
      }
}

TEST_F(NnFusedGpu, LinearDropoutReluBackwardAgainstCpuOnEveryPath) {
  poison_device_pool(256 << 20, gpu);
  struct Shape {
    Index n, m, k;
  };
  // k 1/7/16: the kernel's product with 16 registers a row; 17/32: 32; 33/64: cuBLAS first;
  // m 2000 with k 16: Wᵀ does not fit in 48 KB (cuBLAS first, sums in the kernel); m 2000 and
  // k 40: neither fits (cuBLAS, then column_sums).
  const Shape shapes[] = {{1, 1, 1},        {37, 7, 7},      {100000, 256, 16}, {5000, 256, 17},
                          {5000, 33, 32},   {3000, 100, 33}, {3000, 64, 64},    {3001, 2000, 16},
                          {1000, 2000, 40}, {0, 16, 4},      {100000, 16, 7}};
  for (const Shape& sh : shapes)
    for (double p : {0.0, 0.5})
      for (bool relu : {false, true}) {
        const std::string what = std::to_string(sh.n) + "x" + std::to_string(sh.m) + " k " +
                                 std::to_string(sh.k) + " p " + std::to_string(p) +
                                 (relu ? " relu" : "");
        const DenseMatrix D = nn_ref::random_dense(sh.n, sh.k, Type::fp32, 1);
        const DenseMatrix W = nn_ref::random_dense(sh.m, sh.k, Type::fp32, 2);
        const DenseMatrix Y = nn_ref::random_dense(sh.n, sh.m, Type::fp32, 3);
        DenseMatrix G(sh.n, sh.m, Type::fp32);
        DenseVector s(sh.m, Type::fp32);
        nn::linear_dropout_relu_backward(G, &s, D, W, relu ? &Y : nullptr, p, 9, 4, cpu);
        DenseMatrix dG = poisoned(sh.n, sh.m);
        DenseVector ds = poisoned(sh.m);
        const DenseMatrix dD = dev(D), dW = dev(W), dY = dev(Y);
        const TransferCounters before = gpu.transfers;
        nn::linear_dropout_relu_backward(dG, &ds, dD, dW, relu ? &dY : nullptr, p, 9, 4, gpu);
        EXPECT_EQ(gpu.transfers.device_to_host, before.device_to_host) << what;
        EXPECT_LE(max_rel_diff(dG, G), 1e-5 * double(sh.k)) << what;
        // Column sums of up to 100000 rows in another order: relative to the column's magnitude.
        EXPECT_LE(max_rel_diff(ds, s), 2e-6 * std::sqrt(double(sh.n)) * double(sh.k)) << what;
        // Without s the kernel skips the sums and writes the same G.
        DenseMatrix dG2 = poisoned(sh.n, sh.m);
        nn::linear_dropout_relu_backward(dG2, nullptr, dD, dW, relu ? &dY : nullptr, p, 9, 4, gpu);
        EXPECT_LE(max_rel_diff(dG2, G), 1e-5 * double(sh.k)) << what;
      }
}

TEST_F(NnFusedGpu, SkinnyGemmsAgainstCpu) {
  poison_device_pool(256 << 20, gpu);
  struct Shape {
    Index m, k, n;  // NN: (m x k)·(k x n); TN: (m x k)ᵀ·(m x n)
  };
  const Shape shapes[] = {{1, 1, 1},       {37, 7, 5},    {100000, 256, 16}, {5000, 256, 17},
                          {3000, 100, 32}, {4097, 33, 1}, {0, 16, 4},        {70000, 500, 7}};
  Descriptor forced;
  forced.variant = Variant::dense_nn;
  for (const Shape& sh : shapes)
    for (bool ta : {false, true}) {
      const std::string what = std::string(ta ? "TN " : "NN ") + std::to_string(sh.m) + "x" +
                               std::to_string(sh.k) + " by " + std::to_string(sh.n);
      const DenseMatrix A = nn_ref::random_dense(sh.m, sh.k, Type::fp32, 1);
      const DenseMatrix B = nn_ref::random_dense(ta ? sh.m : sh.k, sh.n, Type::fp32, 2);
      Descriptor d = forced;
      d.transpose_a = ta;
      DenseMatrix want(ta ? sh.k : sh.m, sh.n, Type::fp32);
      Descriptor on_cpu;
      on_cpu.transpose_a = ta;
      nn::gemm(want, 0.5, A, B, 0.0, on_cpu, cpu);
      DenseMatrix got = poisoned(want.nrows(), want.ncols());
      const DenseMatrix dA = dev(A), dB = dev(B);
      const TransferCounters before = gpu.transfers;
      nn::gemm(got, 0.5, dA, dB, 0.0, d, gpu);
      EXPECT_EQ(gpu.transfers.device_to_host, before.device_to_host) << what;
      // TN sums over m rows in another order than OpenBLAS.
      const double inner = double(ta ? sh.m : sh.k);
      EXPECT_LE(max_rel_diff(got, want), 1e-6 * (1 + std::sqrt(inner)) * 4) << what;
    }
  // Shapes the skinny kernels do not take: forced, they say why; automatic uses cuBLAS.
  DenseMatrix C(10, 40, Type::fp32);
  EXPECT_THROW(nn::gemm(C, 1, dev(nn_ref::random_dense(10, 8, Type::fp32, 3)),
                        dev(nn_ref::random_dense(8, 40, Type::fp32, 4)), 0, forced, gpu),
               NotImplemented);
  DenseMatrix C2 = dev(nn_ref::random_dense(10, 4, Type::fp32, 5));
  EXPECT_THROW(nn::gemm(C2, 1, dev(nn_ref::random_dense(10, 8, Type::fp32, 3)),
                        dev(nn_ref::random_dense(8, 4, Type::fp32, 4)), 1.0, forced, gpu),
               NotImplemented);
}

TEST_F(NnFusedGpu, DropoutGemmSkinnyAndCublasAgainstCpu) {
  poison_device_pool(256 << 20, gpu);
  struct Shape {
    Index m, k, n;
  };
  // n <= 32: the skinny kernels drop A as they read it; n = 40: dropout, then cuBLAS.
  const Shape shapes[] = {{37, 7, 5}, {100000, 256, 16}, {3000, 100, 32}, {2000, 64, 40}};
  for (const Shape& sh : shapes)
    for (bool ta : {false, true})
      for (double p : {0.0, 0.5}) {
        const std::string what = std::string(ta ? "TN " : "NN ") + std::to_string(sh.m) + "x" +
                                 std::to_string(sh.k) + " by " + std::to_string(sh.n) + " p " +
                                 std::to_string(p);
        const DenseMatrix A = nn_ref::random_dense(sh.m, sh.k, Type::fp32, 1);
        const DenseMatrix B = nn_ref::random_dense(ta ? sh.m : sh.k, sh.n, Type::fp32, 2);
        Descriptor d;
        d.transpose_a = ta;
        DenseMatrix want(ta ? sh.k : sh.m, sh.n, Type::fp32);
        nn::dropout_gemm(want, 1.0, A, B, p, 3, 8, d, cpu);
        DenseMatrix got = poisoned(want.nrows(), want.ncols());
        const DenseMatrix dA = dev(A), dB = dev(B);
        nn::dropout_gemm(got, 1.0, dA, dB, p, 3, 8, d, gpu);
        const double inner = double(ta ? sh.m : sh.k);
        EXPECT_LE(max_rel_diff(got, want), 4e-6 * (1 + std::sqrt(inner))) << what;
        EXPECT_EQ(max_rel_diff(dA, A), 0.0) << what;  // A is not changed
      }
}

TEST_F(NnFusedGpu, DenseLayerBackwardAgainstCpu) {
  poison_device_pool(256 << 20, gpu);
  struct Shape {
    Index n, m, k;
  };
  // k <= 16 and <= 32: the one-pass kernel; k 40: the two passes; m 300: two column chunks.
  const Shape shapes[] = {{1, 1, 1},      {37, 7, 5},     {100000, 256, 16}, {5000, 300, 17},
                          {3000, 64, 32}, {2000, 33, 40}, {0, 16, 4}};
  for (const Shape& sh : shapes)
    for (double p : {0.0, 0.5})
      for (bool relu : {false, true}) {
        const std::string what = std::to_string(sh.n) + "x" + std::to_string(sh.m) + " k " +
                                 std::to_string(sh.k) + " p " + std::to_string(p) +
                                 (relu ? " relu" : "");
        const DenseMatrix X = nn_ref::random_dense(sh.n, sh.m, Type::fp32, 1);
        const DenseMatrix D = nn_ref::random_dense(sh.n, sh.k, Type::fp32, 2);
        const DenseMatrix W = nn_ref::random_dense(sh.m, sh.k, Type::fp32, 3);
        DenseMatrix dW(sh.m, sh.k, Type::fp32), G(sh.n, sh.m, Type::fp32);
        DenseVector s(sh.m, Type::fp32);
        nn::dense_layer_backward(dW, G, &s, X, D, W, relu, false, p, 9, 4, cpu);
        DenseMatrix ddW = poisoned(sh.m, sh.k), dG = poisoned(sh.n, sh.m);
        DenseVector ds = poisoned(sh.m);
        const DenseMatrix dX = dev(X), dD = dev(D), dWt = dev(W);
        const TransferCounters before = gpu.transfers;
        nn::dense_layer_backward(ddW, dG, &ds, dX, dD, dWt, relu, false, p, 9, 4, gpu);
        EXPECT_EQ(gpu.transfers.device_to_host, before.device_to_host) << what;
        EXPECT_LE(max_rel_diff(dG, G), 1e-5 * double(sh.k)) << what;
        EXPECT_LE(max_rel_diff(ddW, dW), 2e-6 * std::sqrt(double(sh.n)) * 4) << what;
        EXPECT_LE(max_rel_diff(ds, s), 2e-6 * std::sqrt(double(sh.n)) * double(sh.k)) << what;
      }
}

TEST_F(NnFusedGpu, DenseLayerBackwardFromAnAlreadyDroppedInputAgainstCpu) {
  poison_device_pool(256 << 20, gpu);
  // relu: X = dropout(relu(Z)) (bias_relu_dropout), the mask read from its zeros; without relu
  // X = dropout(Z) (a MaxK layer's dropped output), the mask drawn again.
  for (bool relu : {true, false})
    for (Index k : {Index(16), Index(20), Index(40)}) {  // the kernel (KMax 16, 32), the two passes
      const Index n = 50000, m = 256;
      const std::string what = "k " + std::to_string(k) + (relu ? " relu" : " no relu");
      const DenseMatrix Z = nn_ref::random_dense(n, m, Type::fp32, 1);
      const DenseMatrix D = nn_ref::random_dense(n, k, Type::fp32, 2);
      const DenseMatrix W = nn_ref::random_dense(m, k, Type::fp32, 3);
      DenseMatrix X = Z;
      if (relu)
        nn::bias_relu_dropout(X, DenseVector(m, Type::fp32), 0.5, 7, 8, cpu);
      else
        nn::dropout(X, 0.5, 7, 8, cpu);
      DenseMatrix dW(m, k, Type::fp32), G(n, m, Type::fp32);
      DenseVector s(m, Type::fp32);
      nn::dense_layer_backward(dW, G, &s, X, D, W, relu, true, 0.5, 7, 8, cpu);
      DenseMatrix ddW = poisoned(m, k), dG = poisoned(n, m);
      DenseVector ds = poisoned(m);
      nn::dense_layer_backward(ddW, dG, &ds, dev(X), dev(D), dev(W), relu, true, 0.5, 7, 8, gpu);
      EXPECT_LE(max_rel_diff(dG, G), 1e-5 * double(k)) << what;
      EXPECT_LE(max_rel_diff(ddW, dW), 2e-6 * std::sqrt(double(n)) * 4) << what;
      EXPECT_LE(max_rel_diff(ds, s), 2e-6 * std::sqrt(double(n)) * double(k)) << what;
    }
}

TEST_F(NnFusedGpu, SoftmaxCrossEntropyAndAccuracyOverALargeSubset) {
  // More rows than the capped grid has warps: each warp loops over several rows.
  const Index n = 300000, classes = 16;
  const DenseMatrix Z = nn_ref::random_dense(n, classes, Type::fp32, 7, -4, 4);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n)), rows;
  for (Index i = 0; i < n; ++i) labels[std::size_t(i)] = std::int32_t((i * 31) % classes);
  for (Index i = 0; i < n; i += 2) rows.push_back(std::int32_t(i));
  const DenseVector L = nn_ref::int32_vector(labels), R = nn_ref::int32_vector(rows);
  DenseMatrix G(n, classes, Type::fp32);
  DenseVector out(2, Type::fp32);
  nn::softmax_cross_entropy(&G, out, 0, Z, L, R, cpu);
  nn::accuracy(out, 1, Z, L, R, cpu);
  DenseMatrix dG = poisoned(n, classes);
  DenseVector dout = poisoned(2);
  nn::softmax_cross_entropy(&dG, dout, 0, dev(Z), dev(L), dev(R), gpu);
  nn::accuracy(dout, 1, dev(Z), dev(L), dev(R), gpu);
  EXPECT_LE(max_rel_diff(dG, G), 1e-5);
  EXPECT_LE(max_rel_diff(dout, out), 1e-4);
  EXPECT_GT(out.values().as<float>()[1], 0.01f);  // some rows are right, not all
  EXPECT_LT(out.values().as<float>()[1], 0.5f);
}

class GcnFusedGpu : public GpuTest {};

gcn::Result train_order(const GcnCase& gc, Context& ctx, gcn::Options::FirstLayer order) {
  gcn::Options o;
  o.seed = 5;
  o.epochs = 30;
  o.hidden = 64;
  o.early_stopping = 0;
  o.first_layer = order;
  const Matrix a_hat = gcn::normalized_adjacency(gc.adjacency, Type::fp32, ctx);
  const gcn::Features x = gcn::make_features(gc.features, Type::fp32, ctx, 1 << 30);
  return gcn::train(a_hat, x, gc.labels, gc.classes, gc.train, gc.val, gc.test, o, ctx);
}

void expect_same_curve(const gcn::Result& a, const gcn::Result& b, const std::string& what) {
  ASSERT_EQ(a.history.size(), b.history.size()) << what;
  for (std::size_t e = 0; e < a.history.size(); ++e) {
    EXPECT_NEAR(a.history[e].train_loss, b.history[e].train_loss, 2e-3 * a.history[e].train_loss)
        << what << " epoch " << e;
    EXPECT_NEAR(a.history[e].val_loss, b.history[e].val_loss, 2e-3 * a.history[e].val_loss)
        << what << " epoch " << e;
  }
  EXPECT_NEAR(a.test_acc, b.test_acc, 0.01) << what;
}

TEST_F(GcnFusedGpu, AggregateFirstCpuAndCudaAndBothOrdersGiveTheSameLossCurve) {
  // 32 features <= 64 hidden: automatic aggregates first; the fused backward runs on the second
  // layer (k = 5 classes). MaxK's (no ReLU mask): GcnMaxkGpu in test_gcn_maxk.cpp.
  const GcnCase gc = make_gcn_case(3000, 32, 5, 21);
  using FL = gcn::Options::FirstLayer;
  Context cpu(Backend::cpu), gpu(Backend::cuda);
  const gcn::Result c = train_order(gc, cpu, FL::automatic);
  const gcn::Result g = train_order(gc, gpu, FL::automatic);
  const gcn::Result t = train_order(gc, gpu, FL::transform_first);
  expect_same_curve(c, g, "aggregate first, cpu vs cuda");
  expect_same_curve(g, t, "cuda, aggregate first vs transform first");
  for (const gcn::EpochStats& e : g.history) EXPECT_TRUE(std::isfinite(e.train_loss));
}

}  // namespace
}  // namespace ringblas::test
