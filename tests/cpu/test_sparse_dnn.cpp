// Sparse DNN inference (cpu path): the Graph Challenge known answer on the real 1024 x 120
// network, a naive dense checker on small random networks, and the Graph Challenge readers.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "algorithms/graph_challenge_io.hpp"
#include "algorithms/sparse_dnn.hpp"
#include "ringblas/ringblas.hpp"
#include "support/random_matrix.hpp"

namespace {

using namespace ringblas;
namespace gc = ringblas::graph_challenge;

const std::string kDnnDir = std::string(RINGBLAS_DATA_DIR) + "/graphchallenge_dnn";

/// Naive reference: dense loops with an explicit "stored" flag, so the bias goes to stored
/// entries of Y W only (the Challenge's Z + logical(Z) .* b).
std::vector<std::vector<double>> naive_infer(const sparse_dnn::Network& net, const Matrix& y0,
                                             std::vector<std::vector<char>>& present) {
  const Index m = y0.nrows(), n = net.neurons;
  std::vector<std::vector<double>> y(std::size_t(m), std::vector<double>(std::size_t(n), 0.0));
  present.assign(std::size_t(m), std::vector<char>(std::size_t(n), 0));
  {
    const auto rp = y0.row_ptr_vector(), ci = y0.col_idx_vector();
    const auto v = y0.cast(Type::fp64).values_vector<double>();
    for (Index i = 0; i < m; ++i)
      for (Index p = rp[i]; p < rp[i + 1]; ++p) {
        y[i][ci[p]] = v[p];
        present[i][ci[p]] = 1;
      }
  }
  for (std::size_t k = 0; k < net.weights.size(); ++k) {
    const Matrix& w = net.weights[k];
    const auto rp = w.row_ptr_vector(), ci = w.col_idx_vector();
    const auto v = w.cast(Type::fp64).values_vector<double>();
    std::vector<std::vector<double>> z(std::size_t(m), std::vector<double>(std::size_t(n), 0.0));
    std::vector<std::vector<char>> zp(std::size_t(m), std::vector<char>(std::size_t(n), 0));
    for (Index f = 0; f < m; ++f)
      for (Index i = 0; i < n; ++i) {
        if (!present[f][i]) continue;
        for (Index p = rp[i]; p < rp[i + 1]; ++p) {
          z[f][ci[p]] += y[f][i] * v[p];
          zp[f][ci[p]] = 1;
        }
      }
    for (Index f = 0; f < m; ++f)
      for (Index j = 0; j < n; ++j) {
        double t = zp[f][j] ? z[f][j] + net.bias[k] : 0.0;
        present[f][j] = zp[f][j] && t > 0;
        y[f][j] = present[f][j] ? std::min<double>(t, net.ymax) : 0.0;
      }
  }
  return y;
}

sparse_dnn::Network random_network(test::Rng& rng, Index n, Index layers, float bias) {
  sparse_dnn::Network net;
  net.neurons = n;
  net.ymax = 2.0f;  // small so that the clamp is reached
  for (Index k = 0; k < layers; ++k) {
    std::vector<Index> r, c;
    std::vector<float> v;
    for (Index i = 0; i < n; ++i)
      for (Index j = 0; j < n; ++j)
        if (rng.chance(0.3)) {
          r.push_back(i);
          c.push_back(j);
          v.push_back(float(rng.between(-2, 6)) / 4.0f);  // exact in fp32: sums order-free
        }
    net.weights.push_back(Matrix::from_triplets(n, n, r, c, v));
    net.bias.push_back(bias);
  }
  return net;
}

Matrix random_features(test::Rng& rng, Index m, Index n) {
  std::vector<Index> r, c;
  std::vector<float> v;
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < n; ++j)
      if (rng.chance(0.4)) {
        r.push_back(i);
        c.push_back(j);
        v.push_back(1.0f);
      }
  return Matrix::from_triplets(m, n, r, c, v);
}

TEST(SparseDnnCpu, MatchesNaiveCheckerOnRandomNetworks) {
  test::Rng rng(42);
  for (float bias : {-0.25f, 0.0f, 0.5f}) {  // a positive bias shows "stored entries only"
    const sparse_dnn::Network net = random_network(rng, 9, 4, bias);
    const Matrix y0 = random_features(rng, 7, 9);
    Context ctx(Backend::cpu);
    const Matrix got = sparse_dnn::infer(net, y0, ctx);
    std::vector<std::vector<char>> present;
    const auto want = naive_infer(net, y0, present);
    const auto rp = got.row_ptr_vector(), ci = got.col_idx_vector();
    const auto v = got.values_vector<float>();
    Index expected_nnz = 0;
    for (const auto& row : present)
      for (char p : row) expected_nnz += p;
    ASSERT_EQ(got.nnz(), expected_nnz) << "bias " << bias;
    for (Index i = 0; i < got.nrows(); ++i)
      for (Index p = rp[i]; p < rp[i + 1]; ++p) {
        ASSERT_TRUE(present[i][ci[p]]) << "(" << i << "," << ci[p] << ") bias " << bias;
        EXPECT_FLOAT_EQ(v[p], float(want[i][ci[p]])) << "(" << i << "," << ci[p] << ")";
      }
  }
}

TEST(SparseDnnCpu, RejectsFeaturesOfTheWrongWidth) {
  test::Rng rng(1);
  const sparse_dnn::Network net = random_network(rng, 5, 1, -0.1f);
  Context ctx(Backend::cpu);
  EXPECT_THROW(sparse_dnn::infer(net, Matrix(3, 4, Type::fp32), ctx), DimensionMismatch);
}

TEST(SparseDnnCpu, GraphChallenge1024x120KnownCategories) {
  const std::string images = kDnnDir + "/sparse-images-1024_subset1200.mtx.gz";
  const std::string truth = kDnnDir + "/neuron1024-l120-categories.tsv";
  if (!std::filesystem::exists(images) || !std::filesystem::exists(truth) ||
      gc::find_layer(kDnnDir, 1024, 120).empty())
    GTEST_SKIP() << "Graph Challenge data not found under " << kDnnDir;
  const Matrix y0 = gc::read_images(images, 1024);
  ASSERT_EQ(y0.nrows(), 1200);
  // Only the official files: no layer may come from the generator here.
  sparse_dnn::Network net;
  net.neurons = 1024;
  for (Index k = 1; k <= 120; ++k) {
    net.weights.push_back(gc::read_layer(kDnnDir, 1024, k));
    net.bias.push_back(gc::bias_for(1024));
  }
  Context ctx(Backend::cpu);
  std::vector<Index> active;
  const Matrix y = sparse_dnn::infer(net, y0, ctx, [&](Index, Index a) { active.push_back(a); });
  std::vector<Index> want;
  for (Index c : gc::read_categories(truth))
    if (c < 1200) want.push_back(c);
  EXPECT_EQ(want.size(), 19u);  // the data README's count of truth ids <= 1200
  EXPECT_EQ(sparse_dnn::categories(y), want);
  ASSERT_EQ(active.size(), 120u);
  EXPECT_EQ(active.back(), Index(want.size()));
  const auto v = y.values_vector<float>();
  for (float x : v) {
    EXPECT_GT(x, 0.0f);
    EXPECT_LE(x, 32.0f);
  }
}

TEST(SparseDnnCpu, SubsetTruthVectorAgreesWithTheTsv) {
  const std::string mtx = kDnnDir + "/neuron1024-l120-categories_subset1200.mtx";
  const std::string tsv = kDnnDir + "/neuron1024-l120-categories.tsv";
  if (!std::filesystem::exists(mtx) || !std::filesystem::exists(tsv))
    GTEST_SKIP() << "Graph Challenge data not found under " << kDnnDir;
  std::vector<Index> from_tsv;
  for (Index c : gc::read_categories(tsv))
    if (c < 1200) from_tsv.push_back(c);
  EXPECT_EQ(gc::read_categories(mtx), from_tsv);
}

class GraphChallengeIo : public ::testing::Test {
 protected:
  std::string path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("ringblas_gc_" + name)).string();
  }
  void write(const std::string& p, const std::string& text) { std::ofstream(p) << text; }
};

TEST_F(GraphChallengeIo, ReadsTsvTriplesOneBased) {
  const std::string p = path("w.tsv");
  write(p, "1\t1\t0.0625\n3\t2\t-1.5\n\n2 3 2\n");
  const Matrix a = gc::read_triples(p, 3, 3);
  std::remove(p.c_str());
  EXPECT_EQ(a.type(), Type::fp32);
  EXPECT_EQ(a.row_ptr_vector(), (std::vector<Index>{0, 1, 2, 3}));
  EXPECT_EQ(a.col_idx_vector(), (std::vector<Index>{0, 2, 1}));
  EXPECT_EQ(a.values_vector<float>(), (std::vector<float>{0.0625f, 2.0f, -1.5f}));
}

TEST_F(GraphChallengeIo, ImagesTakeTheirRowCountFromTheFile) {
  const std::string p = path("img.tsv");
  write(p, "5\t2\t1\n1\t4\t1\n");
  const Matrix a = gc::read_images(p, 4);
  std::remove(p.c_str());
  EXPECT_EQ(a.nrows(), 5);
  EXPECT_EQ(a.nnz(), 2);
}

TEST_F(GraphChallengeIo, RejectsBadLinesWithTheirLineNumber) {
  const std::string p = path("bad.tsv");
  write(p, "1\t1\t1\n2\tx\t1\n");
  try {
    gc::read_triples(p, 4, 4);
    ADD_FAILURE() << "no exception";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find(":2:"), std::string::npos) << e.what();
  }
  write(p, "1\t5\t1\n");
  EXPECT_THROW(gc::read_triples(p, 4, 4), ParseError);
  write(p, "1\t2\n");
  EXPECT_THROW(gc::read_triples(p, 4, 4), ParseError);
  std::remove(p.c_str());
}

TEST_F(GraphChallengeIo, ReadsCategoryIds) {
  const std::string p = path("cat.tsv");
  write(p, "7\n2\n3\n");
  EXPECT_EQ(gc::read_categories(p), (std::vector<Index>{1, 2, 6}));
  std::remove(p.c_str());
}

TEST(GraphChallengeRows, TakeRowsReplicatesCyclically) {
  const Matrix a = Matrix::from_triplets<float>(3, 2, {0, 2}, {1, 0}, {1.0f, 2.0f});
  const Matrix b = gc::take_rows(a, 7);
  EXPECT_EQ(b.nrows(), 7);
  EXPECT_EQ(b.row_ptr_vector(), (std::vector<Index>{0, 1, 1, 2, 3, 3, 4, 5}));
  EXPECT_EQ(b.col_idx_vector(), (std::vector<Index>{1, 0, 1, 0, 1}));
  EXPECT_EQ(gc::replicate_categories({0, 2}, 3, 7), (std::vector<Index>{0, 2, 3, 5, 6}));
  EXPECT_EQ(gc::bias_for(4096), -0.35f);
  EXPECT_THROW(gc::bias_for(1000), InvalidValue);
}

}  // namespace
