// maxk family: can_implement (plain C++, so that the dispatch asks it without a launch).
#include "backend/cuda/maxk/maxk.hpp"

namespace ringblas::cuda::maxk {
namespace {

std::optional<std::string> plus_times_fp32(const Semiring& s) {
  if (s.is_user() || s.add != MonoidCode::plus || s.mul != BinaryOpCode::times ||
      s.type != Type::fp32)
    return "computes plus_times over fp32 only, not " + s.name();
  return std::nullopt;
}

std::optional<std::string> fits_int32(const Matrix& a) {
  if (a.nnz() >= (Index{1} << 31) || a.nrows() >= (Index{1} << 31) || a.ncols() >= (Index{1} << 31))
    return "A has 2^31 or more rows, columns or entries (the kernels index with int32)";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> can_implement_topk(const DenseMatrix& y) {
  if (y.layout() != Layout::row_major) return "Y must be row-major";
  return std::nullopt;
}

std::optional<std::string> can_implement_densify(const DenseMatrix& d) {
  if (d.layout() != Layout::row_major) return "D must be row-major";
  return std::nullopt;
}

std::optional<std::string> can_implement_forward(const Semiring& s, const Matrix& a,
                                                 const DenseMatrix& c, const Epilogue* ep,
                                                 const Descriptor&) {
  if (auto why = plus_times_fp32(s)) return why;
  if (ep && ep->has_bias() && ep->bias->type() != Type::fp32) return "the bias must be fp32";
  if (c.layout() != Layout::row_major) return "C must be row-major";
  return fits_int32(a);
}

std::optional<std::string> can_implement_backward(const Semiring& s, const Matrix& a,
                                                  const DenseMatrix& b, const Descriptor&) {
  if (auto why = plus_times_fp32(s)) return why;
  if (b.layout() != Layout::row_major) return "B must be row-major";
  return fits_int32(a);
}

}  // namespace ringblas::cuda::maxk
