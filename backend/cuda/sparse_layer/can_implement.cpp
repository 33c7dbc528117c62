// sparse_layer::can_implement (plain C++, so that the dispatch asks it without a launch).
#include <string>

#include "backend/cuda/sparse_layer/sparse_layer.hpp"

namespace ringblas::cuda::sparse_layer {

std::string can_implement(const Semiring& s, const Matrix&, const DenseMatrix& b,
                          const DenseMatrix& c, const Descriptor& desc) {
  if (s.is_user() || s.add != MonoidCode::plus || s.mul != BinaryOpCode::times ||
      s.type != Type::fp32)
    return "computes plus_times over fp32 only, not " + s.name();
  if (desc.transpose_b) return "B cannot be transposed";
  if (b.type() != Type::fp32 || c.type() != Type::fp32) return "B and C must be fp32";
  if (b.ncols() >= (Index{1} << 31)) return "B has 2^31 or more columns";
  return {};
}

}  // namespace ringblas::cuda::sparse_layer
