// cuda executor entry point for mxm with a sparse C: the spgemm_hash kernel family.
#include <string>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/spgemm_hash/spgemm_hash.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda {

void mxm(Matrix& C, const Matrix* mask, Accum accum, const Semiring& s, const Matrix& A,
         const Matrix& B, const Descriptor& desc, Context& ctx) {
  if (desc.variant != Variant::automatic && desc.variant != Variant::spgemm_hash)
    throw NotImplemented("cuda mxm: variant " + std::string(variant_name(desc.variant)) +
                         " has no sparse-output kernel; spgemm_hash does");
  spgemm_hash::run(C, mask, accum, s, A, B, desc, ctx);
}

}  // namespace ringblas::cuda
