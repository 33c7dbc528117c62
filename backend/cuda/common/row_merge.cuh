// Device helpers shared by every kernel that walks two sorted, duplicate-free CSR rows together
// (the write-back C<M> = C accum T, element-wise add and multiply), and the one device call site
// of the runtime binary-operator table (sr::visit_binary_op), so that write-back accumulators and
// element-wise operators cannot disagree.
#pragma once
#include <cstdint>

#include "ringblas/codes.hpp"
#include "semirings/visit.hpp"

namespace ringblas::cuda {

/// z = op(x, y) for a runtime operator code, at type V; positional operators see (i, j) of the
/// first operand and (i2, j2) of the second.
template <class V>
__device__ __forceinline__ V binary_op_at(BinaryOpCode op, V x, V y, std::int64_t i, std::int64_t j,
                                          std::int64_t i2, std::int64_t j2) {
  return sr::visit_binary_op<V>(op, [&](auto f) -> V { return f(x, y, i, j, i2, j2); });
}

/// Visits every column of x ∪ y in increasing order: visit(j, px, py) with px (py) the position
/// of j in x (y), or -1 where that row has no entry j. Rows are [px, xe) and [py, ye).
template <class I, class Visit>
__device__ __forceinline__ void merge_rows(const I* x_ci, I px, I xe, const I* y_ci, I py, I ye,
                                           Visit&& visit) {
  while (px < xe || py < ye) {
    const I xj = px < xe ? x_ci[px] : I(-1), yj = py < ye ? y_ci[py] : I(-1);
    I j;
    if (xj < 0)
      j = yj;
    else if (yj < 0)
      j = xj;
    else
      j = xj < yj ? xj : yj;
    const bool hx = xj == j, hy = yj == j;
    visit(j, hx ? px : I(-1), hy ? py : I(-1));
    if (hx) ++px;
    if (hy) ++py;
  }
}

/// Visits the columns of x ∩ y in increasing order: visit(j, px, py).
template <class I, class Visit>
__device__ __forceinline__ void intersect_rows(const I* x_ci, I px, I xe, const I* y_ci, I py, I ye,
                                               Visit&& visit) {
  while (px < xe && py < ye) {
    const I xj = x_ci[px], yj = y_ci[py];
    if (xj < yj)
      ++px;
    else if (yj < xj)
      ++py;
    else {
      visit(xj, px, py);
      ++px;
      ++py;
    }
  }
}

}  // namespace ringblas::cuda
