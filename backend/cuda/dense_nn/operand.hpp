// Device residency of the dense_nn operands: inputs on the host are copied for the call (counted
// in ctx.transfers), outputs on the host are moved to the device, where they stay.
#pragma once
#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::cuda::dense_nn {

/// Device pointer to x's values; a host x is copied into `hold` first.
template <class X>
const void* device_values(const X& x, Buffer& hold, const Context& ctx) {
  if (x.location() == Location::device) return x.values().data();
  hold = x.values().to(Location::device, ctx);
  return hold.data();
}

/// Moves a host output to the device (its values travel: in-place operations read them).
template <class X>
void make_resident(X& x, const Context& ctx) {
  if (x.location() != Location::device) x = x.to(Location::device, ctx);
}

}  // namespace ringblas::cuda::dense_nn
