// The device build of a batch's block-diagonal matrix (MatrixBatch), plain C++ so that the core
// calls it without nvcc; builds without CUDA throw NotCompiled (backend/cuda/stub.cpp).
#pragma once
#include <vector>

#include "backend/core/containers/block_diagonal.hpp"
#include "ringblas/context.hpp"

namespace ringblas::cuda {

/// diag(items) on the device, every item on the device: one upload of the items' pointers and
/// offsets and one kernel that writes the row pointers shifted by the entry offsets, the column
/// indices shifted by the column offsets and the values (items of another value type are cast
/// first, one cast each), on ctx's stream.
Matrix block_diagonal(const std::vector<Matrix>& items, const ringblas::detail::BlockLayout& layout,
                      Context& ctx);

}  // namespace ringblas::cuda
