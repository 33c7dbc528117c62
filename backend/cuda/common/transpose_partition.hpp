// cuda::transpose by TransposeMethod::partition: two stable counting passes written here in place
// of CUB's radix sort (transpose_partition.cu says how; transpose_topk_notes.md says why).
#pragma once
#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::cuda {

/// The widest column keys the partition passes take (a pass sorts at most 12 bits per tile).
inline constexpr int partition_max_column_bits = 24;

/// aᵀ for a device matrix with 32-bit indices, at least one entry and column indices of
/// `column_bits` <= partition_max_column_bits bits; values of 1, 4 or 8 bytes. Rows stay sorted
/// within each output row, as with the radix sort.
Matrix transpose_partition(const Matrix& a, int column_bits, const Context& ctx);

}  // namespace ringblas::cuda
