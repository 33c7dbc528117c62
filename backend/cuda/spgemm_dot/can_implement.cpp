// spgemm_dot::can_implement (plain C++, so that the dispatch asks it without a launch).
#include <cstdint>
#include <limits>

#include "backend/cuda/spgemm_dot/semirings.hpp"
#include "backend/cuda/spgemm_dot/spgemm_dot.hpp"

namespace ringblas::cuda::spgemm_dot {

std::optional<std::string> can_implement(const Semiring& s, const Matrix* mask, const Matrix& A,
                                         const Matrix& B, const Descriptor& desc) {
  if (!mask) return "no mask: the dot-product kernel computes the mask's entries only";
  if (desc.mask_complement)
    return "complemented mask: the dot-product kernel computes the mask's entries only";
  if (!manifest::compiled<manifest::spgemm_dot>(s)) return manifest::not_compiled(s, "spgemm_dot");
  constexpr Index lim = std::numeric_limits<std::int32_t>::max() - 1;
  for (const Matrix* x : {mask, &A, &B})
    if (x->nrows() > lim || x->ncols() > lim || x->nnz() > lim)
      return std::optional<std::string>(
          "the operands need 64-bit indices; spgemm_dot uses 32-bit ones");
  return std::nullopt;
}

}  // namespace ringblas::cuda::spgemm_dot
