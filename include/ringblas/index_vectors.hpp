// Operations whose index lists are vectors, so that a permutation computed on the device stays
// there: the permutation that sorts a vector (SuiteSparse's GxB_Vector_sort with w = NULL) and
// extract with vector index lists (GxB_Matrix_extract_Vector). Same rules as ops.hpp.
#pragma once
#include "ringblas/ops.hpp"

namespace ringblas {

enum class SortOrder : std::uint8_t { ascending, descending };

/// p(k) = the index of u's k-th entry in the order of its values (`order`; equal values in
/// index order: a stable sort), for k = 0 .. nvals(u) - 1. p is int64 with u's size and exactly
/// those nvals(u) entries. Throws DimensionMismatch
/// when p's size differs from u's, InvalidValue unless p is int64. (GxB_Vector_sort(NULL, p, op,
/// u) with op GrB_LT / GrB_GT)
void sort_permutation(Vector& p, const Vector& u, SortOrder order,
                      Context& ctx = default_context());

/// C<M> = C accum op(A)(rows, cols) where the index lists are the values of `rows` and `cols`
/// (int32 or int64 vectors), taken in the order of their entries' indices; nullptr means every
/// index (GrB_ALL). As extract with Indices otherwise: repeated indices allowed. Throws
/// InvalidValue for a list of another type, InvalidIndex for a value out of range.
/// (GxB_Matrix_extract_Vector)
void extract(Matrix& C, const Matrix* mask, Accum accum, const Matrix& A, const Vector* rows,
             const Vector* cols, const Descriptor& desc = {}, Context& ctx = default_context());

}  // namespace ringblas
