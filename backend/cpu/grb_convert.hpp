// Copies between ringblas host containers (CSR, sparse/dense vectors, dense matrices) and
// GraphBLAS matrices and vectors.
#pragma once
#include <string_view>

#include "backend/cpu/grb_handle.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::cpu::detail {

/// A GraphBLAS copy of host CSR matrix `a` (same type; indices widened to 64 bits).
matrix_ptr to_grb(const Matrix& a, std::string_view where);
/// An empty nrows x ncols GraphBLAS matrix of type t.
matrix_ptr new_grb_matrix(Index nrows, Index ncols, Type t, std::string_view where);
/// Unpacks `m` (left empty) as host CSR with sorted columns, values of m's type, indices of
/// width itype (InvalidValue when they do not fit in 32 bits).
Matrix from_grb(GrB_Matrix m, Type type, IndexType itype, std::string_view where);

vector_ptr to_grb(const Vector& v, std::string_view where);
vector_ptr new_grb_vector(Index size, Type t, std::string_view where);
Vector from_grb(GrB_Vector v, Type type, std::string_view where);

/// A full GraphBLAS matrix holding dense `a` (by row or by column as its layout).
matrix_ptr to_grb_full(const DenseMatrix& a, std::string_view where);
/// Unpacks full matrix `m` (every entry present) into a dense matrix of layout `layout`.
DenseMatrix from_grb_full(GrB_Matrix m, Type type, Layout layout, std::string_view where);

/// Throws InvalidValue naming `what` unless the container is on the host.
void require_host(Location loc, std::string_view where, const char* what);

}  // namespace ringblas::cpu::detail
