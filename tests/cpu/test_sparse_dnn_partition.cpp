// Partitioning for distributed sparse DNN inference, without MPI: row ranges per rank, slices,
// the rebalancing plan and transport packing, the category merge, and the whole distributed flow
// simulated rank by rank against a single-process run.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "algorithms/sparse_dnn.hpp"
#include "algorithms/sparse_dnn_partition.hpp"
#include "ringblas/ringblas.hpp"
#include "support/random_matrix.hpp"

namespace {

using namespace ringblas;
namespace sd = ringblas::sparse_dnn;

Matrix random_sparse(test::Rng& rng, Index m, Index n, double density, int lo, int hi) {
  return test::random_steps(rng, m, n, density, lo, hi, 4.0f);
}

/// Mixed-sign weights and a negative bias: images die at different layers, unevenly.
sd::Network random_network(test::Rng& rng, Index n, Index layers) {
  sd::Network net;
  net.neurons = n;
  net.ymax = 3.0f;
  for (Index k = 0; k < layers; ++k) {
    net.weights.push_back(random_sparse(rng, n, n, 0.25, -4, 6));
    net.bias.push_back(-0.25f);
  }
  return net;
}

/// The CLI's distributed flow (examples/cli/spdnn_mpi.cpp) with the messages done by hand:
/// static blocks, layers up to `cut`, an all-to-all of packed rows by transfer_counts when the
/// imbalance exceeds `threshold`, the remaining layers, then the merged categories.
std::vector<Index> simulate_ranks(const sd::Network& net, const Matrix& y0, Index ranks, Index cut,
                                  double threshold, bool* moved) {
  auto [head, tail] = sd::split_layers(net, cut);
  Context ctx(Backend::cpu);
  std::vector<sd::FeatureSlice> slices;
  for (const sd::RowRange& r : sd::partition_rows(y0.nrows(), ranks))
    slices.push_back(sd::active_rows(sd::infer(head, sd::slice_rows(y0, r).rows, ctx),
                                     sd::slice_rows(y0, r).ids));
  std::vector<Index> active;
  for (const auto& s : slices) active.push_back(Index(s.ids.size()));
  *moved = tail.layers() > 0 && sd::imbalance(active) > threshold;
  if (*moved) {
    const auto counts = sd::transfer_counts(active);
    std::vector<sd::PackedRows> inbox(static_cast<std::size_t>(ranks));
    for (Index s = 0; s < ranks; ++s) {
      const sd::PackedRows p = sd::pack(slices[std::size_t(s)]);
      const std::vector<Index> entries = sd::entries_per_group(p, counts[std::size_t(s)]);
      Index row = 0, entry = 0;
      for (Index d = 0; d < ranks; ++d) {  // what MPI_Alltoallv does, source order kept
        const Index nr = counts[std::size_t(s)][std::size_t(d)], ne = entries[std::size_t(d)];
        auto& box = inbox[std::size_t(d)];
        box.ids.insert(box.ids.end(), p.ids.begin() + row, p.ids.begin() + row + nr);
        box.lengths.insert(box.lengths.end(), p.lengths.begin() + row,
                           p.lengths.begin() + row + nr);
        box.cols.insert(box.cols.end(), p.cols.begin() + entry, p.cols.begin() + entry + ne);
        box.values.insert(box.values.end(), p.values.begin() + entry,
                          p.values.begin() + entry + ne);
        row += nr;
        entry += ne;
      }
    }
    for (Index d = 0; d < ranks; ++d)
      slices[std::size_t(d)] = sd::unpack(inbox[std::size_t(d)], net.neurons);
  }
  std::vector<std::vector<Index>> per_rank;
  for (auto& s : slices) {
    if (tail.layers() > 0) s = sd::active_rows(sd::infer(tail, s.rows, ctx), s.ids);
    per_rank.push_back(s.ids);
  }
  return sd::merge_categories(per_rank);
}

TEST(SparseDnnPartition, RowRangesCoverTheRowsEvenly) {
  for (Index rows : {0, 1, 7, 1200, 1201}) {
    for (Index parts : {1, 2, 3, 4, 8}) {
      const auto r = sd::partition_rows(rows, parts);
      ASSERT_EQ(Index(r.size()), parts);
      Index at = 0, smallest = rows, largest = 0;
      for (const auto& x : r) {
        EXPECT_EQ(x.begin, at) << rows << " rows, " << parts << " parts";
        at = x.end;
        smallest = std::min(smallest, x.size());
        largest = std::max(largest, x.size());
      }
      EXPECT_EQ(at, rows);
      EXPECT_LE(largest - smallest, 1);
    }
  }
  EXPECT_EQ(sd::partition_rows(1200, 2), (std::vector<sd::RowRange>{{0, 600}, {600, 1200}}));
  EXPECT_EQ(sd::partition_rows(5, 3), (std::vector<sd::RowRange>{{0, 2}, {2, 4}, {4, 5}}));
  EXPECT_THROW(sd::partition_rows(10, 0), InvalidValue);
  EXPECT_THROW(sd::partition_rows(-1, 2), InvalidValue);
}

TEST(SparseDnnPartition, SlicesKeepGlobalIdsAndRows) {
  test::Rng rng(3);
  const Matrix y = random_sparse(rng, 9, 6, 0.3, 1, 4);
  const sd::FeatureSlice s = sd::slice_rows(y, {3, 7});
  EXPECT_EQ(s.ids, (std::vector<Index>{3, 4, 5, 6}));
  const auto rp = y.row_ptr_vector(), ci = y.col_idx_vector(), srp = s.rows.row_ptr_vector(),
             sci = s.rows.col_idx_vector();
  ASSERT_EQ(s.rows.nrows(), 4);
  for (Index i = 0; i < 4; ++i)
    EXPECT_EQ(std::vector<Index>(sci.begin() + srp[i], sci.begin() + srp[i + 1]),
              std::vector<Index>(ci.begin() + rp[i + 3], ci.begin() + rp[i + 4]));
  EXPECT_THROW(sd::slice_rows(y, {5, 10}), InvalidValue);
  EXPECT_EQ(sd::slice_rows(y, {9, 9}).rows.nrows(), 0);
}

TEST(SparseDnnPartition, ActiveRowsDropEmptyRowsWithTheirIds) {
  const Matrix y = Matrix::from_triplets<float>(5, 3, {0, 0, 3}, {1, 2, 0}, {1.0f, 2.0f, 3.0f});
  const sd::FeatureSlice a = sd::active_rows(y, {10, 11, 12, 13, 14});
  EXPECT_EQ(a.ids, (std::vector<Index>{10, 13}));
  EXPECT_EQ(a.rows.nrows(), 2);
  EXPECT_EQ(a.rows.col_idx_vector(), (std::vector<Index>{1, 2, 0}));
  EXPECT_EQ(a.rows.values_vector<float>(), (std::vector<float>{1.0f, 2.0f, 3.0f}));
  EXPECT_THROW(sd::active_rows(y, {1, 2}), DimensionMismatch);
}

TEST(SparseDnnPartition, TransferCountsEvenOutTheActiveRows) {
  for (const std::vector<Index>& active : std::vector<std::vector<Index>>{
           {7, 12}, {46, 52}, {0, 0, 9}, {5, 0, 0, 3}, {0, 0}, {100}, {1, 1, 1, 10}}) {
    const auto c = sd::transfer_counts(active);
    const Index ranks = Index(active.size());
    const Index total = std::accumulate(active.begin(), active.end(), Index{0});
    const auto target = sd::partition_rows(total, ranks);
    for (Index s = 0; s < ranks; ++s) {
      Index sent = 0, received = 0;
      for (Index d = 0; d < ranks; ++d) {
        sent += c[std::size_t(s)][std::size_t(d)];
        received += c[std::size_t(d)][std::size_t(s)];
      }
      EXPECT_EQ(sent, active[std::size_t(s)]);  // every row goes somewhere, once
      EXPECT_EQ(received, target[std::size_t(s)].size());
    }
  }
  // 7 and 12 rows: rank 1 gives its first 3 rows to rank 0 and keeps 9.
  EXPECT_EQ(sd::transfer_counts({7, 12}), (std::vector<std::vector<Index>>{{7, 0}, {3, 9}}));
  EXPECT_DOUBLE_EQ(sd::imbalance({7, 12}), 12.0 / 9.5 - 1.0);
  EXPECT_DOUBLE_EQ(sd::imbalance({0, 0}), 0.0);
  EXPECT_DOUBLE_EQ(sd::imbalance({4, 4, 4}), 0.0);
}

TEST(SparseDnnPartition, PackUnpackRoundTripsAndSplitsByGroups) {
  test::Rng rng(5);
  sd::FeatureSlice s =
      sd::active_rows(random_sparse(rng, 8, 5, 0.35, 1, 8), {2, 3, 5, 8, 13, 21, 34, 55});
  const sd::PackedRows p = sd::pack(s);
  const sd::FeatureSlice back = sd::unpack(p, 5);
  EXPECT_EQ(back.ids, s.ids);
  EXPECT_EQ(back.rows.row_ptr_vector(), s.rows.row_ptr_vector());
  EXPECT_EQ(back.rows.col_idx_vector(), s.rows.col_idx_vector());
  EXPECT_EQ(back.rows.values_vector<float>(), s.rows.values_vector<float>());
  const Index n = Index(s.ids.size());
  const std::vector<Index> groups{1, n - 1, 0};
  const auto e = sd::entries_per_group(p, groups);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0], p.lengths[0]);
  EXPECT_EQ(e[0] + e[1], Index(p.cols.size()));
  EXPECT_EQ(e[2], 0);
  EXPECT_THROW(sd::entries_per_group(p, {n + 1}), InvalidValue);
  EXPECT_THROW(sd::entries_per_group(p, {1}), InvalidValue);
  sd::PackedRows broken = p;
  broken.lengths.back() += 1;
  EXPECT_THROW(sd::unpack(broken, 5), InvalidValue);
}

TEST(SparseDnnPartition, MergeCategoriesIsTheUnionAndRejectsOverlap) {
  EXPECT_EQ(sd::merge_categories({{1, 4}, {}, {600, 601}, {7}}),
            (std::vector<Index>{1, 4, 7, 600, 601}));
  EXPECT_EQ(sd::merge_categories({}), std::vector<Index>{});
  EXPECT_THROW(sd::merge_categories({{1, 4}, {4}}), InvalidValue);
  EXPECT_THROW(sd::merge_categories({{4, 1}}), InvalidValue);
  EXPECT_THROW(sd::merge_categories({{3, 3}}), InvalidValue);
}

TEST(SparseDnnPartition, SplitLayersKeepsEveryLayerOnce) {
  test::Rng rng(9);
  const sd::Network net = random_network(rng, 6, 5);
  for (Index k : {0, 2, 5}) {
    auto [head, tail] = sd::split_layers(net, k);
    EXPECT_EQ(head.layers(), k);
    EXPECT_EQ(tail.layers(), 5 - k);
    EXPECT_EQ(head.edges() + tail.edges(), net.edges());
    EXPECT_EQ(tail.ymax, net.ymax);
    if (k < 5)
      EXPECT_EQ(tail.weights[0].col_idx_vector(), net.weights[std::size_t(k)].col_idx_vector());
  }
  EXPECT_THROW(sd::split_layers(net, 6), InvalidValue);
}

TEST(SparseDnnPartition, SimulatedRanksGiveTheSingleProcessCategories) {
  test::Rng rng(17);
  const sd::Network net = random_network(rng, 12, 6);
  const Matrix y0 = random_sparse(rng, 41, 12, 0.3, 1, 4);
  Context ctx(Backend::cpu);
  sd::InferStats stats;
  stats.fused = true;  // reset by infer: the cpu path is not the fused chain
  const std::vector<Index> want = sd::categories(sd::infer(net, y0, ctx, {}, &stats));
  EXPECT_FALSE(stats.fused);
  ASSERT_GT(want.size(), 0u);
  ASSERT_LT(want.size(), 41u);  // some images die, so partitions and moves matter
  int moves = 0;
  for (Index ranks : {1, 2, 3, 4, 7})
    for (Index cut : {6, 1, 3}) {  // 6: no rebalancing step
      bool moved = false;
      EXPECT_EQ(simulate_ranks(net, y0, ranks, cut, 0.0, &moved), want)
          << ranks << " ranks, cut after layer " << cut;
      moves += moved;
      EXPECT_EQ(simulate_ranks(net, y0, ranks, cut, 1e9, &moved), want)
          << ranks << " ranks, no move";
      EXPECT_FALSE(moved);
    }
  EXPECT_GT(moves, 0);  // the exchange path ran
}

}  // namespace
