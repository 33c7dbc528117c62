// Vectors made where they are used: every position holding one value, or its own index, built on
// the device by a kernel (no host array, no copy) or on the host.
#pragma once
#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas {

/// w(i) = value for every i in 0..size-1, at `where` (GrB_assign(w, GrB_ALL, value) on an empty
/// w). T: bool, int32, int64, float or double. Throws InvalidValue for a negative size.
template <class T>
Vector full_vector(Index size, T value, Location where, const Context& ctx);
/// w(i) = i (int64) for every i in 0..size-1, at `where`.
Vector iota_vector(Index size, Location where, const Context& ctx);

}  // namespace ringblas
