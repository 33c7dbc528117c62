// Launcher of the spgemm_prune family: C = prune(A ⊕.⊗ B) row by row (mxm_prune_rows,
// include/ringblas/row_prune.hpp) without storing the unpruned product. can_implement -> run
// (plain C++ interface).
#pragma once
#include <optional>
#include <string>

#include "ringblas/row_prune.hpp"

namespace ringblas::cuda::spgemm_prune {

/// Why spgemm_prune cannot run C = prune(A ⊕.⊗ B), or nullopt when it can: a semiring of its
/// rows in backend/cuda/manifest.def (plus_times over fp32 and fp64; floating-point values only),
/// fewer than 2^31 rows, columns and entries per operand.
std::optional<std::string> can_implement(const Semiring& s, const Matrix& A, const Matrix& B,
                                         const Descriptor& desc);

/// C = prune(A ⊕.⊗ B) on the device (inputs copied there if needed, transposed per desc); C and
/// the stats' vectors end on the device. Throws NotImplemented (before C is touched) for what
/// can_implement rejects, OutOfMemory with the sizes when the per-block row buffers cannot fit.
void run(Matrix& C, const Semiring& s, const Matrix& A, const Matrix& B, const RowPrune& rule,
         RowPruneStats* stats, const Descriptor& desc, Context& ctx);

}  // namespace ringblas::cuda::spgemm_prune
