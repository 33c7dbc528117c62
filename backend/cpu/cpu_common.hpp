// Shared shape of every cpu entry point: copy the output into GraphBLAS, run one GraphBLAS call,
// copy the result back; the output is replaced only after everything succeeded.
#pragma once
#include <string_view>
#include <utility>

#include "backend/cpu/grb_convert.hpp"
#include "backend/cpu/grb_ops.hpp"
#include "ringblas/descriptor.hpp"

namespace ringblas::cpu::detail {

/// Whether C's current entries can influence the result: only without mask, accumulator and
/// complement is C<…> = T a plain overwrite (then C is not copied into GraphBLAS).
inline bool output_matters(const void* mask, const Accum& accum, const Descriptor& desc) {
  return mask != nullptr || accum.has_value() || desc.mask_complement;
}

/// Runs f(GrB_Matrix c) on a GraphBLAS copy of C (or an empty matrix of C's shape when C's
/// entries do not matter), then stores the result in C with C's type and index width.
/// A C with no rows or no columns holds no entries whatever the operation does, and is left as it
/// is (SuiteSparse 7.4 crashes in GB_subassign_08n on a masked, accumulated 0 x 0 mxm).
template <class F>
void write_matrix(Matrix& C, bool keep_old, std::string_view where, F&& f) {
  if (C.nrows() == 0 || C.ncols() == 0) return;
  matrix_ptr c =
      keep_old ? to_grb(C, where) : new_grb_matrix(C.nrows(), C.ncols(), C.type(), where);
  f(c.get());
  Matrix out = from_grb(c.get(), C.type(), C.index_type(), where);
  C = std::move(out);
}

template <class F>
void write_vector(Vector& w, bool keep_old, std::string_view where, F&& f) {
  if (w.size() == 0) return;
  vector_ptr c = keep_old ? to_grb(w, where) : new_grb_vector(w.size(), w.type(), where);
  f(c.get());
  Vector out = from_grb(c.get(), w.type(), where);
  w = std::move(out);
}

/// GraphBLAS copy of an optional mask (null handle when there is none).
inline matrix_ptr optional_grb(const Matrix* m, std::string_view where) {
  return m ? to_grb(*m, where) : matrix_ptr{};
}
inline vector_ptr optional_grb(const Vector* v, std::string_view where) {
  return v ? to_grb(*v, where) : vector_ptr{};
}

}  // namespace ringblas::cpu::detail
