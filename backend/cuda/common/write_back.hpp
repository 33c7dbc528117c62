// The GraphBLAS write-back C<M, replace> = C accum T on the device, shared by every cuda kernel
// family that produces a sparse T (plain C++ interface).
#pragma once
#include "backend/cuda/common/device_matrix.hpp"
#include "ringblas/descriptor.hpp"

namespace ringblas::cuda {

/// C<M, replace> = C accum T for sparse C (GraphBLAS semantics, see ops.hpp): Z = T without an
/// accumulator, accum(C, T) where both have an entry and the entry of whichever has one
/// elsewhere; inside the mask C takes Z, outside it keeps its entries (or loses them with
/// `replace`). T must be on the device (any value type: cast to C's type first); C may be on the
/// host (copied, counted) and ends on the device with T's index width (64-bit if the sizes need
/// it). Positional accumulators throw NotImplemented before C is touched.
void write_back(Matrix& C, const DeviceMask& mask, Accum accum, bool replace, Matrix T,
                const Context& ctx);

/// Whether write_back is needed at all: false when C simply becomes T.
inline bool needs_write_back(const DeviceMask& mask, Accum accum) {
  return mask.present || mask.complement || accum.has_value();
}

}  // namespace ringblas::cuda
