// The prepared network (prepare_network) and sparse features (mxm_layers on a SparseNetwork):
// the weights laid out on the device equal the host preparation byte for byte; the features
// converted on the device reach the layers unchanged; the categories equal the cpu path's on the
// shared Graph Challenge files and on uneven random networks, with the device pool poisoned, and
// one prepared network serves several calls.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/graph_challenge_io.hpp"
#include "algorithms/sparse_dnn.hpp"
#include "ringblas/ringblas.hpp"
#include "ringblas/sparse_layer.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"
#if defined(RINGBLAS_HAS_CUDA)
#include <cuda_runtime.h>

#include "backend/cuda/sparse_layer/prepare.hpp"
#endif

namespace {

using namespace ringblas;
namespace gc = ringblas::graph_challenge;

const std::string kDnnDir = std::string(RINGBLAS_DATA_DIR) + "/graphchallenge_dnn";
const std::string kImages = kDnnDir + "/sparse-images-1024_subset1200.mtx.gz";

bool have_challenge_data() {
  return std::filesystem::exists(kImages) && !gc::find_layer(kDnnDir, 1024, 120).empty();
}

/// Weights with uneven columns (inputs per output 0..max_row, output 7 with 1500 or n inputs: a
/// block that needs several buffer stages), values of mixed sign.
std::vector<Matrix> uneven_weights(test::Rng& rng, Index n, Index layers, Index max_row,
                                   IndexType itype = IndexType::i64) {
  std::vector<Matrix> out;
  for (Index k = 0; k < layers; ++k) {
    std::vector<Index> r, c;
    std::vector<float> v;
    for (Index j = 0; j < n; ++j) {
      const Index len = j == 7 ? std::min<Index>(n, 1500) : rng.between(0, max_row);
      for (Index t = 0; t < len; ++t) {
        r.push_back(j == 7 ? t : rng.between(0, n - 1));
        c.push_back(j);
        v.push_back(float(rng.between(-3, 8)) / 16.0f);
      }
    }
    out.push_back(Matrix::from_triplets(n, n, r, c, v, Dup::first, itype));
  }
  return out;
}

Matrix random_features(test::Rng& rng, Index m, Index n, double density,
                       IndexType itype = IndexType::i64) {
  return test::random_steps(rng, m, n, density, 1, 8, 8.0f, itype);
}

sparse_dnn::Network network_of(std::vector<Matrix> weights, float bias, float ymax) {
  sparse_dnn::Network net;
  net.neurons = weights.empty() ? 0 : weights[0].nrows();
  net.weights = std::move(weights);
  net.bias.assign(net.weights.size(), bias);
  net.ymax = ymax;
  return net;
}

class SparseNetworkGpu : public test::GpuTest {
 public:
  static void poison(std::size_t bytes, const Context& ctx) { poison_device_pool(bytes, ctx); }
};

#if defined(RINGBLAS_HAS_CUDA)
namespace sl = ringblas::cuda::sparse_layer;

/// Preparation paths with every field given (not from the environment): session 7's by default.
sl::PrepareOptions paths(sl::RowSort sort = sl::RowSort::insertion,
                         sl::LayerTranspose transpose = sl::LayerTranspose::stack,
                         sl::PrepareReturn ret = sl::PrepareReturn::synced,
                         sl::BlockStaging staging = sl::BlockStaging::global) {
  sl::PrepareOptions o;
  o.sort = sort;
  o.transpose = transpose;
  o.ret = ret;
  o.staging = staging;
  return o;
}

/// Every layer's device blob and output order equal prepare_chain's on the host, word for word.
void expect_device_blobs_equal_host(const std::vector<Matrix>& weights, const std::string& what,
                                    SparseUpload how = SparseUpload::csr,
                                    const sl::PrepareOptions& opt = paths()) {
  Context gpu(Backend::cuda);
  const sl::PreparedChain chain = sl::prepare_chain(weights);
  const std::vector<sl::PreparedLayer>& want = chain.layers;
  // Copied back with cudaMemcpy (the legacy stream): early's blobs are complete there.
  const sl::DeviceWeights got = sl::prepare_layers_device(weights, gpu, how, nullptr, opt);
  EXPECT_EQ(got.ready != nullptr, opt.ret == sl::PrepareReturn::early) << what;
  ASSERT_EQ(got.layout.size(), want.size()) << what;
  std::vector<std::uint32_t> blob(got.words);
  if (got.words)
    ASSERT_EQ(cudaMemcpy(blob.data(), got.blob.data(), got.words * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  const std::size_t n = weights.empty() ? 0 : std::size_t(weights[0].nrows());
  std::vector<std::int32_t> order(n * weights.size());
  if (!order.empty())
    ASSERT_EQ(cudaMemcpy(order.data(), got.order.data(), order.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  for (std::size_t k = 0; k < want.size(); ++k) {
    ASSERT_EQ(std::vector<std::int32_t>(order.begin() + k * n, order.begin() + (k + 1) * n), chain.order[k])
        << what << " layer " << k;
    const sl::BlobLayout &g = got.layout[k], &w = want[k].layout;
    EXPECT_EQ(g.blocks, w.blocks) << what << " layer " << k;
    EXPECT_EQ(g.stages, w.stages) << what << " layer " << k;
    EXPECT_EQ(g.max_stage, w.max_stage) << what << " layer " << k;
    EXPECT_EQ(g.entries, w.entries) << what << " layer " << k;
    ASSERT_EQ(g.words, w.words) << what << " layer " << k;
    EXPECT_EQ(g.map, w.map) << what << " layer " << k;
    EXPECT_EQ(g.index, w.index) << what << " layer " << k;
    EXPECT_EQ(g.value, w.value) << what << " layer " << k;
    for (std::size_t x = 0; x < w.words; ++x)
      ASSERT_EQ(blob[got.offset[k] + x], want[k].blob[x])
          << what << " layer " << k << " word " << x << " (index array at " << w.index << ", values at "
          << w.value << ")";
  }
}

/// The blobs of every weight set below equal the host's, with the weights uploaded `how`, the
/// transposed rows sorted by `sort` (the uneven sets have rows of more and fewer than 32 entries)
/// and the other paths as `opt` says.
void expect_device_preparation_equals_host(SparseUpload how,
                                           const sl::PrepareOptions& opt = paths()) {
  Context gpu(Backend::cuda);
  SparseNetworkGpu::poison(std::size_t(256) << 20, gpu);
  test::Rng rng(17);
  auto expect = [&](const std::vector<Matrix>& weights, const std::string& what) {
    expect_device_blobs_equal_host(weights, what, how, opt);
  };
  // 3000 neurons: a partial last block, output 7 spreads its block over two stages.
  expect(uneven_weights(rng, 3000, 3, 24), "uneven 3000");
  expect(uneven_weights(rng, 300, 2, 40, IndexType::i32), "uneven 300, int32");
  // An empty layer among full ones.
  std::vector<Matrix> with_empty = uneven_weights(rng, 500, 2, 10);
  with_empty.insert(with_empty.begin() + 1, Matrix(500, 500, Type::fp32));
  expect(with_empty, "empty layer");
  // fp64 weights are cast.
  std::vector<Matrix> fp64;
  for (const Matrix& w : uneven_weights(rng, 200, 2, 12)) fp64.push_back(w.cast(Type::fp64));
  expect(fp64, "fp64 weights");
  // Generated RadiX-Net layers of 16384 neurons (eight stages per block; iso values 1/16).
  expect(sparse_dnn::graph_challenge_network(16384, 2).weights, "radixnet 16384");
  // 70000 neurons: 32-bit packed indices.
  expect(uneven_weights(rng, 70000, 2, 6), "uneven 70000");
  // One layer: no renaming, so only the per-layer transpose's own sort orders its rows.
  expect(uneven_weights(rng, 700, 1, 40), "one layer");
  if (have_challenge_data())
    expect(sparse_dnn::graph_challenge_network(1024, 6, kDnnDir).weights,
           "Graph Challenge 1024, layers 1-6");
}

TEST_F(SparseNetworkGpu, DevicePreparationEqualsHostPreparation) {
  expect_device_preparation_equals_host(SparseUpload::csr);
}

TEST_F(SparseNetworkGpu, PackedWeightsPrepareTheSameBlobs) {
  expect_device_preparation_equals_host(SparseUpload::packed);
}

TEST_F(SparseNetworkGpu, WarpRowSortPreparesTheSameBlobs) {
  expect_device_preparation_equals_host(SparseUpload::packed, paths(sl::RowSort::warp));
  expect_device_preparation_equals_host(SparseUpload::csr, paths(sl::RowSort::warp));
}

// The per-layer transpose leaves rows in the atomics' arrival order: either row sort must still
// give the stable transpose's blobs, byte for byte.
TEST_F(SparseNetworkGpu, PerLayerTransposePreparesTheSameBlobs) {
  for (const sl::RowSort sort : {sl::RowSort::warp, sl::RowSort::insertion}) {
    expect_device_preparation_equals_host(SparseUpload::packed,
                                          paths(sort, sl::LayerTranspose::per_layer));
    expect_device_preparation_equals_host(SparseUpload::csr,
                                          paths(sort, sl::LayerTranspose::per_layer));
  }
}

// PrepareReturn::early returns with the blob fill queued: the blobs read back on the legacy
// stream are the same; and a network prepared so (through prepare_network,
// NetworkPrepareOptions::return_when) used at once on a non-blocking stream, which only wait_ready orders after the
// fill, gives the cpu categories.
TEST_F(SparseNetworkGpu, EarlyReturnPreparesTheSameBlobs) {
  expect_device_preparation_equals_host(
      SparseUpload::packed,
      paths(sl::RowSort::warp, sl::LayerTranspose::stack, sl::PrepareReturn::early));
  expect_device_preparation_equals_host(
      SparseUpload::packed,
      paths(sl::RowSort::warp, sl::LayerTranspose::per_layer, sl::PrepareReturn::early));
  test::Rng rng(41);
  const sparse_dnn::Network net = network_of(uneven_weights(rng, 3000, 4, 24), -0.0625f, 4.0f);
  const Matrix y0 = random_features(rng, 130, 3000, 0.05, IndexType::i32);
  Context cpu(Backend::cpu), gpu(Backend::cuda), side(Backend::cuda);
  const std::vector<Index> want = sparse_dnn::categories(sparse_dnn::infer(net, y0, cpu));
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  side.stream = stream;
  NetworkPrepareOptions early;
  early.return_when = PrepareReturn::early;
  poison_device_pool(std::size_t(128) << 20, gpu);
  {
    const SparseNetwork prepared =
        prepare_network(net.weights, net.bias, net.ymax, gpu, nullptr, early);
    EXPECT_EQ(mxm_layers(prepared, y0, {}, nullptr, side), want);
  }
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// BlockStaging::shared: the block bitmaps in shared memory (up to 131072 neurons; past that the
// global kernel, which the blob tests that keep paths()'s defaults run; the end-to-end tests run the library's default, shared), fill_blocks' banks staged (the uneven sets' output
// 7 has lists over 32, searched in global memory) and each row's words written after its 32
// choices.
TEST_F(SparseNetworkGpu, SharedBlockStagingPreparesTheSameBlobs) {
  for (const sl::RowSort sort : {sl::RowSort::warp, sl::RowSort::insertion})
    expect_device_preparation_equals_host(
        SparseUpload::packed, paths(sort, sl::LayerTranspose::stack, sl::PrepareReturn::synced,
                                    sl::BlockStaging::shared));
  expect_device_preparation_equals_host(SparseUpload::csr,
                                        paths(sl::RowSort::warp, sl::LayerTranspose::per_layer,
                                              sl::PrepareReturn::early, sl::BlockStaging::shared));
}
#endif

TEST_F(SparseNetworkGpu, RealNetworkCategoriesFromOnePreparedNetwork) {
  if (!have_challenge_data()) GTEST_SKIP() << "Graph Challenge data not found under " << kDnnDir;
  const sparse_dnn::Network net = sparse_dnn::graph_challenge_network(1024, 120, kDnnDir);
  const Matrix images = gc::read_images(kImages, 1024);
  Context cpu(Backend::cpu), gpu(Backend::cuda);
  const std::vector<Index> want = sparse_dnn::categories(sparse_dnn::infer(net, images, cpu));
  std::vector<Index> truth;
  for (Index c : gc::read_categories(kDnnDir + "/neuron1024-l120-categories.tsv"))
    if (c < 1200) truth.push_back(c);
  ASSERT_EQ(want, truth);  // the cpu path itself reproduces the official answer

  poison_device_pool(std::size_t(512) << 20, gpu);
  LayerChainStats prep;
  const SparseNetwork prepared = prepare_network(net.weights, net.bias, net.ymax, gpu, &prep);
  EXPECT_EQ(prepared.layers(), 120);
  EXPECT_EQ(prepared.neurons, 1024);
  EXPECT_GT(prep.weight_bytes, 0u);
  // The same prepared network, three calls: host features, device features, 64-bit indices.
  const Matrix on_device = images.to(Location::device, gpu);
  const Matrix wide = Matrix::from_csr(images.nrows(), images.ncols(), images.row_ptr_vector(),
                                       images.col_idx_vector(), images.values_vector<float>());
  for (const Matrix* f : {&images, &on_device, &wide}) {
    poison_device_pool(std::size_t(256) << 20, gpu);
    LayerChainStats st;
    std::vector<Index> active;
    LayerChainOptions opt;
    opt.on_layer = [&](Index, Index a) { active.push_back(a); };
    const std::vector<Index> got = mxm_layers(prepared, *f, opt, &st, gpu);
    EXPECT_EQ(got, want);
    ASSERT_EQ(active.size(), 120u);
    EXPECT_EQ(active.back(), Index(want.size()));
    EXPECT_GT(st.inference_ms, 0.0);
  }
  // And through the algorithm.
  sparse_dnn::InferStats is;
  EXPECT_EQ(sparse_dnn::infer_categories(net, images, gpu, {}, &is), want);
  EXPECT_TRUE(is.fused);
  EXPECT_GT(is.chain.prepare_ms, 0.0);
}

TEST_F(SparseNetworkGpu, FeaturesConvertedOnTheDeviceReachTheLayersUnchanged) {
  // One identity layer with bias 0 and a large ymax: Y_1 = Y_0 for features in [0, 1], so the
  // survivors' columns are exactly the nonzero feature rows.
  const Index n = 777;
  std::vector<Index> diag(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) diag[std::size_t(i)] = i;
  const Matrix eye = Matrix::from_triplets(n, n, diag, diag, std::vector<float>(std::size_t(n), 1.0f));
  Context gpu(Backend::cuda);
  const SparseNetwork net = prepare_network({eye}, {0.0f}, 100.0f, gpu);
  test::Rng rng(23);
  for (SparseUpload how : {SparseUpload::csr, SparseUpload::packed})
    for (IndexType itype : {IndexType::i32, IndexType::i64})
      for (bool iso : {false, true}) {
        Matrix f = random_features(rng, 45, n, 0.03, itype);  // some rows empty
        if (iso)  // the pattern with one value, as the Graph Challenge images
          f = Matrix::from_csr(f.nrows(), n, f.row_ptr_vector(), f.col_idx_vector(),
                               std::vector<float>(std::size_t(f.nnz()), 0.75f))
                  .with_index_type(itype);
        poison_device_pool(std::size_t(64) << 20, gpu);
        DenseMatrix survivors;
        LayerChainOptions opt;
        opt.upload = how;
        const std::vector<Index> ids = mxm_layers(net, f, opt, nullptr, gpu, &survivors);
        const auto rp = f.row_ptr_vector(), ci = f.col_idx_vector();
        const auto v = f.values_vector<float>();
        std::vector<Index> nonempty;
        for (Index i = 0; i < f.nrows(); ++i)
          if (rp[std::size_t(i + 1)] > rp[std::size_t(i)]) nonempty.push_back(i);
        ASSERT_EQ(ids, nonempty);
        const DenseMatrix h = survivors.to(Location::host, gpu);
        ASSERT_EQ(h.nrows(), n);
        ASSERT_EQ(h.ncols(), Index(ids.size()));
        for (std::size_t s = 0; s < ids.size(); ++s) {
          std::vector<float> want(static_cast<std::size_t>(n), 0.0f);
          for (Index p = rp[std::size_t(ids[s])]; p < rp[std::size_t(ids[s] + 1)]; ++p)
            want[std::size_t(ci[std::size_t(p)])] = v[std::size_t(p)];
          for (Index i = 0; i < n; ++i)
            ASSERT_EQ(h.values().as<float>()[s * std::size_t(n) + std::size_t(i)],
                      want[std::size_t(i)])
                << "feature " << ids[s] << " neuron " << i;
        }
      }
}

TEST_F(SparseNetworkGpu, PackedUploadGivesTheCpuCategories) {
  test::Rng rng(37);
  Context cpu(Backend::cpu), gpu(Backend::cuda);
  // Weights of mixed values (not iso); features with values (not iso) and a pattern with one
  // value (iso), rows empty among them.
  const sparse_dnn::Network net = network_of(uneven_weights(rng, 3000, 4, 24), -0.0625f, 4.0f);
  const Matrix steps = random_features(rng, 130, 3000, 0.05, IndexType::i32);
  const Matrix iso =
      Matrix::from_csr(steps.nrows(), steps.ncols(), steps.row_ptr_vector(), steps.col_idx_vector(),
                       std::vector<float>(std::size_t(steps.nnz()), 1.0f));
  for (const Matrix* y0 : {&steps, &iso}) {
    const std::vector<Index> want = sparse_dnn::categories(sparse_dnn::infer(net, *y0, cpu));
    poison_device_pool(std::size_t(128) << 20, gpu);
    sparse_dnn::InferStats is;
    EXPECT_EQ(sparse_dnn::infer_categories(net, *y0, gpu, {}, &is, SparseUpload::packed), want);
    EXPECT_GT(is.chain.bytes_in, 0u);
    EXPECT_GT(is.weight_bytes_in, 0u);
  }
  if (!have_challenge_data()) return;
  const sparse_dnn::Network real = sparse_dnn::graph_challenge_network(1024, 120, kDnnDir);
  const Matrix images = gc::read_images(kImages, 1024);
  std::vector<Index> truth;
  for (Index c : gc::read_categories(kDnnDir + "/neuron1024-l120-categories.tsv"))
    if (c < 1200) truth.push_back(c);
  EXPECT_GT(reserve_upload_staging(gpu), 0u);
  sparse_dnn::InferStats packed, plain;
  EXPECT_EQ(sparse_dnn::infer_categories(real, images, gpu, {}, &packed, SparseUpload::packed),
            truth);
  EXPECT_EQ(sparse_dnn::infer_categories(real, images, gpu, {}, &plain, SparseUpload::csr), truth);
  // Iso images with 16-bit indices: under a third of int32 indices with fp32 values.
  EXPECT_LT(3 * packed.chain.bytes_in, plain.chain.bytes_in);
  EXPECT_LT(2 * packed.weight_bytes_in, plain.weight_bytes_in);
}

TEST_F(SparseNetworkGpu, FeaturesStagedDuringPreparationGiveTheCpuCategories) {
  test::Rng rng(41);
  Context cpu(Backend::cpu), gpu(Backend::cuda);
  const sparse_dnn::Network net = network_of(uneven_weights(rng, 3000, 4, 24), -0.0625f, 4.0f);
  const Matrix steps = random_features(rng, 130, 3000, 0.05, IndexType::i32);
  const std::vector<Index> want = sparse_dnn::categories(sparse_dnn::infer(net, steps, cpu));
  for (SparseUpload how : {SparseUpload::csr, SparseUpload::packed}) {
    poison_device_pool(std::size_t(128) << 20, gpu);
    sparse_dnn::InferStats is;
    EXPECT_EQ(sparse_dnn::infer_categories(net, steps, gpu, {}, &is, how, true), want);
    EXPECT_GT(is.chain.bytes_in, 0u);
    // stage_features: the CSR arrays on the device, as the host's (fp32 values; fp64 cast).
    std::size_t sent = 0;
    const Matrix staged = stage_features(steps.cast(Type::fp64), how, gpu, &sent);
    ASSERT_EQ(staged.location(), Location::device);
    EXPECT_GT(sent, 0u);
    const Matrix back = staged.to(Location::host, gpu);
    EXPECT_EQ(back.row_ptr_vector(), steps.row_ptr_vector());
    EXPECT_EQ(back.col_idx_vector(), steps.col_idx_vector());
    EXPECT_EQ(back.values_vector<float>(), steps.values_vector<float>());
  }
  Context cpu_only(Backend::cpu);
  EXPECT_THROW(stage_features(steps, SparseUpload::csr, cpu_only), NotImplemented);
}

TEST_F(SparseNetworkGpu, UnevenNetworksMatchTheCpuPath) {
  test::Rng rng(31);
  Context cpu(Backend::cpu), gpu(Backend::cuda);
  for (Index batch : {Index(1), Index(13), Index(130)}) {
    const sparse_dnn::Network net = network_of(uneven_weights(rng, 3000, 4, 24), -0.0625f, 4.0f);
    const Matrix y0 = random_features(rng, batch, 3000, 0.05);
    const Matrix want = sparse_dnn::infer(net, y0, cpu);
    poison_device_pool(std::size_t(128) << 20, gpu);
    EXPECT_EQ(sparse_dnn::infer_categories(net, y0, gpu), sparse_dnn::categories(want)) << batch;
    // infer (activations too) goes through the same prepared network and sparse features.
    const Matrix got = sparse_dnn::infer(net, y0, gpu);
    ASSERT_EQ(got.row_ptr_vector(), want.row_ptr_vector()) << batch;
    ASSERT_EQ(got.col_idx_vector(), want.col_idx_vector()) << batch;
    const auto g = got.values_vector<float>(), w = want.values_vector<float>();
    for (std::size_t p = 0; p < w.size(); ++p)
      ASSERT_NEAR(g[p], w[p], 1e-4f * std::max(1.0f, std::fabs(w[p]))) << batch << " entry " << p;
  }
}

/// The final columns `got` equal `want` (device matrices) to `rel` relative to max(1, |want|).
void expect_same_columns(const DenseMatrix& got, const DenseMatrix& want, float rel,
                         const std::string& what, const Context& ctx) {
  const DenseMatrix hw = want.to(Location::host, ctx), hg = got.to(Location::host, ctx);
  ASSERT_EQ(hg.ncols(), hw.ncols()) << what;
  for (Index x = 0; x < hw.nrows() * hw.ncols(); ++x) {
    const float a = hg.values().as<float>()[x], b = hw.values().as<float>()[x];
    ASSERT_NEAR(a, b, rel * std::max(1.0f, std::fabs(b))) << what << " element " << x;
  }
}

/// The tail kernel (LayerChainOptions::fused_tail, reading as `how`) against the per-layer
/// launches: the same ids, per-layer counts and final activations, and it really ran (the way
/// the trace names).
void expect_tail_matches(const sparse_dnn::Network& net, const Matrix& y0, const std::string& what,
                         SparseTail how = SparseTail::rows) {
  Context gpu(Backend::cuda);
  const SparseNetwork prepared = prepare_network(net.weights, net.bias, net.ymax, gpu);
  LayerChainOptions plain, tail;
  plain.fused_tail = false;
  tail.fused_tail = true;
  tail.tail = how;
  LayerChainStats sp, st;
  DenseMatrix ap, at;
  SparseNetworkGpu::poison(std::size_t(128) << 20, gpu);
  const std::vector<Index> ip = mxm_layers(prepared, y0, plain, &sp, gpu, &ap);
  SparseNetworkGpu::poison(std::size_t(128) << 20, gpu);
  std::ostringstream trace;
  gpu.trace = true;
  gpu.trace_out = &trace;
  const std::vector<Index> it = mxm_layers(prepared, y0, tail, &st, gpu, &at);
  gpu.trace = false;
  EXPECT_EQ(sp.tail_from, 0) << what;
  ASSERT_GT(st.tail_from, 1) << what << ": the tail kernel did not run";
  EXPECT_GT(st.active[std::size_t(st.tail_from - 2)], 0)
      << what << ": no feature reached the tail kernel";
  const std::string way = how == SparseTail::staged ? ", staged (" : ", rows\n";
  EXPECT_NE(trace.str().find("tail kernel from layer " + std::to_string(st.tail_from) + way),
            std::string::npos)
      << what << ":\n"
      << trace.str();
  EXPECT_EQ(it, ip) << what;
  EXPECT_EQ(st.active, sp.active) << what;
  expect_same_columns(at, ap, 1e-5f, what, gpu);
}

/// The Graph Challenge 1024 x 120 network through the tail kernel read as `how`: the per-layer
/// launches' results and the published categories.
void expect_challenge_tail(SparseTail how) {
  const sparse_dnn::Network net = sparse_dnn::graph_challenge_network(1024, 120, kDnnDir);
  const Matrix images = gc::read_images(kImages, 1024);
  expect_tail_matches(net, images, "Graph Challenge 1024 x 120", how);
  Context gpu(Backend::cuda);
  const SparseNetwork prepared = prepare_network(net.weights, net.bias, net.ymax, gpu);
  LayerChainOptions tail;
  tail.fused_tail = true;
  tail.tail = how;
  std::vector<Index> truth;
  for (Index c : gc::read_categories(kDnnDir + "/neuron1024-l120-categories.tsv"))
    if (c < 1200) truth.push_back(c);
  EXPECT_EQ(mxm_layers(prepared, images, tail, nullptr, gpu), truth);
}

TEST_F(SparseNetworkGpu, TailKernelMatchesPerLayerLaunches) {
  test::Rng rng(41);
  // Both parities of the number of layers left after the check at layer 4.
  for (Index layers : {Index(9), Index(10)}) {
    const sparse_dnn::Network net = network_of(uneven_weights(rng, 3000, layers, 24), -0.03125f, 4.0f);
    expect_tail_matches(net, random_features(rng, 300, 3000, 0.05), std::to_string(layers) + " layers");
    if (HasFatalFailure()) return;
  }
  // 4096 neurons: the tail with 4 features per block.
  const sparse_dnn::Network wide = network_of(uneven_weights(rng, 4096, 9, 24), -0.03125f, 4.0f);
  expect_tail_matches(wide, random_features(rng, 200, 4096, 0.04), "4096 neurons");
  if (HasFatalFailure()) return;
  if (have_challenge_data()) expect_challenge_tail(SparseTail::rows);
}

// SparseTail::staged (up to 1024 neurons): blob blocks that fill all four groups and fewer
// (idle groups), a last block of fewer than 256 outputs, a block reading every input (output 7:
// the largest stage, n rows), both parities, features that die on the way; and the real network.
TEST_F(SparseNetworkGpu, StagedTailMatchesPerLayerLaunches) {
  test::Rng rng(43);
  for (Index n : {Index(1000), Index(1024), Index(300), Index(40)})
    for (Index layers : {Index(9), Index(10)}) {
      const sparse_dnn::Network net =
          network_of(uneven_weights(rng, n, layers, 24), -0.03125f, 4.0f);
      expect_tail_matches(net, random_features(rng, 300, n, 0.05),
                          std::to_string(n) + " neurons, " + std::to_string(layers) + " layers",
                          SparseTail::staged);
      if (HasFatalFailure()) return;
    }
  // Wider than the staged kernel holds: an explicit staged is refused before any work (no silent
  // rows tail), naming why; without the tail kernel the option does not matter.
  const sparse_dnn::Network wide = network_of(uneven_weights(rng, 3000, 9, 24), -0.03125f, 4.0f);
  Context gpu(Backend::cuda);
  const SparseNetwork prepared = prepare_network(wide.weights, wide.bias, wide.ymax, gpu);
  const Matrix y0 = random_features(rng, 300, 3000, 0.05);
  LayerChainOptions staged;
  staged.tail = SparseTail::staged;
  try {
    (void)mxm_layers(prepared, y0, staged, nullptr, gpu);
    ADD_FAILURE() << "staged ran on 3000 neurons";
  } catch (const NotImplemented& e) {
    EXPECT_NE(std::string(e.what()).find("at most 1024 neurons"), std::string::npos) << e.what();
  }
  std::vector<Index> ids;  // the dense-features form asks the same question
  EXPECT_THROW(mxm_layers(wide.weights, wide.bias, wide.ymax, DenseMatrix(3000, 4, Type::fp32),
                          ids, staged, nullptr, gpu),
               NotImplemented);
  staged.fused_tail = false;
  EXPECT_NO_THROW((void)mxm_layers(prepared, y0, staged, nullptr, gpu));
  if (have_challenge_data()) expect_challenge_tail(SparseTail::staged);
}

// SparseTail::automatic (the default): staged up to 1024 neurons, rows on wider networks (the
// trace names which ran), the cpu path's categories on both.
TEST_F(SparseNetworkGpu, AutomaticTailMatchesTheCpuOnBothSizes) {
  test::Rng rng(53);
  Context cpu(Backend::cpu);
  for (Index n : {Index(1000), Index(3000)}) {
    const sparse_dnn::Network net = network_of(uneven_weights(rng, n, 9, 24), -0.03125f, 4.0f);
    const Matrix y0 = random_features(rng, 300, n, 0.05);
    const std::vector<Index> want = sparse_dnn::categories(sparse_dnn::infer(net, y0, cpu));
    Context gpu(Backend::cuda);
    std::ostringstream trace;
    gpu.trace = true;
    gpu.trace_out = &trace;
    sparse_dnn::InferStats is;
    EXPECT_EQ(sparse_dnn::infer_categories(net, y0, gpu, {}, &is, SparseUpload::csr, false,
                                           SparseTail::automatic),
              want)
        << n;
    EXPECT_GT(is.chain.tail_from, 0) << n << ": the tail kernel did not run";
    const std::string way = n <= 1024 ? ", staged (" : ", rows\n";
    EXPECT_NE(trace.str().find("tail kernel from layer " + std::to_string(is.chain.tail_from) + way),
              std::string::npos)
        << n << ":\n"
        << trace.str();
  }
}

#if defined(RINGBLAS_HAS_CUDA)
// EllFill::broadcast (host preparation only, bench_spdnn --fill): the same network prepared with
// each lane's entries reordered gives prepare_network's ids, counts and final activations (to
// rounding: the sums run in another order), through the per-layer kernels and both tails.
TEST_F(SparseNetworkGpu, BroadcastFillGivesTheDeviceFillsResults) {
  test::Rng rng(47);
  std::vector<std::pair<sparse_dnn::Network, Matrix>> cases;
  cases.emplace_back(network_of(uneven_weights(rng, 1000, 10, 24), -0.03125f, 4.0f),
                     random_features(rng, 300, 1000, 0.05));
  if (have_challenge_data())
    cases.emplace_back(sparse_dnn::graph_challenge_network(1024, 120, kDnnDir),
                       gc::read_images(kImages, 1024));
  for (const auto& [net, y0] : cases) {
    const std::string what = std::to_string(net.neurons) + " x " + std::to_string(net.layers());
    Context gpu(Backend::cuda);
    const SparseNetwork device = prepare_network(net.weights, net.bias, net.ymax, gpu);
    const SparseNetwork host = sl::network_holding(
        sl::device_weights(sl::prepare_chain(net.weights, 0, sl::EllFill::broadcast), gpu),
        net.neurons, net.bias, net.ymax, gpu.device);
    for (const SparseTail how : {SparseTail::rows, SparseTail::staged})
      for (const bool tail : {false, true}) {
        LayerChainOptions opt;
        opt.fused_tail = tail;
        opt.tail = how;
        LayerChainStats sd, sh;
        DenseMatrix ad, ah;
        const std::vector<Index> id = mxm_layers(device, y0, opt, &sd, gpu, &ad);
        const std::vector<Index> ih = mxm_layers(host, y0, opt, &sh, gpu, &ah);
        EXPECT_EQ(ih, id) << what;
        EXPECT_EQ(sh.active, sd.active) << what;
        EXPECT_EQ(sh.tail_from, sd.tail_from) << what;
        expect_same_columns(ah, ad, 1e-4f, what, gpu);
        if (HasFatalFailure()) return;
      }
  }
}
#endif

TEST_F(SparseNetworkGpu, RejectsUnpreparedMismatchedAndCpu) {
  test::Rng rng(5);
  Context gpu(Backend::cuda), cpu(Backend::cpu);
  const std::vector<Matrix> w = uneven_weights(rng, 64, 2, 8);
  EXPECT_THROW(mxm_layers(SparseNetwork{}, random_features(rng, 3, 64, 0.5), {}, nullptr, gpu), InvalidValue);
  EXPECT_THROW(prepare_network(w, {-0.1f}, 32.0f, gpu), InvalidValue);           // one bias for two layers
  EXPECT_THROW(prepare_network(w, {-0.1f, 0.2f}, 32.0f, gpu), InvalidValue);     // positive bias
  EXPECT_THROW(prepare_network({}, {}, 32.0f, gpu), InvalidValue);               // no layers
  EXPECT_THROW(prepare_network(w, {-0.1f, -0.1f}, 32.0f, cpu), NotImplemented);  // no cpu chain
  SparseNetwork net = prepare_network(w, {-0.1f, -0.1f}, 32.0f, gpu);
  EXPECT_THROW(mxm_layers(net, random_features(rng, 3, 65, 0.5), {}, nullptr, gpu), DimensionMismatch);
  net.device = gpu.device + 1;
  EXPECT_THROW(mxm_layers(net, random_features(rng, 3, 64, 0.5), {}, nullptr, gpu), InvalidValue);
}

}  // namespace
