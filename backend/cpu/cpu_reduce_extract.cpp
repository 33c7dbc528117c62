// cpu executor: reduce (to vector and to scalar), transpose, extract and assign.
#include <string>
#include <vector>

#include "backend/cpu/cpu_backend.hpp"
#include "backend/cpu/cpu_common.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cpu {

using namespace detail;

namespace {

// An index list as GraphBLAS wants it: GrB_ALL, or the list widened to GrB_Index.
struct grb_indices {
  std::vector<GrB_Index> list;
  const GrB_Index* ptr = GrB_ALL;
  GrB_Index count = 0;
};

grb_indices to_grb_indices(const Indices& ix, Index n, std::string_view where, const char* what) {
  grb_indices out;
  if (ix.all_) {
    out.count = GrB_Index(n);
    return out;
  }
  out.list.reserve(ix.list.size());
  for (Index i : ix.list) {
    if (i < 0 || i >= n)
      throw InvalidIndex(std::string(where) + ": " + what + " index " + std::to_string(i) +
                         " is outside 0.." + std::to_string(n - 1));
    out.list.push_back(GrB_Index(i));
  }
  // An empty list still needs a non-null pointer (GraphBLAS answers GrB_NULL_POINTER).
  static const GrB_Index none = 0;
  out.ptr = out.list.empty() ? &none : out.list.data();
  out.count = GrB_Index(out.list.size());
  return out;
}

// ⊕ of every entry of a GraphBLAS matrix or vector, in type t (the identity when empty).
template <class Obj, class Reduce>
Scalar reduce_to_scalar(Obj x, MonoidCode monoid, Type t, std::string_view where, Reduce&& reduce) {
  GrB_Monoid mo = grb_monoid(monoid, t);
  return visit_type(t, [&](auto v) {
    decltype(v) r{};
    RINGBLAS_GRB_TRY(where, x, reduce(&r, mo));
    return Scalar(r);
  });
}

}  // namespace

// The monoid runs in w's type (A's values are typecast to it), so e.g. plus into an int64 w
// counts a bool matrix's entries.
void reduce(Vector& w, const Vector* mask, Accum accum, MonoidCode monoid, const Matrix& A,
            ReduceDim dim, const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::reduce";
  GrB_BinaryOp acc = grb_accum(accum, w.type(), where);
  GrB_Monoid mo = grb_monoid(monoid, w.type());
  // GraphBLAS reduces rows; columns are the rows of Aᵀ.
  descriptor_ptr d = grb_descriptor(desc, where, dim == ReduceDim::cols);
  vector_ptr m = optional_grb(mask, where);
  matrix_ptr a = to_grb(A, where);
  write_vector(w, output_matters(mask, accum, desc), where, [&](GrB_Vector c) {
    RINGBLAS_GRB_TRY(where, c, GrB_Matrix_reduce_Monoid(c, m.get(), acc, mo, a.get(), d.get()));
  });
}

Scalar reduce(MonoidCode monoid, const Matrix& A, Context&) {
  constexpr std::string_view where = "cpu::reduce (matrix to scalar)";
  matrix_ptr a = to_grb(A, where);
  return reduce_to_scalar(a.get(), monoid, A.type(), where, [&](auto* r, GrB_Monoid mo) {
    using T = std::remove_pointer_t<decltype(r)>;
    if constexpr (std::is_same_v<T, bool>)
      return GrB_Matrix_reduce_BOOL(r, nullptr, mo, a.get(), nullptr);
    else if constexpr (std::is_same_v<T, std::int32_t>)
      return GrB_Matrix_reduce_INT32(r, nullptr, mo, a.get(), nullptr);
    else if constexpr (std::is_same_v<T, std::int64_t>)
      return GrB_Matrix_reduce_INT64(r, nullptr, mo, a.get(), nullptr);
    else if constexpr (std::is_same_v<T, float>)
      return GrB_Matrix_reduce_FP32(r, nullptr, mo, a.get(), nullptr);
    else
      return GrB_Matrix_reduce_FP64(r, nullptr, mo, a.get(), nullptr);
  });
}

Scalar reduce(MonoidCode monoid, const Vector& u, Context&) {
  constexpr std::string_view where = "cpu::reduce (vector to scalar)";
  vector_ptr v = to_grb(u, where);
  return reduce_to_scalar(v.get(), monoid, u.type(), where, [&](auto* r, GrB_Monoid mo) {
    using T = std::remove_pointer_t<decltype(r)>;
    if constexpr (std::is_same_v<T, bool>)
      return GrB_Vector_reduce_BOOL(r, nullptr, mo, v.get(), nullptr);
    else if constexpr (std::is_same_v<T, std::int32_t>)
      return GrB_Vector_reduce_INT32(r, nullptr, mo, v.get(), nullptr);
    else if constexpr (std::is_same_v<T, std::int64_t>)
      return GrB_Vector_reduce_INT64(r, nullptr, mo, v.get(), nullptr);
    else if constexpr (std::is_same_v<T, float>)
      return GrB_Vector_reduce_FP32(r, nullptr, mo, v.get(), nullptr);
    else
      return GrB_Vector_reduce_FP64(r, nullptr, mo, v.get(), nullptr);
  });
}

void transpose(Matrix& C, const Matrix* mask, Accum accum, const Matrix& A, const Descriptor& desc,
               Context&) {
  constexpr std::string_view where = "cpu::transpose";
  GrB_BinaryOp acc = grb_accum(accum, C.type(), where);
  descriptor_ptr d = grb_descriptor(desc, where);  // GrB_INP0 = GrB_TRAN cancels the transpose
  matrix_ptr m = optional_grb(mask, where), a = to_grb(A, where);
  write_matrix(C, output_matters(mask, accum, desc), where, [&](GrB_Matrix c) {
    RINGBLAS_GRB_TRY(where, c, GrB_transpose(c, m.get(), acc, a.get(), d.get()));
  });
}

void extract(Matrix& C, const Matrix* mask, Accum accum, const Matrix& A, const Indices& rows,
             const Indices& cols, const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::extract";
  GrB_BinaryOp acc = grb_accum(accum, C.type(), where);
  const Index a_rows = desc.transpose_a ? A.ncols() : A.nrows();
  const Index a_cols = desc.transpose_a ? A.nrows() : A.ncols();
  grb_indices I = to_grb_indices(rows, a_rows, where, "row");
  grb_indices J = to_grb_indices(cols, a_cols, where, "column");
  descriptor_ptr d = grb_descriptor(desc, where);
  matrix_ptr m = optional_grb(mask, where), a = to_grb(A, where);
  write_matrix(C, output_matters(mask, accum, desc), where, [&](GrB_Matrix c) {
    RINGBLAS_GRB_TRY(
        where, c,
        GrB_Matrix_extract(c, m.get(), acc, a.get(), I.ptr, I.count, J.ptr, J.count, d.get()));
  });
}

void assign(Matrix& C, const Matrix* mask, Accum accum, const Matrix& A, const Indices& rows,
            const Indices& cols, const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::assign";
  GrB_BinaryOp acc = grb_accum(accum, C.type(), where);
  grb_indices I = to_grb_indices(rows, C.nrows(), where, "row");
  grb_indices J = to_grb_indices(cols, C.ncols(), where, "column");
  descriptor_ptr d = grb_descriptor(desc, where);
  matrix_ptr m = optional_grb(mask, where), a = to_grb(A, where);
  // C outside (rows, cols) keeps its entries, so C is always copied in.
  write_matrix(C, true, where, [&](GrB_Matrix c) {
    RINGBLAS_GRB_TRY(
        where, c,
        GrB_Matrix_assign(c, m.get(), acc, a.get(), I.ptr, I.count, J.ptr, J.count, d.get()));
  });
}

void assign(Vector& w, const Vector* mask, Accum accum, const Scalar& s, const Descriptor& desc,
            Context&) {
  constexpr std::string_view where = "cpu::assign (scalar)";
  GrB_BinaryOp acc = grb_accum(accum, w.type(), where);
  descriptor_ptr d = grb_descriptor(desc, where);
  vector_ptr m = optional_grb(mask, where);
  scalar_ptr x = grb_scalar(s, where);
  const GrB_Index n = static_cast<GrB_Index>(w.size());
  // w outside the mask keeps its entries (or loses them with replace): w is always copied in.
  write_vector(w, true, where, [&](GrB_Vector c) {
    RINGBLAS_GRB_TRY(where, c,
                     GrB_Vector_assign_Scalar(c, m.get(), acc, x.get(), GrB_ALL, n, d.get()));
  });
}

}  // namespace ringblas::cpu
