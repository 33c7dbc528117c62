// Feature partitioning for distributed sparse DNN inference (method in sparse_dnn_partition.hpp).
#include "algorithms/sparse_dnn_partition.hpp"

#include <algorithm>
#include <string>

#include "ringblas/error.hpp"

namespace ringblas::sparse_dnn {
namespace {

Matrix host_fp32(const Matrix& m, const char* where) {
  if (m.location() != Location::host)
    throw InvalidValue(std::string(where) + ": the matrix must be on the host");
  return m.type() == Type::fp32 ? m : m.cast(Type::fp32);
}

}  // namespace

std::vector<RowRange> partition_rows(Index rows, Index parts) {
  if (parts < 1 || rows < 0)
    throw InvalidValue("sparse_dnn::partition_rows: cannot split " + std::to_string(rows) +
                       " rows into " + std::to_string(parts) + " parts");
  std::vector<RowRange> out;
  const Index base = rows / parts, extra = rows % parts;
  Index at = 0;
  for (Index p = 0; p < parts; ++p) {
    const Index n = base + (p < extra ? 1 : 0);
    out.push_back({at, at + n});
    at += n;
  }
  return out;
}

FeatureSlice slice_rows(const Matrix& features, RowRange range) {
  if (range.begin < 0 || range.end < range.begin || range.end > features.nrows())
    throw InvalidValue("sparse_dnn::slice_rows: rows [" + std::to_string(range.begin) + ", " +
                       std::to_string(range.end) + ") outside a " +
                       std::to_string(features.nrows()) + "-row matrix");
  const Matrix f = host_fp32(features, "sparse_dnn::slice_rows");
  const std::vector<Index> rp = f.row_ptr_vector(), ci = f.col_idx_vector();
  const std::vector<float> v = f.values_vector<float>();
  const Index first = rp[std::size_t(range.begin)], last = rp[std::size_t(range.end)];
  std::vector<Index> row_ptr, cols(ci.begin() + first, ci.begin() + last);
  std::vector<float> vals(v.begin() + first, v.begin() + last);
  for (Index i = range.begin; i <= range.end; ++i) row_ptr.push_back(rp[std::size_t(i)] - first);
  FeatureSlice s;
  s.rows = Matrix::from_csr(range.size(), f.ncols(), row_ptr, cols, vals);
  for (Index i = range.begin; i < range.end; ++i) s.ids.push_back(i);
  return s;
}

FeatureSlice active_rows(const Matrix& y, const std::vector<Index>& ids) {
  if (Index(ids.size()) != y.nrows())
    throw DimensionMismatch("sparse_dnn::active_rows: " + std::to_string(ids.size()) + " ids for " +
                            std::to_string(y.nrows()) + " rows");
  const Matrix f = host_fp32(y, "sparse_dnn::active_rows");
  const std::vector<Index> rp = f.row_ptr_vector(), ci = f.col_idx_vector();
  const std::vector<float> v = f.values_vector<float>();
  std::vector<Index> row_ptr{0}, cols;
  std::vector<float> vals;
  FeatureSlice s;
  for (Index i = 0; i < f.nrows(); ++i) {
    const Index b = rp[std::size_t(i)], e = rp[std::size_t(i + 1)];
    if (b == e) continue;
    cols.insert(cols.end(), ci.begin() + b, ci.begin() + e);
    vals.insert(vals.end(), v.begin() + b, v.begin() + e);
    row_ptr.push_back(Index(cols.size()));
    s.ids.push_back(ids[std::size_t(i)]);
  }
  s.rows = Matrix::from_csr(Index(s.ids.size()), f.ncols(), row_ptr, cols, vals);
  return s;
}

std::pair<Network, Network> split_layers(Network net, Index k) {
  net.check();
  if (k < 0 || k > net.layers())
    throw InvalidValue("sparse_dnn::split_layers: cannot cut a " + std::to_string(net.layers()) +
                       "-layer network after layer " + std::to_string(k));
  Network tail;
  tail.neurons = net.neurons;
  tail.ymax = net.ymax;
  tail.weights.assign(std::make_move_iterator(net.weights.begin() + k),
                      std::make_move_iterator(net.weights.end()));
  tail.bias.assign(net.bias.begin() + k, net.bias.end());
  net.weights.resize(std::size_t(k));
  net.bias.resize(std::size_t(k));
  return {std::move(net), std::move(tail)};
}

double imbalance(const std::vector<Index>& active) {
  Index total = 0, most = 0;
  for (Index a : active) {
    total += a;
    most = std::max(most, a);
  }
  if (total == 0) return 0.0;
  return double(most) * double(active.size()) / double(total) - 1.0;
}

std::vector<std::vector<Index>> transfer_counts(const std::vector<Index>& active) {
  const Index ranks = Index(active.size());
  Index total = 0;
  for (Index a : active) {
    if (a < 0) throw InvalidValue("sparse_dnn::transfer_counts: negative active count");
    total += a;
  }
  const std::vector<RowRange> target = partition_rows(total, std::max<Index>(ranks, 1));
  std::vector<std::vector<Index>> counts(std::size_t(ranks),
                                         std::vector<Index>(std::size_t(ranks), 0));
  Index at = 0;  // position of rank s's first active row in rank order
  for (Index s = 0; s < ranks; ++s) {
    const Index b = at, e = at + active[std::size_t(s)];
    for (Index d = 0; d < ranks; ++d) {
      const Index lo = std::max(b, target[std::size_t(d)].begin);
      const Index hi = std::min(e, target[std::size_t(d)].end);
      if (hi > lo) counts[std::size_t(s)][std::size_t(d)] = hi - lo;
    }
    at = e;
  }
  return counts;
}

PackedRows pack(const FeatureSlice& slice) {
  if (Index(slice.ids.size()) != slice.rows.nrows())
    throw DimensionMismatch("sparse_dnn::pack: " + std::to_string(slice.ids.size()) + " ids for " +
                            std::to_string(slice.rows.nrows()) + " rows");
  const Matrix f = host_fp32(slice.rows, "sparse_dnn::pack");
  const std::vector<Index> rp = f.row_ptr_vector();
  PackedRows p;
  p.ids = slice.ids;
  for (Index i = 0; i < f.nrows(); ++i)
    p.lengths.push_back(rp[std::size_t(i + 1)] - rp[std::size_t(i)]);
  p.cols = f.col_idx_vector();
  p.values = f.values_vector<float>();
  return p;
}

FeatureSlice unpack(const PackedRows& packed, Index neurons) {
  if (packed.lengths.size() != packed.ids.size() || packed.cols.size() != packed.values.size())
    throw InvalidValue("sparse_dnn::unpack: " + std::to_string(packed.ids.size()) + " ids, " +
                       std::to_string(packed.lengths.size()) + " lengths, " +
                       std::to_string(packed.cols.size()) + " columns and " +
                       std::to_string(packed.values.size()) + " values do not match");
  std::vector<Index> row_ptr{0};
  for (Index len : packed.lengths) {
    if (len < 0) throw InvalidValue("sparse_dnn::unpack: negative row length");
    row_ptr.push_back(row_ptr.back() + len);
  }
  if (row_ptr.back() != Index(packed.cols.size()))
    throw InvalidValue("sparse_dnn::unpack: row lengths add up to " +
                       std::to_string(row_ptr.back()) + " entries but " +
                       std::to_string(packed.cols.size()) + " were received");
  FeatureSlice s;
  s.rows = Matrix::from_csr(Index(packed.ids.size()), neurons, row_ptr, packed.cols, packed.values);
  s.ids = packed.ids;
  return s;
}

std::vector<Index> entries_per_group(const PackedRows& packed,
                                     const std::vector<Index>& row_counts) {
  std::vector<Index> out;
  std::size_t row = 0;
  for (Index c : row_counts) {
    if (c < 0 || row + std::size_t(c) > packed.lengths.size())
      throw InvalidValue("sparse_dnn::entries_per_group: groups of rows exceed the " +
                         std::to_string(packed.lengths.size()) + " packed rows");
    Index e = 0;
    for (Index i = 0; i < c; ++i) e += packed.lengths[row++];
    out.push_back(e);
  }
  if (row != packed.lengths.size())
    throw InvalidValue("sparse_dnn::entries_per_group: groups cover " + std::to_string(row) +
                       " of " + std::to_string(packed.lengths.size()) + " packed rows");
  return out;
}

std::vector<Index> merge_categories(const std::vector<std::vector<Index>>& per_rank) {
  std::vector<Index> out;
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    const auto& c = per_rank[r];
    if (!std::is_sorted(c.begin(), c.end()) || std::adjacent_find(c.begin(), c.end()) != c.end())
      throw InvalidValue("sparse_dnn::merge_categories: rank " + std::to_string(r) +
                         "'s categories are not strictly ascending");
    out.insert(out.end(), c.begin(), c.end());
  }
  std::sort(out.begin(), out.end());
  const auto dup = std::adjacent_find(out.begin(), out.end());
  if (dup != out.end())
    throw InvalidValue("sparse_dnn::merge_categories: row " + std::to_string(*dup) +
                       " is reported by two ranks");
  return out;
}

}  // namespace ringblas::sparse_dnn
