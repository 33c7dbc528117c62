// Feature partitioning for distributed sparse DNN inference: row ranges per rank, slices of
// images that keep their global ids, the rebalancing plan and the merge of per-rank categories.
//
// Method (Hidayetoglu et al., HPEC 2020, multi-GPU): the weights are replicated, the features
// (image rows of Y_0) are split into R contiguous blocks, each rank runs sparse_dnn::infer on its
// block, and the categories are the union of the ranks' surviving global row ids. Rebalancing
// after layer K: the active rows, taken in rank order, are cut again into R equal contiguous
// blocks, so rank s sends to rank d the overlap of its active positions with d's new block.
// Everything here is plain host code with no communication: the caller moves the packed rows
// (examples/cli/spdnn_mpi.cpp does it with MPI_Alltoallv).
#pragma once
#include <utility>
#include <vector>

#include "algorithms/sparse_dnn.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::sparse_dnn {

/// Rows [begin, end).
struct RowRange {
  Index begin = 0, end = 0;
  Index size() const { return end - begin; }
  bool operator==(const RowRange&) const = default;
};

/// `rows` split into `parts` contiguous ranges covering [0, rows), in order, whose sizes differ by
/// at most one (the first rows % parts ranges get the extra row). InvalidValue for parts < 1 or
/// rows < 0.
std::vector<RowRange> partition_rows(Index rows, Index parts);

/// Some rows of the features, each with its 0-based id in the whole feature matrix (ascending).
struct FeatureSlice {
  Matrix rows;             ///< ids.size() x neurons, fp32, on the host
  std::vector<Index> ids;  ///< global row id of each row
};

/// Rows `range` of `features` (host), as fp32, ids range.begin .. range.end - 1.
/// InvalidValue when the range is outside the matrix.
FeatureSlice slice_rows(const Matrix& features, RowRange range);

/// The rows of `y` (host; the result of infer on a slice with these `ids`) that hold an entry:
/// the features still active. DimensionMismatch when ids.size() != y.nrows().
FeatureSlice active_rows(const Matrix& y, const std::vector<Index>& ids);

/// `net` cut after layer `k` (0 <= k <= layers): layers 1..k and k+1..L, biases and ymax kept.
/// Takes the network by value so that the caller can move it in and copy no weights.
std::pair<Network, Network> split_layers(Network net, Index k);

/// Load imbalance of the per-rank active counts: max / mean - 1 (0 when perfectly even or when
/// nothing is active).
double imbalance(const std::vector<Index>& active);

/// counts[s][d]: rows rank s sends to rank d so that every rank ends with an equal contiguous
/// share (partition_rows) of the active rows taken in rank order. counts[s][s] rows stay.
std::vector<std::vector<Index>> transfer_counts(const std::vector<Index>& active);

/// A slice flattened for transport: per row its id and length, then all columns and values.
/// Consecutive rows stay consecutive, so the packed form of rows [a, b) is a contiguous range of
/// every field, and appending packed slices is packing their concatenation.
struct PackedRows {
  std::vector<Index> ids, lengths, cols;
  std::vector<float> values;
};
PackedRows pack(const FeatureSlice& slice);
/// InvalidValue naming the first inconsistency (lengths vs entries, column out of range).
FeatureSlice unpack(const PackedRows& packed, Index neurons);

/// Entries (cols/values) in each consecutive group of `row_counts[i]` rows of `packed`.
/// InvalidValue when the counts do not add up to the packed rows.
std::vector<Index> entries_per_group(const PackedRows& packed,
                                     const std::vector<Index>& row_counts);

/// The categories of the whole feature matrix from each rank's (ascending global ids): their
/// union, ascending. InvalidValue when a rank's list is not ascending or two ranks report the
/// same row (the partition was not disjoint).
std::vector<Index> merge_categories(const std::vector<std::vector<Index>>& per_rank);

}  // namespace ringblas::sparse_dnn
