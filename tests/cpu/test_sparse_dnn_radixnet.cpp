// RadiX-Net generator: reproduces every official 1024-neuron layer exactly, and builds larger
// networks with the same shape (32 entries per row and column, weight 1/16).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "algorithms/graph_challenge_io.hpp"
#include "algorithms/radixnet.hpp"
#include "ringblas/ringblas.hpp"

namespace {

using namespace ringblas;
namespace gc = ringblas::graph_challenge;

const std::string kDnnDir = std::string(RINGBLAS_DATA_DIR) + "/graphchallenge_dnn";

/// 32 entries in every row and every column, every value 1/16.
void expect_radixnet_shape(const Matrix& w, Index n) {
  ASSERT_EQ(w.nrows(), n);
  ASSERT_EQ(w.ncols(), n);
  w.check_invariants();
  const auto rp = w.row_ptr_vector(), ci = w.col_idx_vector();
  std::vector<Index> col_count(std::size_t(n), 0);
  for (Index i = 0; i < n; ++i) {
    ASSERT_EQ(rp[i + 1] - rp[i], 32) << "row " << i;
    for (Index p = rp[i]; p < rp[i + 1]; ++p) ++col_count[ci[p]];
  }
  for (Index j = 0; j < n; ++j) ASSERT_EQ(col_count[j], 32) << "column " << j;
  for (float v : w.values_vector<float>()) ASSERT_EQ(v, 1.0f / 16.0f);
}

TEST(RadixNet, ReproducesAll120Official1024Layers) {
  if (gc::find_layer(kDnnDir, 1024, 1).empty() || gc::find_layer(kDnnDir, 1024, 120).empty())
    GTEST_SKIP() << "Graph Challenge layers not found under " << kDnnDir;
  radixnet::Generator gen(1024);
  EXPECT_EQ(gen.block_length(), 6);
  std::set<std::vector<Index>> distinct;
  for (Index k = 1; k <= 120; ++k) {
    const Matrix want = gc::read_layer(kDnnDir, 1024, k);
    const Matrix got = gen.next();
    ASSERT_EQ(got.row_ptr_vector(), want.row_ptr_vector()) << "layer " << k;
    ASSERT_EQ(got.col_idx_vector(), want.col_idx_vector()) << "layer " << k;
    ASSERT_EQ(got.values_vector<float>(), want.values_vector<float>()) << "layer " << k;
    distinct.insert(got.col_idx_vector());
  }
  EXPECT_EQ(distinct.size(), 120u);  // the data README: all 120 layers are distinct
}

TEST(RadixNet, LargerNetworksHaveTheChallengeShape) {
  for (Index n : {Index(4096), Index(16384)}) {
    radixnet::Generator gen(n);
    const int block = gen.block_length();
    EXPECT_EQ(Index{16} << block, n);
    std::vector<Matrix> layers;
    for (int k = 0; k < block + 2; ++k) layers.push_back(gen.next());
    for (const Matrix& w : layers) expect_radixnet_shape(w, n);
    // First block: row r connects to columns c with (r - c) mod M in {0, 2^(k-1)}.
    const Index m = n / 16;
    const auto rp = layers[1].row_ptr_vector(), ci = layers[1].col_idx_vector();
    for (Index r = 0; r < n; r += 97)
      for (Index p = rp[r]; p < rp[r + 1]; ++p) {
        const Index d = ((r - ci[p]) % m + m) % m;
        EXPECT_TRUE(d == 0 || d == 2) << "n " << n << " row " << r << " col " << ci[p];
      }
    // A new block permutes the rows: the first layer of block 2 differs from layer 1.
    EXPECT_NE(layers[std::size_t(block)].col_idx_vector(), layers[0].col_idx_vector());
  }
}

TEST(RadixNet, SeedChangesThePermutedBlocksOnly) {
  radixnet::Generator a(1024), b(1024, 7);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(a.next().col_idx_vector(), b.next().col_idx_vector());
  EXPECT_NE(a.next().col_idx_vector(), b.next().col_idx_vector());
  EXPECT_EQ(radixnet::generate(1024, 3).size(), 3u);
}

TEST(RadixNet, RejectsSizesThatAreNot16TimesAPowerOfTwo) {
  EXPECT_THROW(radixnet::Generator(1000), InvalidValue);
  EXPECT_THROW(radixnet::Generator(16), InvalidValue);
  EXPECT_THROW(radixnet::Generator(16 * 48), InvalidValue);
}

}  // namespace
