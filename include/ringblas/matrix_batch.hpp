// A batch of sparse matrices held as one block-diagonal CSR matrix, built once, so that the
// stacked mxm_batched over it costs O(1) host work per call (issue 9: 10,000 Tox21 graphs cost
// 235 us of host time per call when every call walks the items).
#pragma once
#include <cstddef>
#include <vector>

#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"
#include "ringblas/ops.hpp"

namespace ringblas {

/// diag(A[0], ..., A[N-1]) of N items, built once at the items' location (on the device by one
/// kernel, with no host copy of the items), with the offsets of each item's rows and columns.
///
/// Rules: every item must be at one location (InvalidValue naming the first that is not); the
/// block-diagonal has item 0's value type (the other items are cast to it, GraphBLAS
/// typecasting, as the stacked mxm_batched's cpu executor does), 32-bit indices when its rows,
/// columns and entries fit them (else 64-bit), whatever the items' index types. An empty batch
/// is a 0 x 0 fp64 matrix on the host.
class MatrixBatch {
 public:
  /// The empty batch.
  MatrixBatch();
  /// Copies the items into the block-diagonal matrix (the items are not kept).
  explicit MatrixBatch(const std::vector<Matrix>& items, Context& ctx = default_context());

  std::size_t size() const { return row0_.size() - 1; }
  Index item_rows(std::size_t b) const { return row0_[b + 1] - row0_[b]; }
  Index item_cols(std::size_t b) const { return col0_[b + 1] - col0_[b]; }
  /// First row / column of item b in block_diagonal(); row_offset(size()) = its rows.
  Index row_offset(std::size_t b) const { return row0_[b]; }
  Index col_offset(std::size_t b) const { return col0_[b]; }
  /// The largest item's rows and columns (the inner dimension that bounds a float sum).
  Index max_item_rows() const { return max_rows_; }
  Index max_item_cols() const { return max_cols_; }
  const Matrix& block_diagonal() const { return diag_; }
  Location location() const { return diag_.location(); }

 private:
  std::vector<Index> row0_, col0_;  // size() + 1 prefix sums of the items' rows and columns
  Index max_rows_ = 0, max_cols_ = 0;
  Matrix diag_;
};

}  // namespace ringblas
