// spgemm_prune::can_implement (plain C++, so that the dispatch asks it without nvcc).
#include "backend/cuda/common/device_props.hpp"
#include "backend/cuda/common/manifest.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/spgemm_prune/policy.hpp"
#include "backend/cuda/spgemm_prune/spgemm_prune.hpp"
#include "ringblas_generated/cuda_manifest/spgemm_prune.hpp"

namespace ringblas::cuda::spgemm_prune {

std::optional<std::string> can_implement(const Semiring& s, const Matrix& A, const Matrix& B,
                                         const Descriptor& desc) {
  if (!manifest::compiled<manifest::spgemm_prune>(s))
    return manifest::not_compiled(s, "spgemm_prune");
  const Index lim = (Index(1) << 31) - 1;
  for (const Matrix* x : {&A, &B})
    if (x->nrows() >= lim || x->ncols() >= lim || x->nnz() >= lim)
      return std::string("an operand with 2^31 or more rows, columns or entries");
  (void)desc;
  if (!device_present()) return "no CUDA device";
  const std::size_t smem = std::size_t(policy::window) * (sizeof(double) + 1);
  if (device_props(0).smem_per_block_optin < smem)
    return "the device offers less than " + std::to_string(smem) +
           " bytes of shared memory per block";
  return std::nullopt;
}

}  // namespace ringblas::cuda::spgemm_prune
