// A ringblas extension (not GraphBLAS): the product with a per-row pruning rule applied as each
// row is computed, C = prune(A ⊕.⊗ B), so that the unpruned product is never stored. It is the
// expansion step of Markov clustering (mcl prunes every column of M·M as it computes it; here
// rows, the transpose view).
#pragma once
#include "ringblas/ops.hpp"

namespace ringblas {

/// The rule applied to every row e = T(i,:) of T = A ⊕.⊗ B, mcl's (22-282, mcl/expand.c read,
/// not copied; `man mcl`, options -P -S -R -pct):
///   P = {e_j >= threshold},  np = |P|,  mp = Σ_{j in P} e_j
///   recover  if recover > 0, np < recover and mp < recover_mass: the `recover` largest of e
///   select   else if select > 0 and np > select: the `select` largest of P; if then recover > 0
///            and those are fewer than `recover` with mass < recover_mass: the `recover` largest
///            of P instead
///   keep     else P
/// "The k largest" keeps every entry equal to the k-th largest value as well (ties kept, as mcl
/// keeps the values >= its k-th largest), and the whole set when it has at most k entries.
/// With loop_if_empty, a row where np = 0 becomes the single entry (i, diagonal_offset + i) = 1
/// (mcl's emergency measure without recovery; diagonal_offset places the diagonal of a block of
/// rows). Comparisons are made in the semiring's type (the threshold cast to it).
struct RowPrune {
  double threshold = 0;
  Index select = 0;         ///< 0: no selection
  Index recover = 0;        ///< 0: no recovery
  double recover_mass = 0;  ///< a fraction (mcl's -pct / 100)
  bool loop_if_empty = false;
  Index diagonal_offset = 0;
};

/// Measures of the unpruned rows and counts of the rule's branches (filled when asked for).
struct RowPruneStats {
  Vector row_max;    ///< max_j T(i,j), every position present (0 for a row of T without entries)
  Vector row_sumsq;  ///< Σ_j T(i,j)², every position present
  Index expanded_nnz = 0;    ///< nnz(T) before pruning
  Index rows_selected = 0;   ///< rows where selection applied (whatever followed)
  Index rows_recovered = 0;  ///< rows recovered, from e or (after selection) from P
};

/// C = prune(A ⊕.⊗ B) row by row with `rule` (above); A, B transposed first per desc. C is
/// overwritten (its type is the semiring's; no mask, no accumulator: mask flags and desc.replace
/// throw NotImplemented). Rows of C are sorted. stats (optional) receives the row measures at
/// C's location. desc.variant may force spgemm_prune (cuda) or suitesparse (the cpu reference:
/// the product by SuiteSparse, then the rule row by row).
/// Throws DimensionMismatch for inner dimensions that differ; InvalidValue for negative select,
/// recover or mass, or a loop column outside C; NotImplemented for a semiring whose values have
/// no order (bool) or that the cuda variant was not compiled for when it is forced.
void mxm_prune_rows(Matrix& C, const Semiring& s, const Matrix& A, const Matrix& B,
                    const RowPrune& rule, RowPruneStats* stats = nullptr,
                    const Descriptor& desc = {}, Context& ctx = default_context());

}  // namespace ringblas
