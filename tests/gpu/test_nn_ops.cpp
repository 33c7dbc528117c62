// GPU tests of the dense nn operations (include/ringblas/nn.hpp: cublas gemm and the dense_nn
// kernels) against the cpu executor on the same inputs, outputs poisoned first; that they keep
// their results on the device without copies to the host; and GCN training on the GPU against
// the cpu (the same loss curve for a seed, Cora's accuracy, one device read per epoch).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "algorithms/gcn.hpp"
#include "algorithms/planetoid_io.hpp"
#include "ringblas/nn.hpp"
#include "ringblas/ringblas.hpp"
#include "support/gcn_cases.hpp"
#include "support/gpu_fixture.hpp"
#include "support/nn_gpu_fixture.hpp"
#include "support/nn_reference.hpp"

namespace ringblas::test {
namespace {

class NnOpsGpu : public NnGpuTest {
 protected:
  static void expect_close(const DenseMatrix& got_dev, const DenseMatrix& want, double tol,
                           const std::string& what) {
    ASSERT_EQ(got_dev.location(), Location::device) << what;
    const std::vector<double> g =
        nn_ref::values(got_dev.to(Location::host, Context(Backend::cuda)));
    const std::vector<double> w = nn_ref::values(want);
    ASSERT_EQ(g.size(), w.size()) << what;
    for (std::size_t k = 0; k < g.size(); ++k)
      ASSERT_NEAR(g[k], w[k], tol * (1 + std::fabs(w[k]))) << what << " at " << k;
  }
};

TEST_F(NnOpsGpu, GemmEveryTransposeAndSizeAgainstCpu) {
  poison_device_pool(64 << 20, gpu);
  const Index shapes[][3] = {{1, 1, 1},        {7, 5, 9},   {300, 17, 200},
                             {2708, 16, 1433}, {33, 64, 1}, {6, 5, 0}};
  for (const auto& s : shapes)
    for (int tr = 0; tr < 4; ++tr)
      for (double beta : {0.0, 0.5}) {
        const Index m = s[0], n = s[1], k = s[2];
        const bool ta = tr & 1, tb = tr & 2;
        const DenseMatrix A = ta ? nn_ref::random_dense(k, m, Type::fp32, 1)
                                 : nn_ref::random_dense(m, k, Type::fp32, 1);
        const DenseMatrix B = tb ? nn_ref::random_dense(n, k, Type::fp32, 2)
                                 : nn_ref::random_dense(k, n, Type::fp32, 2);
        const DenseMatrix C0 = nn_ref::random_dense(m, n, Type::fp32, 3);
        Descriptor d;
        d.transpose_a = ta;
        d.transpose_b = tb;
        DenseMatrix want = C0;
        nn::gemm(want, 0.75, A, B, beta, d, cpu);
        DenseMatrix got = beta == 0 ? poisoned(m, n) : dev(C0);
        nn::gemm(got, 0.75, dev(A), dev(B), beta, d, gpu);
        expect_close(got, want, 1e-5 * double(k),
                     std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                         " tr=" + std::to_string(tr) + " beta=" + std::to_string(beta));
      }
}

TEST_F(NnOpsGpu, ElementwiseKernelsAgainstCpuWithoutHostCopies) {
  poison_device_pool(256 << 20, gpu);
  for (Index rows : {Index(1), Index(37), Index(100000)})
    for (Index cols : {Index(1), Index(7), Index(16), Index(33), Index(256)}) {
      if (rows * cols > 4'000'000) continue;
      const std::string what = std::to_string(rows) + "x" + std::to_string(cols);
      const DenseMatrix A = nn_ref::random_dense(rows, cols, Type::fp32, 5);
      const DenseMatrix G0 = nn_ref::random_dense(rows, cols, Type::fp32, 6);
      const DenseMatrix dA = dev(A);
      DenseMatrix dG = dev(G0), dX = dev(G0), dY = poisoned(rows, cols);
      DenseVector ds = DenseVector(cols, Type::fp32).to(Location::device, gpu);
      const TransferCounters before = gpu.transfers;
      nn::column_sums(ds, dA, gpu);
      nn::relu_backward(dG, dA, gpu);
      nn::dropout(dX, 0.4, 9, 3, gpu);
      nn::dropout(dY, dA, 0.4, 9, 4, gpu);
      EXPECT_EQ(gpu.transfers.device_to_host, before.device_to_host) << what;
      EXPECT_EQ(gpu.transfers.host_to_device, before.host_to_device) << what;

      DenseVector s(cols, Type::fp32);
      nn::column_sums(s, A, cpu);
      const DenseVector hs = ds.to(Location::host, gpu);
      for (Index j = 0; j < cols; ++j)
        ASSERT_NEAR(hs.values().as<float>()[j], s.values().as<float>()[j], 1e-5 * double(rows))
            << what;
      DenseMatrix G = G0, X = G0, Y(rows, cols, Type::fp32);
      nn::relu_backward(G, A, cpu);
      nn::dropout(X, 0.4, 9, 3, cpu);
      nn::dropout(Y, A, 0.4, 9, 4, cpu);
      expect_close(dG, G, 0, "relu_backward " + what);
      expect_close(dX, X, 0, "dropout " + what);  // the same generator: bit for bit
      expect_close(dY, Y, 0, "dropout out of place " + what);
    }
}

TEST_F(NnOpsGpu, SoftmaxCrossEntropyAccuracyAndAdamAgainstCpu) {
  poison_device_pool(64 << 20, gpu);
  for (Index classes : {Index(1), Index(3), Index(7), Index(40), Index(100)}) {
    const Index n = 5000;
    const std::string what = "classes " + std::to_string(classes);
    const DenseMatrix Z = nn_ref::random_dense(n, classes, Type::fp32, 7, -4, 4);
    std::vector<std::int32_t> labels(static_cast<std::size_t>(n)), rows;
    for (Index i = 0; i < n; ++i) labels[std::size_t(i)] = std::int32_t((i * 31) % classes);
    for (Index i = 0; i < n; i += 3) rows.push_back(std::int32_t(i));
    const DenseVector L = nn_ref::int32_vector(labels), R = nn_ref::int32_vector(rows);
    DenseMatrix G(n, classes, Type::fp32);
    DenseVector out(4, Type::fp32);
    nn::softmax_cross_entropy(&G, out, 1, Z, L, R, cpu);
    nn::accuracy(out, 2, Z, L, R, cpu);
    DenseMatrix dG = poisoned(n, classes);
    DenseVector dout = DenseVector(4, Type::fp32).to(Location::device, gpu);
    const DenseMatrix dZ = dev(Z);
    const DenseVector dL = dev(L), dR = dev(R);
    const TransferCounters before = gpu.transfers;
    nn::softmax_cross_entropy(&dG, dout, 1, dZ, dL, dR, gpu);
    nn::accuracy(dout, 2, dZ, dL, dR, gpu);
    EXPECT_EQ(gpu.transfers.device_to_host, before.device_to_host) << what;
    expect_close(dG, G, 1e-5, "gradient " + what);
    const DenseVector h = dout.to(Location::host, gpu);
    EXPECT_NEAR(h.values().as<float>()[1], out.values().as<float>()[1], 1e-4) << what;
    EXPECT_NEAR(h.values().as<float>()[2], out.values().as<float>()[2], 1e-5) << what;
  }
  // Adam: three steps on both executors.
  DenseMatrix W = nn_ref::random_dense(300, 20, Type::fp32, 8), m(300, 20, Type::fp32),
              v(300, 20, Type::fp32);
  DenseMatrix dW = dev(W), dm = dev(m), dv = dev(v);
  nn::AdamOptions o;
  o.weight_decay = 5e-4;
  for (Index t = 1; t <= 3; ++t) {
    const DenseMatrix Gt = nn_ref::random_dense(300, 20, Type::fp32, 10 + t);
    nn::adam_step(W, Gt, m, v, o, t, cpu);
    nn::adam_step(dW, dev(Gt), dm, dv, o, t, gpu);
  }
  expect_close(dW, W, 1e-5, "adam W");
  expect_close(dv, v, 1e-5, "adam v");
}

TEST_F(NnOpsGpu, VerifyBackendComparesEveryOutput) {
  Context verify(Backend::verify);
  const DenseMatrix Z = nn_ref::random_dense(50, 4, Type::fp32, 3);
  std::vector<std::int32_t> labels(50, 1);
  DenseMatrix G(50, 4, Type::fp32);
  DenseVector out(1, Type::fp32);
  EXPECT_NO_THROW(nn::softmax_cross_entropy(&G, out, 0, Z, nn_ref::int32_vector(labels),
                                            nn_ref::int32_vector({0, 5, 9}), verify));
  DenseMatrix W = nn_ref::random_dense(5, 5, Type::fp32, 4), m(5, 5, Type::fp32),
              v(5, 5, Type::fp32);
  EXPECT_NO_THROW(nn::adam_step(W, nn_ref::random_dense(5, 5, Type::fp32, 5), m, v, {}, 1, verify));
  DenseMatrix C(4, 4, Type::fp32);
  EXPECT_NO_THROW(nn::gemm(C, 1, nn_ref::random_dense(4, 3, Type::fp32, 6),
                           nn_ref::random_dense(3, 4, Type::fp32, 7), 0, {}, verify));
}

class GcnGpu : public GpuTest {};

std::vector<gcn::EpochStats> train_case(const GcnCase& gc, Context& ctx, bool sparse,
                                        double* test_acc) {
  gcn::Options o;
  o.seed = 5;
  o.epochs = 40;
  o.early_stopping = 0;
  const Matrix a_hat = gcn::normalized_adjacency(gc.adjacency, Type::fp32, ctx);
  const gcn::Features x = gcn::make_features(gc.features, Type::fp32, ctx, sparse ? 0 : 1 << 30);
  const gcn::Result r =
      gcn::train(a_hat, x, gc.labels, gc.classes, gc.train, gc.val, gc.test, o, ctx);
  *test_acc = r.test_acc;
  return r.history;
}

TEST_F(GcnGpu, CpuAndCudaGiveTheSameLossCurveForASeed) {
  const GcnCase gc = make_gcn_case(3000, 64, 5, 21);
  for (bool sparse : {false, true}) {
    Context cpu(Backend::cpu), gpu(Backend::cuda);
    double acc_cpu = 0, acc_gpu = 0;
    const auto a = train_case(gc, cpu, sparse, &acc_cpu), b = train_case(gc, gpu, sparse, &acc_gpu);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t e = 0; e < a.size(); ++e) {
      EXPECT_NEAR(a[e].train_loss, b[e].train_loss, 2e-3 * a[e].train_loss)
          << "epoch " << e << " sparse " << sparse;
      EXPECT_NEAR(a[e].val_loss, b[e].val_loss, 2e-3 * a[e].val_loss)
          << "epoch " << e << " sparse " << sparse;
    }
    EXPECT_NEAR(acc_cpu, acc_gpu, 0.01) << "sparse " << sparse;
  }
}

TEST_F(GcnGpu, CoraOnTheGpuReadsTheDeviceOncePerEpochAndReaches79Percent) {
  const std::string cora = std::string(RINGBLAS_DATA_DIR) + "/gcn/planetoid/cora";
  if (!std::filesystem::exists(cora)) GTEST_SKIP() << "Cora not found at " << cora;
  Context gpu(Backend::cuda);
  const planetoid::Dataset d = planetoid::read(cora);
  gcn::Options o;
  o.seed = 1;
  const Matrix a_hat = gcn::normalized_adjacency(d.adjacency, o.type, gpu);
  const gcn::Features x = gcn::make_features(d.features, o.type, gpu);
  std::uint64_t reads_at_first_epoch = 0;
  const std::uint64_t start = gpu.transfers.device_to_host;
  const gcn::Result r = gcn::train(a_hat, x, d.labels, d.classes, d.train, d.val, d.test, o, gpu,
                                   [&](const gcn::EpochStats& e) {
                                     if (e.epoch == 0)
                                       reads_at_first_epoch = gpu.transfers.device_to_host;
                                   });
  const std::uint64_t after_setup = reads_at_first_epoch - 1;  // the first epoch's own read
  const std::uint64_t per_epoch_reads = gpu.transfers.device_to_host - after_setup;
  std::printf(
      "Cora on the GPU, seed 1: %zu epochs, test accuracy %.4f, %llu device reads in "
      "training (setup %llu)\n",
      r.history.size(), r.test_acc, static_cast<unsigned long long>(per_epoch_reads),
      static_cast<unsigned long long>(after_setup - start));
  EXPECT_GE(r.test_acc, 0.79);
  EXPECT_EQ(per_epoch_reads, r.history.size() + 1);  // one per epoch and the test's
}

}  // namespace
}  // namespace ringblas::test
