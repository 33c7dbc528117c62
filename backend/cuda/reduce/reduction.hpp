// The reduce family's launchers (plain C++): monoid reductions of a device CSR matrix to a dense
// vector (rows or columns, with presence flags) and of a device array to one value.
#pragma once
#include "backend/cuda/reduce/policy.hpp"
#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::cuda::reduction {

/// t(i) = ⊕_j A(i, j) over the entries of row i (the identity where the row is empty), with
/// present(i) = row i has an entry. A group of lanes per row: 8, or a warp when rows average
/// over policy::long_row entries. A on the device with values of the monoid's type `A.type()`;
/// t holds A.nrows() values of that type, present A.nrows() bytes (both device memory).
void rows(const Matrix& A, MonoidCode monoid, void* t, unsigned char* present, Context& ctx);

/// t(j) = ⊕_i A(i, j) over the entries of column j, as rows() but for columns, by `method`.
void cols(const Matrix& A, MonoidCode monoid, void* t, unsigned char* present, column_method method,
          Context& ctx);

/// ⊕ of n values of type `type` on the device (the identity when n = 0). The one result is
/// copied to the host (one counted device-to-host transfer).
Scalar all(MonoidCode monoid, Type type, const void* values, Index n, Context& ctx);

}  // namespace ringblas::cuda::reduction
