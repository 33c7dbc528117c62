// The cpu reference of mxm_prune_rows (include/ringblas/row_prune.hpp): SuiteSparse's product,
// then the rule row by row on the host.
#pragma once
#include "ringblas/row_prune.hpp"

namespace ringblas::cpu {

/// C = prune(A ⊕.⊗ B) (host inputs; C and stats on the host). Validated by the caller.
void mxm_prune_rows(Matrix& C, const Semiring& s, const Matrix& A, const Matrix& B,
                    const RowPrune& rule, RowPruneStats* stats, const Descriptor& d, Context& ctx);

}  // namespace ringblas::cpu
