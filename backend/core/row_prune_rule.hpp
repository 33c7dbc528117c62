// The decisions of mxm_prune_rows' rule (include/ringblas/row_prune.hpp) from a row's counts and
// masses, shared by the cpu reference and the cuda kernel so that both decide alike.
#pragma once
#include <cstdint>

#include "semirings/macros.hpp"

namespace ringblas::detail {

/// The rule with plain fields, as kernels take it by value.
struct prune_rule {
  double threshold = 0;
  std::int64_t select = 0, recover = 0;
  double recover_mass = 0;
  bool loop_if_empty = false;
  std::int64_t diagonal_offset = 0;
};

/// The first decision for a row with np entries >= threshold of mass mp.
enum class prune_branch : int { keep, recover_all, select, loop };

RINGBLAS_HD prune_branch first_branch(const prune_rule& r, std::int64_t np, double mp) {
  if (r.recover > 0 && np < r.recover && mp < r.recover_mass) return prune_branch::recover_all;
  if (r.select > 0 && np > r.select) return prune_branch::select;
  if (r.loop_if_empty && np == 0) return prune_branch::loop;
  return prune_branch::keep;
}

/// After selection kept ns entries of mass ms: recover the `recover` largest of P instead?
RINGBLAS_HD bool recover_after_select(const prune_rule& r, std::int64_t ns, double ms) {
  return r.recover > 0 && ns < r.recover && ms < r.recover_mass;
}

}  // namespace ringblas::detail
