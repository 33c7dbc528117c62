// Public mxm_prune_rows (include/ringblas/row_prune.hpp): validation once, then its dispatch table
// (dispatch_tables_row_prune.cpp).
#include <string>

#include "backend/core/dispatch/dispatch_tables_row_prune.hpp"
#include "backend/core/dispatch/validate.hpp"
#include "ringblas/error.hpp"
#include "ringblas/row_prune.hpp"

namespace ringblas {

using detail::Dims;
using detail::dims;
using detail::require;
using detail::str;

void mxm_prune_rows(Matrix& C, const Semiring& s, const Matrix& A, const Matrix& B,
                    const RowPrune& rule, RowPruneStats* stats, const Descriptor& d, Context& ctx) {
  const char* op = "mxm_prune_rows";
  const Dims a = dims(A, d.transpose_a), b = dims(B, d.transpose_b);
  require(a.cols == b.rows, op, "inner dimensions differ: A is " + str(a) + ", B is " + str(b));
  require(dims(C) == Dims{a.rows, b.cols}, op,
          "C is " + str(dims(C)) + " but A*B is " + str({a.rows, b.cols}));
  if (d.replace || d.mask_structure || d.mask_complement)
    throw NotImplemented(std::string(op) + ": C is overwritten; it takes no mask flags or replace");
  if (s.type == Type::boolean)
    throw NotImplemented(std::string(op) + ": bool values have no order to prune by");
  if (rule.select < 0 || rule.recover < 0 || !(rule.recover_mass >= 0))
    throw InvalidValue(std::string(op) + ": select, recover and recover_mass must be >= 0");
  if (rule.loop_if_empty && (rule.diagonal_offset < 0 || rule.diagonal_offset + a.rows > b.cols))
    throw InvalidValue(std::string(op) + ": the loops (i, " + std::to_string(rule.diagonal_offset) +
                       " + i) of " + std::to_string(a.rows) + " rows fall outside C's " +
                       std::to_string(b.cols) + " columns");
  // Pruning decisions compare sums of floats: a different summation order can flip an entry at
  // the threshold, so verify compares values with the sum tolerance (structure still exact).
  detail::execute(detail::mxm_prune_rows_table(), detail::PruneMxmProblem{s, A, B, rule, stats, d},
                  d.variant, C, ctx, detail::Tolerance::for_type(s.type, double(a.cols)));
}

}  // namespace ringblas
