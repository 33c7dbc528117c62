// spmv::can_implement (plain C++, so that the dispatch asks it without a launch).
#include <cstdint>
#include <limits>
#include <string>

#include "backend/cuda/spmm_subwarp/semiring_types.hpp"
#include "backend/cuda/spmv/spmv.hpp"

namespace ringblas::cuda::spmv {

std::optional<std::string> can_implement(const Semiring& s, const Matrix& A) {
  if (!detail::with_spmv_semiring(s, [](auto) {}))
    return "semiring " + s.name() +
           " is not compiled for the cuda SpMV kernels (backend/cuda/spmv/spmv_manifest.def)";
  constexpr Index lim = std::numeric_limits<std::int32_t>::max() - 1;
  if (A.nrows() > lim || A.ncols() > lim || A.nnz() > lim)
    return "A needs 64-bit indices; the SpMV kernels use 32-bit ones";
  return std::nullopt;
}

}  // namespace ringblas::cuda::spmv
