// diag(A[0], ..., A[N-1]) of a batch of CSR matrices: where each item lands (BlockLayout) and the
// host build; the device build is cuda::block_diagonal (backend/cuda/block_diagonal/). Used by
// MatrixBatch and by the cpu executor of the stacked mxm_batched.
#pragma once
#include <vector>

#include "ringblas/matrix.hpp"

namespace ringblas::detail {

/// Item b's rows start at row0[b], its columns at col0[b], its entries at nnz0[b] (N + 1 prefix
/// sums each); the block-diagonal has item 0's value type (fp64 for no items) and 32-bit indices
/// when its rows, columns and entries fit them.
struct BlockLayout {
  std::vector<Index> row0, col0, nnz0;
  Type type = Type::fp64;
  IndexType itype = IndexType::i32;
  Index rows() const { return row0.back(); }
  Index cols() const { return col0.back(); }
  Index nnz() const { return nnz0.back(); }
};
BlockLayout block_layout(const std::vector<Matrix>& items);

/// The block-diagonal of host items (cast to layout.type where they differ).
Matrix block_diagonal_host(const std::vector<Matrix>& items, const BlockLayout& layout);

}  // namespace ringblas::detail
