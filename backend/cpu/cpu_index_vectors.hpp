// cpu executor of the operations with vector index lists (include/ringblas/index_vectors.hpp).
#pragma once
#include "ringblas/index_vectors.hpp"

namespace ringblas::cpu {

/// The index list a host int32/int64 vector holds: its values in the order of its indices.
Indices indices_of(const Vector& v);

/// p = the permutation sorting host vector u (GxB_Vector_sort with GrB_LT / GrB_GT); p is
/// replaced by a host vector of its size.
void sort_permutation(Vector& p, const Vector& u, bool descending, Context& ctx);

}  // namespace ringblas::cpu
