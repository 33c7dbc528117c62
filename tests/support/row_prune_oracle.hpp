// An independent mxm_prune_rows: mcl's pruning of an already expanded E as a chain of GraphBLAS
// operations (select value_ge, row_topk, row reductions, masked copies, unions): the way
// algorithms/mcl computed it before the fused operation, kept as the oracle of the new op; and the
// rule and nonneg helpers of the cpu and gpu row-prune tests.
#pragma once
#include <vector>

#include "ringblas/ringblas.hpp"

namespace ringblas::test {

struct PrunedRows {
  Matrix F;                        ///< host, E's type
  std::vector<double> max, sumsq;  ///< per row of E (0 for a row without entries)
  Index selected = 0, recovered = 0;
};

/// prune(E) row by row with `rule` (include/ringblas/row_prune.hpp), computed on ctx.
PrunedRows prune_by_existing_ops(const Matrix& E, const RowPrune& rule, Context& ctx);

/// The rule with its fields in the order of RowPrune.
inline RowPrune rule(double threshold, Index select, Index recover, double mass, bool loop = false,
                     Index offset = 0) {
  RowPrune r;
  r.threshold = threshold;
  r.select = select;
  r.recover = recover;
  r.recover_mass = mass;
  r.loop_if_empty = loop;
  r.diagonal_offset = offset;
  return r;
}

/// |x| on the cpu (of a random matrix: mcl's values are nonnegative).
inline Matrix nonneg(const Matrix& x) {
  Context c(Backend::cpu);
  Matrix out(x.nrows(), x.ncols(), x.type());
  apply(out, nullptr, no_accum, UnaryOpCode::abs, x, {}, c);
  return out;
}

}  // namespace ringblas::test
