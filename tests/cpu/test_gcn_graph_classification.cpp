// Batched GCN graph classification on the cpu executor: the masked sigmoid cross-entropy and the
// whole network's gradients against central finite differences (fp64), batching that does not
// change any graph's logits, the seeded split, and (GraphGcnTox21Slow) a short Tox21 training.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "algorithms/gcn.hpp"
#include "algorithms/gcn_graph_classification.hpp"
#include "algorithms/tu_dataset_io.hpp"
#include "ringblas/error.hpp"
#include "ringblas/nn.hpp"
#include "ringblas/ops.hpp"

namespace {

using namespace ringblas;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::string kRepoTu = std::string(RINGBLAS_REPO_DATA_DIR) + "/tu";
const std::string kShared = RINGBLAS_DATA_DIR;

double sigmoid_ce_naive(const std::vector<double>& z, const std::vector<double>& y) {
  double sum = 0;
  int present = 0;
  for (std::size_t k = 0; k < z.size(); ++k) {
    if (std::isnan(y[k])) continue;
    const double p = 1.0 / (1.0 + std::exp(-z[k]));
    sum += -(y[k] * std::log(p) + (1 - y[k]) * std::log(1 - p));
    ++present;
  }
  return present ? sum / present : 0.0;
}

double loss_of(const std::vector<double>& z, const std::vector<double>& y, Index rows, Index cols,
               DenseMatrix* g, Context& ctx) {
  DenseVector out = DenseVector::from_values(std::vector<double>{0.0, 0.0});
  nn::sigmoid_cross_entropy(g, out, 1, DenseMatrix::from_values(rows, cols, z),
                            DenseMatrix::from_values(rows, cols, y), ctx);
  return out.values().as<double>()[1];
}

TEST(SigmoidCrossEntropy, LossAndGradientAgainstFiniteDifferences) {
  Context ctx(Backend::cpu);
  const Index rows = 3, cols = 4;
  std::vector<double> z{0.3, -1.2, 2.5, 0.0, -0.7, 4.0, -3.5, 1.1, 0.05, -0.2, 0.9, -8.0};
  const std::vector<double> y{1, 0, kNaN, 1, 0, kNaN, 1, 0, 1, 1, kNaN, 0};
  DenseMatrix g(rows, cols, Type::fp64);
  const double loss = loss_of(z, y, rows, cols, &g, ctx);
  EXPECT_NEAR(loss, sigmoid_ce_naive(z, y), 1e-12);
  const double h = 1e-6;
  for (std::size_t k = 0; k < z.size(); ++k) {
    std::vector<double> zp(z), zm(z);
    zp[k] += h;
    zm[k] -= h;
    const double fd = (sigmoid_ce_naive(zp, y) - sigmoid_ce_naive(zm, y)) / (2 * h);
    EXPECT_NEAR(g.at<double>(Index(k) / cols, Index(k) % cols), fd, 1e-8) << "element " << k;
    if (std::isnan(y[k])) EXPECT_EQ(g.at<double>(Index(k) / cols, Index(k) % cols), 0.0);
  }
}

TEST(SigmoidCrossEntropy, LargeLogitsStayFinite) {
  Context ctx(Backend::cpu);
  const std::vector<double> z{80.0, -80.0, 800.0, -800.0}, y{0, 1, 1, 0};
  DenseMatrix g(1, 4, Type::fp64);
  const double loss = loss_of(z, y, 1, 4, &g, ctx);
  EXPECT_NEAR(loss, (80.0 + 80.0 + 0 + 0) / 4, 1e-9);
  for (Index j = 0; j < 4; ++j) EXPECT_TRUE(std::isfinite(g.at<double>(0, j)));
}

TEST(SigmoidCrossEntropy, AllMissingGivesZero) {
  Context ctx(Backend::cpu);
  DenseMatrix g(1, 2, Type::fp64);
  EXPECT_EQ(loss_of({1.0, -2.0}, {kNaN, kNaN}, 1, 2, &g, ctx), 0.0);
  EXPECT_EQ(g.at<double>(0, 0), 0.0);
  EXPECT_EQ(g.at<double>(0, 1), 0.0);
}

TEST(SigmoidCrossEntropy, RejectsShapeMismatch) {
  Context ctx(Backend::cpu);
  DenseVector out = DenseVector::from_values(std::vector<double>{0.0});
  EXPECT_THROW(nn::sigmoid_cross_entropy(nullptr, out, 0, DenseMatrix(2, 3, Type::fp64),
                                         DenseMatrix(3, 2, Type::fp64), ctx),
               DimensionMismatch);
  EXPECT_THROW(nn::sigmoid_cross_entropy(nullptr, out, 1, DenseMatrix(2, 3, Type::fp64),
                                         DenseMatrix(2, 3, Type::fp64), ctx),
               InvalidIndex);
}

TEST(GraphGcnSplit, EightyTenTenAndDeterministic) {
  const graph_gcn::Split s = graph_gcn::random_split(1001, 5);
  EXPECT_EQ(s.train.size(), 800u);
  EXPECT_EQ(s.val.size(), 100u);
  EXPECT_EQ(s.test.size(), 101u);
  std::set<Index> all(s.train.begin(), s.train.end());
  all.insert(s.val.begin(), s.val.end());
  all.insert(s.test.begin(), s.test.end());
  EXPECT_EQ(all.size(), 1001u);
  EXPECT_EQ(*all.begin(), 0);
  EXPECT_EQ(*all.rbegin(), 1000);
  EXPECT_EQ(graph_gcn::random_split(1001, 5).test, s.test);
  EXPECT_NE(graph_gcn::random_split(1001, 6).test, s.test);
  const auto p = graph_gcn::permutation(s.train, 5, 1);
  EXPECT_EQ(std::multiset<Index>(p.begin(), p.end()),
            std::multiset<Index>(s.train.begin(), s.train.end()));
  EXPECT_NE(p, s.train);
}

/// The toy multi-task set (3 graphs, one of a single atom) with one-hot features.
struct Toy {
  tu::Dataset ds = tu::read_dataset(kRepoTu + "/toy_multitask");
  DenseMatrix x = tu::one_hot_node_labels(ds);
};

/// The toy set and a cpu context (the GraphGcnModel tests).
class GraphGcnModel : public ::testing::Test {
 protected:
  Toy toy;
  Context ctx{Backend::cpu};
};

graph_gcn::Options small_options(Type t) {
  graph_gcn::Options o;
  o.hidden = 5;
  o.layers = 2;
  o.batch_size = 2;
  o.type = t;
  o.seed = 3;
  return o;
}

TEST_F(GraphGcnModel, GradientsAgainstFiniteDifferences) {
  graph_gcn::Options o = small_options(Type::fp64);
  o.layers = 3;
  graph_gcn::Model model(toy.ds, toy.x, o, ctx);
  // Biases away from 0 so that the ReLUs are not all at their kink.
  for (DenseVector& b : model.biases())
    for (Index j = 0; j < b.size(); ++j) b.values().as<double>()[j] = 0.1 * double(j % 3) - 0.05;
  const std::vector<Index> ids{0, 1, 2};
  model.loss_and_gradients(ids);
  const std::vector<DenseMatrix> gw = model.weight_gradients();
  const std::vector<DenseVector> gb = model.bias_gradients();
  const double h = 1e-6;
  auto fd = [&](double* p) {
    const double keep = *p;
    *p = keep + h;
    const double up = model.loss_and_gradients(ids);
    *p = keep - h;
    const double down = model.loss_and_gradients(ids);
    *p = keep;
    return (up - down) / (2 * h);
  };
  for (std::size_t l = 0; l < gw.size(); ++l) {
    double* w = model.weights()[l].values().as<double>();
    const Index cells = gw[l].nrows() * gw[l].ncols();
    for (Index k = 0; k < cells; ++k)
      EXPECT_NEAR(gw[l].values().as<double>()[k], fd(w + k), 1e-7) << "W" << l << "[" << k << "]";
    double* b = model.biases()[l].values().as<double>();
    for (Index k = 0; k < gb[l].size(); ++k)
      EXPECT_NEAR(gb[l].values().as<double>()[k], fd(b + k), 1e-7) << "b" << l << "[" << k << "]";
  }
}

TEST_F(GraphGcnModel, BatchingDoesNotChangeLogits) {
  // The same graphs in one batch, in batches of one, and in another order: identical logits
  // per graph (mxm_batched over a mini-batch equals each graph through the single-graph path).
  graph_gcn::Options o = small_options(Type::fp64);
  graph_gcn::Model model(toy.ds, toy.x, o, ctx);
  o.batch_size = 1;
  graph_gcn::Model single(toy.ds, toy.x, o, ctx);  // same seed: same weights
  const auto together = model.predict({0, 1, 2});
  const auto alone = single.predict({0, 1, 2});
  const auto reversed = model.predict({2, 1, 0});
  const auto repeated = model.predict({1, 1, 0});  // a graph twice in one batch
  const Index t = model.num_tasks();
  ASSERT_EQ(together.size(), 3u * t);
  for (Index g = 0; g < 3; ++g)
    for (Index k = 0; k < t; ++k) {
      EXPECT_NEAR(together[g * t + k], alone[g * t + k], 1e-6);
      EXPECT_NEAR(together[g * t + k], reversed[(2 - g) * t + k], 1e-6);
    }
  for (Index k = 0; k < t; ++k) {
    EXPECT_NEAR(repeated[0 * t + k], together[1 * t + k], 1e-6);
    EXPECT_NEAR(repeated[1 * t + k], together[1 * t + k], 1e-6);
    EXPECT_NEAR(repeated[2 * t + k], together[0 * t + k], 1e-6);
  }
  EXPECT_EQ(model.predict({0, 1, 2}), together);  // every lent matrix came back
}

TEST_F(GraphGcnModel, BatchedLayerMatchesSingleGraphPath) {
  // One GCN layer ReLU(Â H + b) of a mini-batch through mxm_batched on the per-graph blocks of the
  // whole set's Â, against each graph alone: Â_g from gcn::normalized_adjacency of its own
  // adjacency and the single-graph dense mxm with the same epilogue.
  const std::string mutag = kShared + "/molecules/tudataset/MUTAG";
  const tu::Dataset ds =
      tu::read_dataset(std::filesystem::exists(mutag) ? mutag : kRepoTu + "/toy_multitask");
  const Semiring s = semiring("plus_times", Type::fp64);
  const std::vector<Matrix> blocks = graph_gcn::normalized_blocks(ds, Type::fp64, ctx);
  const std::vector<Matrix> raw = tu::graph_blocks(ds.adjacency, ds.graph_ptr);
  const Index graphs = std::min<Index>(ds.num_graphs, 40), width = 3;
  const Index nodes = ds.graph_ptr[graphs];
  std::vector<double> h(static_cast<std::size_t>(nodes * width));
  for (std::size_t k = 0; k < h.size(); ++k) h[k] = std::sin(0.7 * double(k)) - 0.1;
  const DenseMatrix H = DenseMatrix::from_values(nodes, width, h);
  const DenseVector bias = DenseVector::from_values(std::vector<double>{0.05, -0.2, 0.0});
  DenseMatrix C(nodes, width, Type::fp64);
  mxm_batched(C, s, std::vector<Matrix>(blocks.begin(), blocks.begin() + graphs), H,
              Epilogue::bias_relu(bias), {}, ctx);
  for (Index g = 0; g < graphs; ++g) {
    const Index lo = ds.graph_ptr[g], n = ds.graph_ptr[g + 1] - lo;
    const Matrix a_hat = gcn::normalized_adjacency(raw[g], Type::fp64, ctx);
    std::vector<double> hg(h.begin() + lo * width, h.begin() + (lo + n) * width);
    DenseMatrix cg(n, width, Type::fp64);
    mxm(cg, s, a_hat, DenseMatrix::from_values(n, width, hg), Epilogue::bias_relu(bias), {}, ctx);
    for (Index i = 0; i < n; ++i)
      for (Index j = 0; j < width; ++j)
        ASSERT_NEAR(C.at<double>(lo + i, j), cg.at<double>(i, j), 1e-12) << "graph " << g;
  }
}

TEST_F(GraphGcnModel, BatchObjectsGiveTheSameTraining) {
  // Options::batch_objects (each mini-batch's MatrixBatch objects) against the graphs as items:
  // the same losses, weights and logits, bit for bit (one block-diagonal SpMM either way on the
  // cpu), a repeated graph included.
  graph_gcn::Options o = small_options(Type::fp32);
  o.lr = 0.05;
  graph_gcn::Model objects(toy.ds, toy.x, o, ctx);
  o.batch_objects = false;
  graph_gcn::Model items(toy.ds, toy.x, o, ctx);
  for (Index e = 0; e < 5; ++e)
    EXPECT_EQ(objects.train_epoch({2, 0, 1, 1}, e), items.train_epoch({2, 0, 1, 1}, e)) << e;
  for (std::size_t l = 0; l < objects.weights().size(); ++l) {
    const DenseMatrix &a = objects.weights()[l], &b = items.weights()[l];
    const float *x = a.values().as<float>(), *y = b.values().as<float>();
    EXPECT_EQ(std::vector<float>(x, x + a.nrows() * a.ncols()),
              std::vector<float>(y, y + b.nrows() * b.ncols()))
        << "W" << l;
  }
  EXPECT_EQ(objects.predict({0, 1, 2, 0}), items.predict({0, 1, 2, 0}));
}

TEST_F(GraphGcnModel, TrainingLowersTheLoss) {
  graph_gcn::Options o = small_options(Type::fp32);
  o.lr = 0.05;
  graph_gcn::Model model(toy.ds, toy.x, o, ctx);
  const double first = model.train_epoch({0, 1, 2}, 0);
  double last = first;
  for (Index e = 1; e < 40; ++e) last = model.train_epoch({0, 1, 2}, e);
  EXPECT_LT(last, 0.5 * first);
}

TEST_F(GraphGcnModel, RejectsBadInput) {
  graph_gcn::Options o = small_options(Type::fp32);
  o.layers = 0;
  EXPECT_THROW(graph_gcn::Model(toy.ds, toy.x, o, ctx), InvalidValue);
  o = small_options(Type::fp32);
  o.dropout = 1.0;
  EXPECT_THROW(graph_gcn::Model(toy.ds, toy.x, o, ctx), InvalidValue);
  EXPECT_THROW(
      graph_gcn::Model(toy.ds, DenseMatrix(2, 4, Type::fp32), small_options(Type::fp32), ctx),
      InvalidValue);
  tu::Dataset directed = toy.ds;
  directed.symmetric = false;
  EXPECT_THROW(graph_gcn::Model(directed, toy.x, small_options(Type::fp32), ctx), InvalidValue);
}

TEST(GraphGcnTox21Slow, ReachesRocAucFloor) {
  const std::string dir = kShared + "/molecules/tox21_graphs";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no Tox21 data at " << dir;
  const tu::Dataset ds = tu::read_dataset(dir);
  const DenseMatrix x = tu::one_hot_node_labels(ds);
  graph_gcn::Options o;
  o.epochs = 6;
  o.lr = 0.01;
  Context ctx(Backend::cpu);
  const graph_gcn::Split split = graph_gcn::random_split(ds.num_graphs, o.seed);
  graph_gcn::Model model(ds, x, o, ctx);
  Index best = -1;
  const auto stats = graph_gcn::train(model, split, o, nullptr, nullptr, &best);
  ASSERT_EQ(stats.size(), 6u);
  EXPECT_LT(stats.back().train_loss, stats.front().train_loss);
  // A constant predictor scores 0.5; with atom types as the only features this model measured
  // 0.64 test ROC-AUC after 6 epochs (seed 0, cpu), rising slowly after that.
  EXPECT_GT(stats[best].test_auc, 0.60) << "val " << stats[best].val_auc;
}

}  // namespace
