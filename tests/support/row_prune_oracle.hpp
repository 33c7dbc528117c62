// An independent mxm_prune_rows: mcl's pruning of an already expanded E as a chain of GraphBLAS
// operations (select value_ge, row_topk, row reductions, masked copies, unions): the way
// algorithms/mcl computed it before the fused operation, kept as the oracle of the new op.
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

}  // namespace ringblas::test
