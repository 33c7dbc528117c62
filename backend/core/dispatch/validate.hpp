// Validation shared by every operation, done once before dispatch (backend/core/dispatch/ops.cpp):
// shapes, masks, indices, and the rejections common to every executor (positional accumulators,
// mask flags on dense outputs), each with one message. Kernels keep only the checks that guard
// memory.
#pragma once
#include <string>
#include <type_traits>

#include "ringblas/error.hpp"
#include "ringblas/ops.hpp"

namespace ringblas::detail {

struct Dims {
  Index rows, cols;
  bool operator==(const Dims&) const = default;
};
std::string str(Dims d);
inline Dims dims(const Matrix& a, bool transposed = false) {
  return transposed ? Dims{a.ncols(), a.nrows()} : Dims{a.nrows(), a.ncols()};
}

/// DimensionMismatch("op: what") unless ok.
inline void require(bool ok, const char* op, const std::string& what) {
  if (!ok) throw DimensionMismatch(std::string(op) + ": " + what);
}
/// The same with the message built by `what()` only on failure: the products validate on every
/// call, and building a message string there costs a call about a microsecond (issue 9).
template <class What>
requires std::is_invocable_r_v<std::string, What>
inline void require(bool ok, const char* op, What&& what) {
  if (!ok) throw DimensionMismatch(std::string(op) + ": " + what());
}
void check_mask(const char* op, const Matrix* m, Dims c);
void check_mask(const char* op, const Vector* m, Index n);
/// InvalidIndex naming the first index of `ix` outside 0..n-1.
void check_indices(const char* op, const Indices& ix, Index n, const char* what);

/// NotImplemented for a positional accumulator (firsti, secondj, ...): GraphBLAS accumulators
/// combine C's value with T's, and no executor gives positions a meaning there.
void check_accum(const char* op, Accum accum);

/// NotImplemented for descriptor flags a dense output cannot take (replace and mask flags: a
/// dense C takes no mask), and for transpose_b where `transpose_b_ok` is false.
void check_dense_output_flags(const char* op, const Descriptor& d, bool transpose_b_ok);

/// InvalidValue unless p, a dropout probability, is in [0, 1).
void require_p(const char* op, double p);

}  // namespace ringblas::detail
