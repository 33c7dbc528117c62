// sparse_layer weight preparation on the host: the threaded prepare_layers gives each layer the
// blob a one-layer prepare_layer gives; the broadcast ELL fill reorders only the rows' entries and
// makes them conflict-free (no GPU needed; built with the CUDA backend only).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

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

/// Per ELL row of a prepared layer: the shared-memory wavefronts of its 32 reads (the most
/// distinct slots any bank serves), summed; rows: the number of rows.
std::int64_t wavefronts(const sl::PreparedLayer& p, std::int64_t& rows) {
  const sl::BlobLayout& L = p.layout;
  const std::uint16_t* index = reinterpret_cast<const std::uint16_t*>(p.blob.data() + L.index);
  std::int64_t total = 0;
  rows = L.entries / 32;
  for (std::int64_t e = 0; e < rows; ++e) {
    int per_bank[32] = {};
    std::vector<int> seen;
    for (int lane = 0; lane < 32; ++lane) {
      const int slot = index[e * 32 + lane];
      if (std::find(seen.begin(), seen.end(), slot) != seen.end()) continue;
      seen.push_back(slot);
      ++per_bank[slot & 31];
    }
    total += *std::max_element(per_bank, per_bank + 32);
  }
  return total;
}

TEST(SparseLayerPrepare, BroadcastFillReordersEntriesWithoutConflicts) {
  // RadiX-Net at 1024 (the Graph Challenge network): from layer 7 on, 16 outputs share each
  // input set and the bank fill leaves ~2.4 wavefronts per row (notes, session 10).
  const std::vector<Matrix> w = radixnet::generate(1024, 12);
  const sl::PreparedChain bank = sl::prepare_chain(w, 2, sl::EllFill::bank);
  const sl::PreparedChain broadcast = sl::prepare_chain(w, 2, sl::EllFill::broadcast);
  ASSERT_EQ(broadcast.order, bank.order);
  std::int64_t rows = 0, wf_bank = 0, wf_broadcast = 0;
  for (std::size_t k = 0; k < w.size(); ++k) {
    const sl::PreparedLayer &a = bank.layers[k], &b = broadcast.layers[k];
    const sl::BlobLayout &la = a.layout, &lb = b.layout;
    ASSERT_EQ(lb.words, la.words) << "layer " << k;
    ASSERT_EQ(lb.index, la.index) << "layer " << k;
    ASSERT_EQ(lb.value, la.value) << "layer " << k;
    ASSERT_EQ(lb.entries, la.entries) << "layer " << k;
    // Headers and maps byte for byte; each lane's (slot, weight) pairs of a warp's rows the same.
    EXPECT_TRUE(
        std::equal(b.blob.begin(), b.blob.begin() + std::ptrdiff_t(lb.index), a.blob.begin()))
        << "layer " << k;
    const auto* ia = reinterpret_cast<const std::uint16_t*>(a.blob.data() + la.index);
    const auto* ib = reinterpret_cast<const std::uint16_t*>(b.blob.data() + lb.index);
    const auto* va = reinterpret_cast<const float*>(a.blob.data() + la.value);
    const auto* vb = reinterpret_cast<const float*>(b.blob.data() + lb.value);
    const auto* wd = reinterpret_cast<const std::int32_t*>(a.blob.data() + la.warp_displ);
    for (std::int32_t x = 0; x < la.stages * 8; ++x)
      for (int lane = 0; lane < 32; ++lane) {
        std::vector<std::pair<int, float>> pa, pb;
        for (std::int64_t e = wd[x]; e < wd[x + 1]; ++e) {
          pa.emplace_back(ia[e * 32 + lane], va[e * 32 + lane]);
          pb.emplace_back(ib[e * 32 + lane], vb[e * 32 + lane]);
        }
        std::sort(pa.begin(), pa.end());
        std::sort(pb.begin(), pb.end());
        ASSERT_EQ(pb, pa) << "layer " << k << " (stage, warp) " << x << " lane " << lane;
      }
    std::int64_t r = 0;
    wf_bank += wavefronts(a, r);
    wf_broadcast += wavefronts(b, r);
    rows += r;
  }
  EXPECT_LE(double(wf_broadcast), 1.05 * double(rows));
  EXPECT_GE(double(wf_bank), 1.5 * double(rows));  // what the broadcast fill is for
}

}  // namespace
