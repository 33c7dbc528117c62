// The dispatch table of mxm_prune_rows (include/ringblas/row_prune.hpp): its problem and its rows
// (dispatch_tables_row_prune.cpp).
#pragma once
#include "backend/core/dispatch/dispatch.hpp"
#include "ringblas/row_prune.hpp"

namespace ringblas::detail {

/// C = prune(A ⊕.⊗ B) with the rule; stats optional.
struct PruneMxmProblem {
  const Semiring& s;
  const Matrix& A;
  const Matrix& B;
  const RowPrune& rule;
  RowPruneStats* stats;
  const Descriptor& d;
};

const Table<PruneMxmProblem, Matrix>& mxm_prune_rows_table();

}  // namespace ringblas::detail
