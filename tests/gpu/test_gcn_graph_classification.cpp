// GPU tests of the batched GCN graph classifier: the cuda executor's loss curve, logits and
// masked sigmoid cross-entropy against the cpu executor's for a fixed seed.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "algorithms/gcn_graph_classification.hpp"
#include "algorithms/tu_dataset_io.hpp"
#include "ringblas/nn.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

class GraphGcnGpu : public GpuTest {};

TEST_F(GraphGcnGpu, SigmoidCrossEntropyMatchesCpu) {
  const Index rows = 300, cols = 12;
  DenseMatrix z = random_dense(rows, cols, Type::fp32, 4);
  std::vector<float> y(static_cast<std::size_t>(rows * cols));
  Rng rng(9);
  for (float& v : y) {
    const double u = rng.uniform();
    v = u < 0.2 ? std::numeric_limits<float>::quiet_NaN() : (u < 0.6 ? 0.0f : 1.0f);
  }
  const DenseMatrix yd = DenseMatrix::from_values(rows, cols, y);
  Context cpu(Backend::cpu), cuda(Backend::cuda);
  DenseMatrix g_cpu(rows, cols, Type::fp32);
  DenseVector l_cpu = DenseVector::from_values(std::vector<float>{0, 0, 0});
  nn::sigmoid_cross_entropy(&g_cpu, l_cpu, 2, z, yd, cpu);
  poison_device_pool(std::size_t(1) << 20, cuda);
  DenseMatrix g_dev = DenseMatrix(rows, cols, Type::fp32).to(Location::device, cuda);
  DenseVector l_dev =
      DenseVector::from_values(std::vector<float>{0, 0, 0}).to(Location::device, cuda);
  nn::sigmoid_cross_entropy(&g_dev, l_dev, 2, z.to(Location::device, cuda),
                            yd.to(Location::device, cuda), cuda);
  const DenseMatrix g = g_dev.to(Location::host, cuda);
  const DenseVector l = l_dev.to(Location::host, cuda);
  EXPECT_NEAR(l.values().as<float>()[2], l_cpu.values().as<float>()[2], 1e-5);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j)
      ASSERT_NEAR(g.at<float>(i, j), g_cpu.at<float>(i, j), 1e-7) << i << ", " << j;
}

TEST_F(GraphGcnGpu, Tox21LossCurveMatchesCpu) {
  const std::string dir = std::string(RINGBLAS_DATA_DIR) + "/molecules/tox21_graphs";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no Tox21 data at " << dir;
  const tu::Dataset ds = tu::read_dataset(dir);
  const DenseMatrix x = tu::one_hot_node_labels(ds);
  graph_gcn::Options o;
  o.dropout = 0.1;  // the counter-based masks are the same on both executors
  const graph_gcn::Split split = graph_gcn::random_split(ds.num_graphs, o.seed);
  // 1,024 training graphs keep the cpu side short; three epochs of 8 mini-batches.
  const std::vector<Index> train(split.train.begin(), split.train.begin() + 1024);
  Context cpu(Backend::cpu), cuda(Backend::cuda);
  graph_gcn::Model on_cpu(ds, x, o, cpu), on_gpu(ds, x, o, cuda);
  o.batch_objects = false;  // the GPU also with the graphs as items (the stacked form)
  graph_gcn::Model on_gpu_items(ds, x, o, cuda);
  for (Index e = 0; e < 3; ++e) {
    const auto order = graph_gcn::permutation(train, o.seed, 1 + e);
    const double a = on_cpu.train_epoch(order, e), b = on_gpu.train_epoch(order, e);
    EXPECT_NEAR(b, a, 1e-3 * std::abs(a)) << "epoch " << e;
    EXPECT_NEAR(on_gpu_items.train_epoch(order, e), a, 1e-3 * std::abs(a)) << "items, epoch " << e;
  }
  const std::vector<Index> probe(split.test.begin(), split.test.begin() + 200);
  const auto pa = on_cpu.predict(probe);
  for (graph_gcn::Model* m : {&on_gpu, &on_gpu_items}) {
    const auto pb = m->predict(probe);
    ASSERT_EQ(pa.size(), pb.size());
    for (std::size_t k = 0; k < pa.size(); ++k)
      ASSERT_NEAR(pb[k], pa[k], 2e-3 + 2e-3 * std::abs(pa[k])) << k;
  }
}

}  // namespace
}  // namespace ringblas::test
