// MaxK-GCN (algorithms/gcn.hpp, Options::maxk) on the GPU: the same loss curve as the cpu
// executor for a seed, no device reads beyond the training loop's one per epoch, and Cora.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "algorithms/gcn.hpp"
#include "algorithms/planetoid_io.hpp"
#include "support/gcn_cases.hpp"
#include "support/gpu_fixture.hpp"

namespace ringblas::test {
namespace {

class GcnMaxkGpu : public GpuTest {};

std::vector<gcn::EpochStats> train_maxk(const GcnCase& gc, Context& ctx, double* test_acc) {
  gcn::Options o;
  o.seed = 5;
  o.epochs = 40;
  o.early_stopping = 0;
  o.hidden = 64;
  o.maxk = 16;
  const Matrix a_hat = gcn::normalized_adjacency(gc.adjacency, Type::fp32, ctx);
  const gcn::Features x = gcn::make_features(gc.features, Type::fp32, ctx);
  const gcn::Result r =
      gcn::train(a_hat, x, gc.labels, gc.classes, gc.train, gc.val, gc.test, o, ctx);
  *test_acc = r.test_acc;
  return r.history;
}

// The GPU sums in another order (atomics), so a near-tie in a row of T can select differently;
// the curves still agree closely.
TEST_F(GcnMaxkGpu, CpuAndCudaGiveTheSameLossCurveForASeed) {
  const GcnCase gc = make_gcn_case(3000, 64, 5, 21);
  Context cpu(Backend::cpu), gpu(Backend::cuda);
  double acc_cpu = 0, acc_gpu = 0;
  const auto a = train_maxk(gc, cpu, &acc_cpu), b = train_maxk(gc, gpu, &acc_gpu);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t e = 0; e < a.size(); ++e) {
    EXPECT_NEAR(a[e].train_loss, b[e].train_loss, 5e-3 * a[e].train_loss) << "epoch " << e;
    EXPECT_NEAR(a[e].val_loss, b[e].val_loss, 5e-3 * a[e].val_loss) << "epoch " << e;
  }
  EXPECT_NEAR(acc_cpu, acc_gpu, 0.02);
}

TEST_F(GcnMaxkGpu, CoraReadsTheDeviceOncePerEpoch) {
  const std::string cora = std::string(RINGBLAS_DATA_DIR) + "/gcn/planetoid/cora";
  if (!std::filesystem::exists(cora)) GTEST_SKIP() << "Cora not found at " << cora;
  Context gpu(Backend::cuda);
  const planetoid::Dataset d = planetoid::read(cora);
  gcn::Options o;
  o.seed = 1;
  o.hidden = 64;
  o.maxk = 16;
  const Matrix a_hat = gcn::normalized_adjacency(d.adjacency, o.type, gpu);
  const gcn::Features x = gcn::make_features(d.features, o.type, gpu);
  std::uint64_t reads_at_first_epoch = 0;
  const gcn::Result r = gcn::train(a_hat, x, d.labels, d.classes, d.train, d.val, d.test, o, gpu,
                                   [&](const gcn::EpochStats& e) {
                                     if (e.epoch == 0)
                                       reads_at_first_epoch = gpu.transfers.device_to_host;
                                   });
  const std::uint64_t per_epoch_reads = gpu.transfers.device_to_host - (reads_at_first_epoch - 1);
  std::printf("MaxK-GCN (hidden 64, k 16) on Cora, GPU, seed 1: %zu epochs, test accuracy %.4f\n",
              r.history.size(), r.test_acc);
  EXPECT_GE(r.test_acc, 0.75);
  EXPECT_EQ(per_epoch_reads, r.history.size() + 1);
}

}  // namespace
}  // namespace ringblas::test
