// sparse_layer weight preparation on the host: the threaded prepare_layers gives each layer the
// blob a one-layer prepare_layer gives (no GPU needed; built with the CUDA backend only).
#include <gtest/gtest.h>

#include <vector>

#include <algorithm>
#include <numeric>

#include "algorithms/radixnet.hpp"
#include "backend/cuda/sparse_layer/prepare.hpp"
#include "support/random_matrix.hpp"

namespace {

using namespace ringblas;
namespace sl = ringblas::cuda::sparse_layer;

TEST(SparseLayerPrepare, ThreadedLayersEqualOneByOne) {
  std::vector<Matrix> weights;
  for (int k = 0; k < 13; ++k)  // shapes vary, one layer empty, more layers than threads
    weights.push_back(test::random_matrix(300 + 37 * k, 300 + 37 * k, k == 5 ? 0.0 : 0.02 + 0.01 * k,
                                          Type::fp32, 100 + k));
  const auto threaded = sl::prepare_layers(weights, 4);
  const auto single = sl::prepare_layers(weights, 1);
  ASSERT_EQ(threaded.size(), weights.size());
  for (std::size_t k = 0; k < weights.size(); ++k) {
    const auto want = sl::prepare_layer(sl::transpose_host(weights[k]));
    EXPECT_EQ(threaded[k].blob, want.blob) << "layer " << k;
    EXPECT_EQ(single[k].blob, want.blob) << "layer " << k;
    EXPECT_EQ(threaded[k].layout.entries, want.layout.entries) << "layer " << k;
  }
  EXPECT_TRUE(sl::prepare_layers({}, 4).empty());
}

TEST(SparseLayerPrepare, ChainOrdersGroupOutputsThatShareInputs) {
  const std::vector<Matrix> w = radixnet::generate(16384, 3);
  const sl::PreparedChain chain = sl::prepare_chain(w, 2);
  ASSERT_EQ(chain.order.size(), w.size());
  std::int64_t stages_chain = 0, stages_plain = 0;
  for (std::size_t k = 0; k < w.size(); ++k) {
    // A permutation, sorted by each output's smallest input.
    const Matrix a = sl::transpose_host(w[k]);
    const auto rp = a.row_ptr_vector(), ci = a.col_idx_vector();
    std::vector<std::int32_t> sorted = chain.order[k];
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::int32_t> iota(sorted.size());
    std::iota(iota.begin(), iota.end(), 0);
    ASSERT_EQ(sorted, iota) << "layer " << k;
    for (std::size_t t = 1; t < chain.order[k].size(); ++t) {
      const auto j0 = std::size_t(chain.order[k][t - 1]), j1 = std::size_t(chain.order[k][t]);
      ASSERT_LE(ci[std::size_t(rp[j0])], ci[std::size_t(rp[j1])]) << "layer " << k << " position " << t;
    }
    stages_chain += chain.layers[k].layout.stages;
    stages_plain += sl::prepare_layer(a).layout.stages;
  }
  // RadiX-Net reads every input set from 16 outputs: grouped, a block of 256 outputs reads at
  // most 16 x 32 = 512 inputs, one stage, where consecutive outputs need four or more.
  EXPECT_EQ(stages_chain, std::int64_t(w.size()) * 64);
  EXPECT_GE(stages_plain, 4 * stages_chain);
}

}  // namespace
