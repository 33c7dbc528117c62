// Per-value-type entry points of the reduce family, each instantiated once per type in
// inst_<type>.cu (the monoid is resolved from its runtime code inside, sr::visit_monoid).
#pragma once
#include <cstdint>

#include "backend/cuda/reduce/policy.hpp"
#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::cuda::reduction {

template <class T>
struct typed {
  /// out[r] = ⊕ of row r of A, present[r] = row non-empty: a group of lanes per row (8, or a
  /// warp when rows average over policy::long_row entries), scheduled by `kernel`, with the
  /// tally's parts (policy.hpp).
  static void rows_short(MonoidCode m, const Matrix& A, T* out, unsigned char* present,
                         row_tally tally, row_kernel kernel, Context& ctx);
  /// out[j] = ⊕ of the entries of column j of A (monoid atomics); present[j] = column non-empty.
  /// `out` and `present` must be initialised to the identity and 0.
  static void cols_atomic(MonoidCode m, const Matrix& A, T* out, unsigned char* present,
                          Context& ctx);
  /// cols_atomic in passes over the column ranges [lo, lo + range), each row's entries of the
  /// range from a per-row cursor (k_cols_ranges); same preconditions.
  static void cols_ranges(MonoidCode m, const Matrix& A, T* out, unsigned char* present,
                          Index range, Context& ctx);
  /// *out = ⊕ vals[0 .. n) on the device (CUB DeviceReduce).
  static void all(MonoidCode m, const T* vals, Index n, T* out, Context& ctx);
  /// out[0 .. n) = the monoid's identity.
  static void fill_identity(MonoidCode m, Index n, T* out, Context& ctx);
};

#define RINGBLAS_REDUCE_EXTERN(T) extern template struct typed<T>;
RINGBLAS_REDUCE_EXTERN(bool)
RINGBLAS_REDUCE_EXTERN(std::int32_t)
RINGBLAS_REDUCE_EXTERN(std::int64_t)
RINGBLAS_REDUCE_EXTERN(float)
RINGBLAS_REDUCE_EXTERN(double)
#undef RINGBLAS_REDUCE_EXTERN

}  // namespace ringblas::cuda::reduction
