// spmv::can_implement (plain C++, so that the dispatch asks it without a launch).
#include <cstdint>
#include <limits>
#include <string>

#include "backend/cuda/spmm_subwarp/semiring_types.hpp"
#include "backend/cuda/spmv/spmv.hpp"

namespace ringblas::cuda::spmv {

std::optional<std::string> can_implement(const Semiring& s, const Matrix& A) {
  if (!manifest::compiled<manifest::spmv>(s)) return manifest::not_compiled(s, "spmv");
  constexpr Index lim = std::numeric_limits<std::int32_t>::max() - 1;
  if (A.nrows() > lim || A.ncols() > lim || A.nnz() > lim)
    return "A needs 64-bit indices; the SpMV kernels use 32-bit ones";
  return std::nullopt;
}

}  // namespace ringblas::cuda::spmv
