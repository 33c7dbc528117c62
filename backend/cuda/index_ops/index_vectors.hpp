// cuda executor of the operations with vector index lists (include/ringblas/index_vectors.hpp),
// in the index_ops family: the index lists are used where they lie, on the device (plain C++).
#pragma once
#include <optional>
#include <string>

#include "ringblas/index_vectors.hpp"

namespace ringblas::cuda::index_ops {

/// Why the device sort cannot run: bool values (the cpu row sorts them).
std::optional<std::string> can_implement_sort_permutation(const Vector& u);

/// p = the permutation sorting u's entries (stable CUB radix sort of (value, index) pairs,
/// -0.0 sorted as +0.0); p becomes a device int64 vector of u's size.
void sort_permutation(Vector& p, const Vector& u, bool descending, Context& ctx);

/// C<M> = C accum op(A)(rows, cols) with device index lists (the index gather of extract; the
/// column map built on the device by a stable radix sort of the column list).
void extract_vectors(Matrix& C, const Matrix* mask, Accum accum, const Matrix& A,
                     const Vector* rows, const Vector* cols, const Descriptor& desc, Context& ctx);

}  // namespace ringblas::cuda::index_ops
