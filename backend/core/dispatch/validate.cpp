// Validation shared by every operation (backend/core/dispatch/validate.hpp).
#include "backend/core/dispatch/validate.hpp"

namespace ringblas::detail {

std::string str(Dims d) { return std::to_string(d.rows) + "x" + std::to_string(d.cols); }

void check_mask(const char* op, const Matrix* m, Dims c) {
  if (m)
    require(dims(*m) == c, op, [&] { return "mask is " + str(dims(*m)) + " but C is " + str(c); });
}

void check_mask(const char* op, const Vector* m, Index n) {
  if (m)
    require(m->size() == n, op, [&] {
      return "mask has size " + std::to_string(m->size()) + " but w has " + std::to_string(n);
    });
}

void check_indices(const char* op, const Indices& ix, Index n, const char* what) {
  if (ix.all_) return;
  for (std::size_t k = 0; k < ix.list.size(); ++k)
    if (ix.list[k] < 0 || ix.list[k] >= n)
      throw InvalidIndex(std::string(op) + ": " + what + " index " + std::to_string(ix.list[k]) +
                         " (position " + std::to_string(k) + ") out of range 0.." +
                         std::to_string(n - 1));
}

void check_accum(const char* op, Accum accum) {
  if (accum && is_positional(*accum))
    throw NotImplemented(std::string(op) + ": positional accumulator " +
                         std::string(binary_op_name(*accum)) +
                         " is not supported (an accumulator combines values, not positions)");
}

void check_dense_output_flags(const char* op, const Descriptor& d, bool transpose_b_ok) {
  if (d.replace || d.mask_complement || d.mask_structure)
    throw NotImplemented(std::string(op) +
                         ": a dense output takes no mask, so replace and mask flags do not apply");
  if (d.transpose_b && !transpose_b_ok)
    throw NotImplemented(std::string(op) + ": transpose_b is not supported with a dense B");
}

void require_p(const char* op, double p) {
  if (!(p >= 0.0 && p < 1.0))
    throw InvalidValue(std::string(op) + ": p = " + std::to_string(p) + " is outside [0, 1)");
}

}  // namespace ringblas::detail
