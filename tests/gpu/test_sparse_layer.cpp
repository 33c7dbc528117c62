// sparse_layer kernel family against the cpu path (mxm, apply, select on SuiteSparse): layer by
// layer on the real Graph Challenge network, generated 4096/16384-neuron networks, uneven random
// weights (multi-stage buffers), heavy pruning, batch sizes that are not a multiple of the
// minibatch, the out-of-core path, and the mxm-with-epilogue variant.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "algorithms/graph_challenge_io.hpp"
#include "algorithms/radixnet.hpp"
#include "algorithms/sparse_dnn.hpp"
#include "ringblas/ringblas.hpp"
#include "ringblas/sparse_layer.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"

namespace {

using namespace ringblas;
namespace gc = ringblas::graph_challenge;

const std::string kDnnDir = std::string(RINGBLAS_DATA_DIR) + "/graphchallenge_dnn";
const std::string kImages = kDnnDir + "/sparse-images-1024_subset1200.mtx.gz";

/// Same structure; values within fp32 rounding of sums of up to `terms` products.
void expect_same(const Matrix& got, const Matrix& want, const std::string& where) {
  ASSERT_EQ(got.nrows(), want.nrows()) << where;
  ASSERT_EQ(got.row_ptr_vector(), want.row_ptr_vector()) << where;
  ASSERT_EQ(got.col_idx_vector(), want.col_idx_vector()) << where;
  const auto g = got.values_vector<float>(), w = want.values_vector<float>();
  for (std::size_t p = 0; p < w.size(); ++p)
    ASSERT_NEAR(g[p], w[p], 1e-4f * std::max(1.0f, std::fabs(w[p]))) << where << " entry " << p;
}

sparse_dnn::Network one_layer(const sparse_dnn::Network& net, Index k) {
  sparse_dnn::Network one;
  one.neurons = net.neurons;
  one.ymax = net.ymax;
  one.weights.push_back(net.weights[std::size_t(k)]);
  one.bias.push_back(net.bias[std::size_t(k)]);
  return one;
}

/// Runs the network both ways one layer at a time (each fused layer starts from the cpu result)
/// and then the whole chain fused, comparing everything.
void check_network(const sparse_dnn::Network& net, const Matrix& y0, bool out_of_core_too = false) {
  Context cpu(Backend::cpu), gpu(Backend::cuda);
  Matrix y = y0;
  std::vector<Index> active;
  for (Index k = 0; k < net.layers(); ++k) {
    const sparse_dnn::Network one = one_layer(net, k);
    const Matrix want = sparse_dnn::infer(one, y, cpu);
    const Matrix got = sparse_dnn::infer(one, y, gpu);
    expect_same(got, want, "layer " + std::to_string(k + 1));
    if (::testing::Test::HasFatalFailure()) return;
    y = want;
    active.push_back(Index(sparse_dnn::categories(y).size()));
  }
  std::vector<Index> reported;
  const Matrix chain = sparse_dnn::infer(net, y0, gpu, [&](Index, Index a) { reported.push_back(a); });
  expect_same(chain, y, "whole chain");
  EXPECT_EQ(reported, active);
  EXPECT_EQ(sparse_dnn::categories(chain), sparse_dnn::categories(y));
  if (out_of_core_too) {
    // The streamed weights must give bit-identical results to the resident ones.
    DenseMatrix dense(net.neurons, y0.nrows(), Type::fp32, Layout::col_major);
    const auto rp = y0.row_ptr_vector(), ci = y0.col_idx_vector();
    const auto v = y0.values_vector<float>();
    for (Index f = 0; f < y0.nrows(); ++f)
      for (Index p = rp[f]; p < rp[f + 1]; ++p) dense.values().as<float>()[f * net.neurons + ci[p]] = v[p];
    std::vector<Index> ids_a, ids_b;
    LayerChainOptions resident, streamed;
    streamed.force_out_of_core = true;
    resident.fused_tail = false;  // the same per-layer kernels both ways (the tail needs resident weights)
    LayerChainStats sa, sb;
    const DenseMatrix a = mxm_layers(net.weights, net.bias, net.ymax, dense, ids_a, resident, &sa, gpu).to(Location::host, gpu);
    const DenseMatrix b = mxm_layers(net.weights, net.bias, net.ymax, dense, ids_b, streamed, &sb, gpu).to(Location::host, gpu);
    EXPECT_FALSE(sa.out_of_core);
    EXPECT_TRUE(sb.out_of_core);
    EXPECT_EQ(ids_a, ids_b);
    EXPECT_EQ(sa.active, sb.active);
    ASSERT_EQ(a.ncols(), b.ncols());
    for (Index x = 0; x < a.nrows() * a.ncols(); ++x)
      ASSERT_EQ(a.values().as<float>()[x], b.values().as<float>()[x]) << "element " << x;
  }
}

/// Random sparse features in [0, 1] (a few entries exactly 0 are left out).
Matrix random_features(test::Rng& rng, Index m, Index n, double density) {
  return test::random_steps(rng, m, n, density, 1, 8, 8.0f);
}

/// Weights with uneven rows: row lengths from 0 to `max_row`, one row far longer, mixed signs.
sparse_dnn::Network uneven_network(test::Rng& rng, Index n, Index layers, Index max_row, float bias) {
  sparse_dnn::Network net;
  net.neurons = n;
  net.ymax = 4.0f;
  for (Index k = 0; k < layers; ++k) {
    std::vector<Index> r, c;
    std::vector<float> v;
    for (Index j = 0; j < n; ++j) {  // column j = inputs of output neuron j
      const Index len = j == 7 ? std::min<Index>(n, 1500) : rng.between(0, max_row);
      for (Index t = 0; t < len; ++t) {
        r.push_back(j == 7 ? t : rng.between(0, n - 1));
        c.push_back(j);
        v.push_back(float(rng.between(-3, 8)) / 16.0f);
      }
    }
    net.weights.push_back(Matrix::from_triplets(n, n, r, c, v, Dup::first));
    net.bias.push_back(bias);
  }
  return net;
}

class SparseLayerGpu : public test::GpuTest {};

TEST_F(SparseLayerGpu, RealGraphChallengeNetworkLayerByLayer) {
  if (!std::filesystem::exists(kImages) || gc::find_layer(kDnnDir, 1024, 120).empty())
    GTEST_SKIP() << "Graph Challenge data not found under " << kDnnDir;
  const sparse_dnn::Network net = sparse_dnn::graph_challenge_network(1024, 120, kDnnDir);
  const Matrix y0 = gc::read_images(kImages, 1024);
  check_network(net, y0, /*out_of_core_too=*/true);
  // And the known answer: the truth categories among the 1200 images.
  Context gpu(Backend::cuda);
  std::vector<Index> want;
  for (Index c : gc::read_categories(kDnnDir + "/neuron1024-l120-categories.tsv"))
    if (c < 1200) want.push_back(c);
  EXPECT_EQ(sparse_dnn::categories(sparse_dnn::infer(net, y0, gpu)), want);
}

TEST_F(SparseLayerGpu, Generated4096And16384Networks) {
  if (!std::filesystem::exists(kImages)) GTEST_SKIP() << "Graph Challenge images not found";
  const Matrix images = gc::take_rows(gc::read_images(kImages, 1024), 300);
  for (Index n : {Index(4096), Index(16384)}) {
    const Index factor = n == 4096 ? 2 : 4;
    const sparse_dnn::Network net = sparse_dnn::graph_challenge_network(n, n == 4096 ? 16 : 12);
    check_network(net, gc::upsample_images(images, factor));
    if (HasFatalFailure()) return;
  }
}

TEST_F(SparseLayerGpu, UnevenRandomWeightsWithMultiStageBuffers) {
  test::Rng rng(5);
  // 3000 outputs: the last block is partial, and each block touches more than one stage of inputs.
  const sparse_dnn::Network net = uneven_network(rng, 3000, 4, 24, -0.0625f);
  check_network(net, random_features(rng, 37, 3000, 0.05), /*out_of_core_too=*/true);
}

TEST_F(SparseLayerGpu, FeaturesPrunedToAHandful) {
  test::Rng rng(11);
  sparse_dnn::Network net = uneven_network(rng, 512, 5, 40, -1.25f);
  const Matrix y0 = random_features(rng, 200, 512, 0.08);
  check_network(net, y0);
  Context gpu(Backend::cuda);
  const auto survivors = sparse_dnn::categories(sparse_dnn::infer(net, y0, gpu));
  EXPECT_LT(survivors.size(), 100u);  // the bias really prunes (the comparison above is exact)
}

TEST_F(SparseLayerGpu, BatchSizesThatAreNotAMultipleOfTheMinibatch) {
  test::Rng rng(3);
  const sparse_dnn::Network net = uneven_network(rng, 300, 3, 30, -0.125f);
  for (Index batch : {Index(1), Index(11), Index(13), Index(25), Index(121)}) {
    check_network(net, random_features(rng, batch, 300, 0.2));
    if (HasFatalFailure()) return;
  }
}

TEST_F(SparseLayerGpu, AllFeaturesDieAndEmptyInputs) {
  test::Rng rng(9);
  const sparse_dnn::Network net = uneven_network(rng, 100, 3, 10, -100.0f);
  check_network(net, random_features(rng, 20, 100, 0.3));
  check_network(net, Matrix(5, 100, Type::fp32));
  check_network(net, Matrix(0, 100, Type::fp32));
}

TEST_F(SparseLayerGpu, RejectsPositiveBiasAndWrongShapes) {
  test::Rng rng(1);
  sparse_dnn::Network net = uneven_network(rng, 64, 1, 8, 0.5f);
  Context gpu(Backend::cuda);
  EXPECT_THROW(sparse_dnn::infer(net, random_features(rng, 4, 64, 0.5), gpu), NotImplemented);
  std::vector<Index> ids;
  DenseMatrix y(64, 3, Type::fp32, Layout::col_major);
  EXPECT_THROW(mxm_layers(net.weights, {0.5f}, 32.0f, y, ids, {}, nullptr, gpu), InvalidValue);
  DenseMatrix wrong(65, 3, Type::fp32, Layout::col_major);
  EXPECT_THROW(mxm_layers(net.weights, {-0.5f}, 32.0f, wrong, ids, {}, nullptr, gpu), DimensionMismatch);
}

TEST_F(SparseLayerGpu, MxmWithEpilogueVariantVerifiesAgainstCpu) {
  test::Rng rng(21);
  const sparse_dnn::Network net = uneven_network(rng, 700, 1, 20, -0.1f);
  const Matrix& a = net.weights[0];
  for (Layout layout : {Layout::col_major, Layout::row_major})
    for (bool transpose : {false, true}) {
      std::vector<float> bv(23);
      for (float& x : bv) x = float(rng.between(-4, 4)) / 8.0f;
      const DenseVector bias = DenseVector::from_values(bv);
      std::vector<float> vals(700 * 23);
      for (float& x : vals) x = float(rng.between(0, 8)) / 8.0f;
      const DenseMatrix b = DenseMatrix::from_values(700, 23, vals, layout);
      DenseMatrix c(700, 23, Type::fp32, layout);
      Descriptor d;
      d.variant = Variant::sparse_layer;
      d.transpose_a = transpose;
      Context verify(Backend::verify);
      const Epilogue ep(EpilogueKind::bias_relu, &bias, 1.5);
      EXPECT_NO_THROW(mxm(c, semiring("plus_times", Type::fp32), a, b, ep, d, verify))
          << "layout " << int(layout) << " transpose " << transpose;
    }
  DenseMatrix b(700, 4, Type::fp64), c(700, 4, Type::fp64);
  Descriptor d;
  d.variant = Variant::sparse_layer;
  Context gpu(Backend::cuda);
  EXPECT_THROW(mxm(c, semiring("plus_times", Type::fp64), a, b, Epilogue::relu(), d, gpu), NotImplemented);
}

}  // namespace
