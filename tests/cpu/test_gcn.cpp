// GCN (algorithms/gcn.hpp) on the cpu executor: Â against its formula, every parameter's
// gradient against central finite differences (fp64, with and without dropout, sparse and dense
// features, 1 to 3 layers), determinism for a seed, the options it refuses, and Cora's accuracy
// (GcnCoraSlow: about a minute on 2 cores, excluded from the quick test run).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "algorithms/gcn.hpp"
#include "algorithms/planetoid_io.hpp"
#include "ringblas/error.hpp"
#include "support/gcn_cases.hpp"

namespace ringblas::test {
namespace {

TEST(GcnAdjacency, NormalisedAdjacencyMatchesItsFormula) {
  Context ctx(Backend::cpu);
  const GcnCase gc = make_gcn_case(9, 3, 2, 1);
  const Matrix a_hat = gcn::normalized_adjacency(gc.adjacency, Type::fp64, ctx);
  const Index n = 9;
  std::vector<double> a(std::size_t(n * n), 0.0), deg(std::size_t(n), 0.0);
  const auto rp = gc.adjacency.row_ptr_vector(), ci = gc.adjacency.col_idx_vector();
  for (Index i = 0; i < n; ++i)
    for (Index k = rp[std::size_t(i)]; k < rp[std::size_t(i + 1)]; ++k)
      a[std::size_t(i * n + ci[std::size_t(k)])] = 1.0;
  for (Index i = 0; i < n; ++i) a[std::size_t(i * n + i)] = 1.0;  // A + I, self-loop kept at 1
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j) deg[std::size_t(i)] += a[std::size_t(i * n + j)];
  const auto hp = a_hat.row_ptr_vector(), hc = a_hat.col_idx_vector();
  const auto hv = a_hat.values_vector<double>();
  std::vector<double> got(std::size_t(n * n), 0.0);
  for (Index i = 0; i < n; ++i)
    for (Index k = hp[std::size_t(i)]; k < hp[std::size_t(i + 1)]; ++k)
      got[std::size_t(i * n + hc[std::size_t(k)])] = hv[std::size_t(k)];
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j)
      EXPECT_NEAR(got[std::size_t(i * n + j)],
                  a[std::size_t(i * n + j)] / std::sqrt(deg[std::size_t(i)] * deg[std::size_t(j)]),
                  1e-14)
          << i << "," << j;
  EXPECT_EQ(a_hat.nnz(), Index(gc.adjacency.nnz() + n - 1));  // one self-loop existed
}

TEST(GcnAdjacency, RowNormaliseKeepsEmptyRowsEmpty) {
  Context ctx(Backend::cpu);
  const GcnCase gc = make_gcn_case(7, 4, 2, 2);
  const gcn::Features f = gcn::make_features(gc.features, Type::fp64, ctx);
  ASSERT_FALSE(f.sparse);
  const auto rp = gc.features.row_ptr_vector();
  int empty = 0;
  for (Index i = 0; i < 7; ++i) {
    double s = 0;
    for (Index j = 0; j < 4; ++j) s += f.dense.at<double>(i, j);
    const bool has = rp[std::size_t(i + 1)] > rp[std::size_t(i)];
    empty += !has;
    EXPECT_NEAR(s, has ? 1.0 : 0.0, 1e-14) << i;
  }
  EXPECT_GE(empty, 1);  // row 0 has no features
  const gcn::Features sp = gcn::make_features(gc.features, Type::fp64, ctx, 0);
  EXPECT_TRUE(sp.sparse);
  EXPECT_EQ(sp.matrix.nnz(), gc.features.nnz());
}

struct GradCase {
  Index layers;
  double dropout;
  bool sparse_features;
  bool aggregate_first = false;  ///< the first layer as (Â·Xd)·W_0 (Options::first_layer)
};

class GcnGradient : public testing::TestWithParam<GradCase> {};
INSTANTIATE_TEST_SUITE_P(Layers, GcnGradient,
                         testing::Values(GradCase{1, 0.0, false}, GradCase{2, 0.0, false},
                                         GradCase{2, 0.5, false}, GradCase{2, 0.5, true},
                                         GradCase{3, 0.3, false}, GradCase{2, 0.0, false, true},
                                         GradCase{2, 0.5, false, true},
                                         GradCase{3, 0.3, false, true}),
                         [](const auto& info) {
                           return "L" + std::to_string(info.param.layers) +
                                  (info.param.dropout > 0 ? "_dropout" : "") +
                                  (info.param.sparse_features ? "_sparse" : "_dense") +
                                  (info.param.aggregate_first ? "_aggregate_first" : "");
                         });

/// Every weight's and bias's gradient (backward) against (loss(θ+h) − loss(θ−h)) / 2h with the
/// same dropout masks: checks each layer's forward and backward, bias, ReLU, dropout, softmax
/// cross-entropy and the whole network's chain together.
TEST_P(GcnGradient, EveryParameterAgainstCentralDifferences) {
  const GradCase p = GetParam();
  Context ctx(Backend::cpu);
  const GcnCase gc = make_gcn_case(14, 5, 3, 7);
  gcn::Options o;
  o.type = Type::fp64;
  o.layers = p.layers;
  o.hidden = 4;
  o.dropout = p.dropout;
  o.seed = 11;
  // 5 features > 4 hidden: automatic transforms first; the other order is forced.
  o.first_layer = p.aggregate_first ? gcn::Options::FirstLayer::aggregate_first
                                    : gcn::Options::FirstLayer::automatic;
  const Matrix a_hat = gcn::normalized_adjacency(gc.adjacency, Type::fp64, ctx);
  const gcn::Features x =
      gcn::make_features(gc.features, Type::fp64, ctx, p.sparse_features ? 0 : 1 << 20);
  ASSERT_EQ(x.sparse, p.sparse_features);
  gcn::Model model(a_hat, x, gc.classes, o, ctx);
  // Biases start at zero; give them values so that their gradients are tested away from 0.
  for (auto& b : model.biases())
    for (Index j = 0; j < b.size(); ++j) b.values().as<double>()[j] = 0.1 * double(j + 1) - 0.15;
  const DenseVector labels = DenseVector::from_values(gc.labels);
  const DenseVector rows = DenseVector::from_values(gc.train);
  DenseVector stats(2, Type::fp64);
  const Index epoch = 3;
  auto loss = [&] {
    model.forward(true, epoch);
    model.loss(stats, 0, 1, labels, rows, false);
    return stats.values().as<double>()[0];
  };
  model.forward(true, epoch);
  model.loss(stats, 0, 1, labels, rows, true);
  model.backward(true, epoch);
  const std::vector<DenseMatrix> dw = model.weight_gradients();
  const std::vector<DenseVector> db = model.bias_gradients();
  const double h = 1e-6;
  int checked = 0;
  double largest = 0;
  for (Index l = 0; l < model.layers(); ++l) {
    auto check = [&](double* theta, Index count, const double* grad, const std::string& what) {
      for (Index e = 0; e < count; ++e) {
        const double keep = theta[e];
        theta[e] = keep + h;
        const double up = loss();
        theta[e] = keep - h;
        const double down = loss();
        theta[e] = keep;
        const double fd = (up - down) / (2 * h);
        EXPECT_NEAR(grad[e], fd, 1e-7 + 1e-5 * std::fabs(fd)) << what << " element " << e;
        largest = std::max(largest, std::fabs(fd));
        ++checked;
      }
    };
    DenseMatrix& W = model.weights()[std::size_t(l)];
    check(W.values().as<double>(), W.nrows() * W.ncols(), dw[std::size_t(l)].values().as<double>(),
          "W" + std::to_string(l));
    DenseVector& b = model.biases()[std::size_t(l)];
    check(b.values().as<double>(), b.size(), db[std::size_t(l)].values().as<double>(),
          "b" + std::to_string(l));
  }
  EXPECT_GE(checked, 18);    // 1 layer: 5 x 3 weights and 3 biases
  EXPECT_GT(largest, 1e-3);  // the gradients are not all ~0 (a test that could not fail)
}

std::vector<gcn::EpochStats> run(const GcnCase& gc, std::uint64_t seed, Index epochs) {
  Context ctx(Backend::cpu);
  gcn::Options o;
  o.seed = seed;
  o.epochs = epochs;
  o.early_stopping = 0;
  const Matrix a_hat = gcn::normalized_adjacency(gc.adjacency, Type::fp32, ctx);
  const gcn::Features x = gcn::make_features(gc.features, Type::fp32, ctx);
  return gcn::train(a_hat, x, gc.labels, gc.classes, gc.train, gc.val, gc.test, o, ctx).history;
}

TEST(GcnTraining, DeterministicForASeedAndTheLossFalls) {
  const GcnCase gc = make_gcn_case(60, 12, 3, 5);
  const auto a = run(gc, 3, 30), b = run(gc, 3, 30), c = run(gc, 4, 30);
  ASSERT_EQ(a.size(), 30u);
  for (std::size_t e = 0; e < a.size(); ++e) {
    EXPECT_EQ(a[e].train_loss, b[e].train_loss) << e;
    EXPECT_EQ(a[e].val_loss, b[e].val_loss) << e;
  }
  EXPECT_NE(a[0].train_loss, c[0].train_loss);
  EXPECT_LT(a.back().train_loss, a.front().train_loss - 0.05);
}

TEST(GcnTraining, AcceptsMaxKAndRefusesBadOptions) {
  Context ctx(Backend::cpu);
  const GcnCase gc = make_gcn_case(8, 3, 2, 9);
  const Matrix a_hat = gcn::normalized_adjacency(gc.adjacency, Type::fp32, ctx);
  const gcn::Features x = gcn::make_features(gc.features, Type::fp32, ctx);
  gcn::Options o;
  o.maxk = 4;  // MaxK-GCN: tests/cpu/test_gcn_maxk.cpp
  EXPECT_NO_THROW(gcn::Model(a_hat, x, 2, o, ctx));
  o.maxk = 0;
  o.dropout = 1.0;
  EXPECT_THROW(gcn::Model(a_hat, x, 2, o, ctx), InvalidValue);
  o.dropout = 0.5;
  o.layers = 0;
  EXPECT_THROW(gcn::Model(a_hat, x, 2, o, ctx), InvalidValue);
}

/// (Â·Xd)·W_0 and Â·(Xd·W_0) are one model: the same loss curve in fp64 up to rounding, with
/// dropout (the fused bias_relu_dropout draws the mask the unfused dropout draws).
TEST(GcnTraining, AggregateFirstAndTransformFirstGiveTheSameLossCurve) {
  Context ctx(Backend::cpu);
  const GcnCase gc = make_gcn_case(60, 12, 3, 5);
  auto curve = [&](gcn::Options::FirstLayer order, Index layers) {
    gcn::Options o;
    o.type = Type::fp64;
    o.seed = 2;
    o.epochs = 15;
    o.layers = layers;
    o.early_stopping = 0;
    o.first_layer = order;
    const Matrix a_hat = gcn::normalized_adjacency(gc.adjacency, Type::fp64, ctx);
    const gcn::Features x = gcn::make_features(gc.features, Type::fp64, ctx);
    return gcn::train(a_hat, x, gc.labels, gc.classes, gc.train, gc.val, gc.test, o, ctx);
  };
  using FL = gcn::Options::FirstLayer;
  for (Index layers : {Index(2), Index(3)}) {
    const gcn::Result a = curve(FL::aggregate_first, layers);
    const gcn::Result b = curve(FL::transform_first, layers);
    ASSERT_EQ(a.history.size(), b.history.size());
    for (std::size_t e = 0; e < a.history.size(); ++e) {
      EXPECT_NEAR(a.history[e].train_loss, b.history[e].train_loss, 1e-9) << e;
      EXPECT_NEAR(a.history[e].val_loss, b.history[e].val_loss, 1e-9) << e;
    }
    EXPECT_LT(a.history.back().train_loss, a.history.front().train_loss - 0.05);
    EXPECT_NEAR(a.test_acc, b.test_acc, 1e-12);
  }
}

TEST(GcnTraining, AggregateFirstRefusedWhereItCannotApply) {
  Context ctx(Backend::cpu);
  const GcnCase gc = make_gcn_case(8, 3, 2, 9);
  const Matrix a_hat = gcn::normalized_adjacency(gc.adjacency, Type::fp32, ctx);
  const gcn::Features dense = gcn::make_features(gc.features, Type::fp32, ctx);
  const gcn::Features sparse = gcn::make_features(gc.features, Type::fp32, ctx, 0);
  gcn::Options o;
  o.first_layer = gcn::Options::FirstLayer::aggregate_first;
  EXPECT_NO_THROW(gcn::Model(a_hat, dense, 2, o, ctx));
  EXPECT_THROW(gcn::Model(a_hat, sparse, 2, o, ctx), NotImplemented);
  o.maxk = 2;
  EXPECT_THROW(gcn::Model(a_hat, dense, 2, o, ctx), NotImplemented);
  o.maxk = 0;
  o.layers = 1;
  EXPECT_THROW(gcn::Model(a_hat, dense, 2, o, ctx), NotImplemented);
}

const std::string kCora = std::string(RINGBLAS_DATA_DIR) + "/gcn/planetoid/cora";

/// Kipf & Welling report 81.5% on Cora; the issue asks for >= 79% for a fixed seed on the cpu.
TEST(GcnCoraSlow, ReachesAtLeast79PercentTestAccuracyOnTheCpu) {
  if (!std::filesystem::exists(kCora)) GTEST_SKIP() << "Cora not found at " << kCora;
  Context ctx(Backend::cpu);
  const planetoid::Dataset d = planetoid::read(kCora);
  ASSERT_EQ(d.adjacency.nrows(), 2708);
  ASSERT_EQ(d.classes, 7);
  gcn::Options o;
  o.seed = 1;
  const Matrix a_hat = gcn::normalized_adjacency(d.adjacency, o.type, ctx);
  const gcn::Features x = gcn::make_features(d.features, o.type, ctx);
  const gcn::Result r = gcn::train(a_hat, x, d.labels, d.classes, d.train, d.val, d.test, o, ctx);
  std::printf("Cora, seed 1: %zu epochs, test accuracy %.4f\n", r.history.size(), r.test_acc);
  EXPECT_GE(r.test_acc, 0.79);
  EXPECT_GT(r.history.size(), 20u);
}

}  // namespace
}  // namespace ringblas::test
