// MaxK-GCN (algorithms/gcn.hpp with Options::maxk, MaxK-GNN's Linear -> MaxK -> aggregation in
// the hidden layers) on the cpu executor: every parameter's gradient against central finite
// differences in fp32, the options it refuses, and training on a small graph.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "algorithms/gcn.hpp"
#include "ringblas/error.hpp"
#include "support/gcn_cases.hpp"

namespace ringblas::test {
namespace {

struct MaxkCase {
  Index layers;
  double dropout;
  int k;
};

class GcnMaxkGradient : public testing::TestWithParam<MaxkCase> {};
INSTANTIATE_TEST_SUITE_P(Layers, GcnMaxkGradient,
                         testing::Values(MaxkCase{2, 0.0, 3}, MaxkCase{2, 0.5, 1},
                                         MaxkCase{3, 0.3, 8}),
                         [](const auto& info) {
                           return "L" + std::to_string(info.param.layers) + "_k" +
                                  std::to_string(info.param.k) +
                                  (info.param.dropout > 0 ? "_dropout" : "");
                         });

/// Backward's gradients against (loss(θ+h) − loss(θ−h)) / 2h in fp32 (h = 1e-3). MaxK is
/// continuous and piecewise linear: where the two one-sided differences disagree the step
/// crossed a change of the top-k selection (a kink, no derivative there) and the parameter is
/// skipped; at most a fifth of them may be.
TEST_P(GcnMaxkGradient, EveryParameterAgainstCentralDifferences) {
  const MaxkCase p = GetParam();
  Context ctx(Backend::cpu);
  const GcnCase gc = make_gcn_case(16, 6, 3, 5);
  gcn::Options o;
  o.type = Type::fp32;
  o.layers = p.layers;
  o.hidden = 8;
  o.maxk = p.k;
  o.dropout = p.dropout;
  o.seed = 3;
  const Matrix a_hat = gcn::normalized_adjacency(gc.adjacency, Type::fp32, ctx);
  const gcn::Features x = gcn::make_features(gc.features, Type::fp32, ctx, 1 << 20);
  gcn::Model model(a_hat, x, gc.classes, o, ctx);
  for (auto& b : model.biases())
    for (Index j = 0; j < b.size(); ++j) b.values().as<float>()[j] = 0.1f * float(j + 1) - 0.15f;
  const DenseVector labels = DenseVector::from_values(gc.labels);
  const DenseVector rows = DenseVector::from_values(gc.train);
  DenseVector stats(2, Type::fp32);
  const Index epoch = 2;
  auto loss = [&] {
    model.forward(true, epoch);
    model.loss(stats, 0, 1, labels, rows, false);
    return double(stats.values().as<float>()[0]);
  };
  model.forward(true, epoch);
  model.loss(stats, 0, 1, labels, rows, true);
  model.backward(true, epoch);
  const std::vector<DenseMatrix> dw = model.weight_gradients();
  const std::vector<DenseVector> db = model.bias_gradients();
  const float h = 1e-3f;
  int checked = 0, kinks = 0;
  for (Index l = 0; l < model.layers(); ++l) {
    auto check = [&](float* theta, Index count, const float* grad, const std::string& what) {
      for (Index e = 0; e < count; ++e) {
        const float keep = theta[e];
        const double mid = loss();
        theta[e] = keep + h;
        const double up = loss();
        theta[e] = keep - h;
        const double down = loss();
        theta[e] = keep;
        const double step = double(keep + h) - double(keep - h);
        const double fd = (up - down) / step;
        const double right = (up - mid) / (step / 2), left = (mid - down) / (step / 2);
        if (std::abs(right - left) > 2e-3 + 0.05 * std::abs(fd)) {
          ++kinks;
          continue;
        }
        ++checked;
        EXPECT_NEAR(grad[e], fd, 2e-3 + 0.03 * std::abs(fd)) << what << "[" << e << "]";
      }
    };
    DenseMatrix& w = model.weights()[std::size_t(l)];
    check(w.values().as<float>(), w.nrows() * w.ncols(), dw[std::size_t(l)].values().as<float>(),
          "W" + std::to_string(l));
    DenseVector& b = model.biases()[std::size_t(l)];
    check(b.values().as<float>(), b.size(), db[std::size_t(l)].values().as<float>(),
          "b" + std::to_string(l));
  }
  EXPECT_GT(checked, 4 * kinks) << checked << " checked, " << kinks << " at kinks";
}

TEST(GcnMaxk, RefusedOptions) {
  Context ctx(Backend::cpu);
  const GcnCase gc = make_gcn_case(10, 4, 2, 1);
  const Matrix a32 = gcn::normalized_adjacency(gc.adjacency, Type::fp32, ctx);
  const gcn::Features x32 = gcn::make_features(gc.features, Type::fp32, ctx);
  gcn::Options o;
  o.hidden = 8;
  o.maxk = 9;  // more than hidden
  EXPECT_THROW(gcn::Model(a32, x32, 2, o, ctx), InvalidValue);
  o.maxk = 4;
  o.layers = 1;  // no hidden layer
  EXPECT_THROW(gcn::Model(a32, x32, 2, o, ctx), InvalidValue);
  o.layers = 2;
  o.hidden = 300;  // CBSR's 8-bit columns
  o.maxk = 4;
  EXPECT_THROW(gcn::Model(a32, x32, 2, o, ctx), NotImplemented);
  o.hidden = 8;
  o.type = Type::fp64;
  const Matrix a64 = gcn::normalized_adjacency(gc.adjacency, Type::fp64, ctx);
  const gcn::Features x64 = gcn::make_features(gc.features, Type::fp64, ctx);
  EXPECT_THROW(gcn::Model(a64, x64, 2, o, ctx), NotImplemented);
}

}  // namespace
}  // namespace ringblas::test
