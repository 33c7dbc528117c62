// sparse_layer weight preparation on the host: the threaded prepare_layers gives each layer the
// blob a one-layer prepare_layer gives (no GPU needed; built with the CUDA backend only).
#include <gtest/gtest.h>

#include <vector>

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

}  // namespace
