// The rows of mxm_prune_rows' dispatch table: the cuda spgemm_prune family and the cpu reference
// (SuiteSparse's product, then the rule on the host).
#include "backend/core/dispatch/dispatch_tables_row_prune.hpp"

#include "backend/core/dispatch/dispatch_rows.hpp"
#include "backend/cpu/cpu_row_prune.hpp"
#include "backend/cuda/spgemm_prune/spgemm_prune.hpp"

namespace ringblas::detail {

using namespace rows;

const Table<PruneMxmProblem, Matrix>& mxm_prune_rows_table() {
  using P = PruneMxmProblem;
  static const Table<P, Matrix> t{
      "mxm_prune_rows",
      {
          {Variant::spgemm_prune, kCuda,
           [](const P& p, const Matrix&) {
             return cuda::spgemm_prune::can_implement(p.s, p.A, p.B, p.d);
           },
           [](const P& p, Matrix& c, Context& x) {
             cuda::spgemm_prune::run(c, p.s, p.A, p.B, p.rule, p.stats, p.d, x);
           }},
          {Variant::suitesparse, kCpu, always<P, Matrix>,
           [](const P& p, Matrix& c, Context& x) {
             HostInputs h(x);
             cpu::mxm_prune_rows(c, p.s, h(p.A), h(p.B), p.rule, p.stats, p.d, x);
           }},
      }};
  return t;
}

}  // namespace ringblas::detail
