// cpu executor: eWiseAdd, eWiseMult, apply (unary, bound binary, index-unary) and kronecker.
//
// Operator types: binary and unary operators run in C's type (inputs are typecast to it first,
// as with the accumulator); positional operators yield int64 (int32 when C is int32) indices,
// index-unary operators int64 values, each typecast to C's type by GraphBLAS.
#include "backend/cpu/cpu_backend.hpp"
#include "backend/cpu/cpu_common.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cpu {

using namespace detail;

namespace {

Descriptor transposes_only(const Descriptor& desc) {
  Descriptor d;
  d.transpose_a = desc.transpose_a;
  d.transpose_b = desc.transpose_b;
  return d;
}
Descriptor masks_only(Descriptor desc) {
  desc.transpose_a = desc.transpose_b = false;
  return desc;
}

}  // namespace

// SuiteSparse 7.4's eWiseAdd applies a positional op even where only one input has an entry; the
// GraphBLAS spec (and ringblas) copy such entries. Positional ewise_add is therefore built as
// T = (A ∪ B, entries cast to C's type) overwritten on A ∩ B by op(A, B), then C<M> = C accum T.
void ewise_add(Matrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, const Matrix& A,
               const Matrix& B, const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::ewise_add";
  GrB_BinaryOp acc = grb_accum(accum, C.type(), where), f = grb_binary_op(op, C.type());
  matrix_ptr m = optional_grb(mask, where), a = to_grb(A, where), b = to_grb(B, where);
  if (is_positional(op)) {
    matrix_ptr t = new_grb_matrix(C.nrows(), C.ncols(), C.type(), where);
    matrix_ptr both = new_grb_matrix(C.nrows(), C.ncols(), C.type(), where);
    descriptor_ptr dt = grb_descriptor(transposes_only(desc), where);
    GrB_BinaryOp first = grb_binary_op(BinaryOpCode::first, C.type());
    GrB_BinaryOp second = grb_binary_op(BinaryOpCode::second, C.type());
    RINGBLAS_GRB_TRY(
        where, t.get(),
        GrB_Matrix_eWiseAdd_BinaryOp(t.get(), nullptr, nullptr, first, a.get(), b.get(), dt.get()));
    RINGBLAS_GRB_TRY(
        where, both.get(),
        GrB_Matrix_eWiseMult_BinaryOp(both.get(), nullptr, nullptr, f, a.get(), b.get(), dt.get()));
    RINGBLAS_GRB_TRY(where, t.get(),
                     GrB_Matrix_eWiseAdd_BinaryOp(t.get(), nullptr, nullptr, second, t.get(),
                                                  both.get(), nullptr));
    descriptor_ptr dm = grb_descriptor(masks_only(desc), where);
    GrB_UnaryOp id = grb_unary_op(UnaryOpCode::identity, C.type(), where);
    write_matrix(C, output_matters(mask, accum, desc), where, [&](GrB_Matrix c) {
      RINGBLAS_GRB_TRY(where, c, GrB_Matrix_apply(c, m.get(), acc, id, t.get(), dm.get()));
    });
    return;
  }
  descriptor_ptr d = grb_descriptor(desc, where);
  write_matrix(C, output_matters(mask, accum, desc), where, [&](GrB_Matrix c) {
    RINGBLAS_GRB_TRY(where, c,
                     GrB_Matrix_eWiseAdd_BinaryOp(c, m.get(), acc, f, a.get(), b.get(), d.get()));
  });
}

void ewise_add(Vector& w, const Vector* mask, Accum accum, BinaryOpCode op, const Vector& u,
               const Vector& v, const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::ewise_add (vector)";
  GrB_BinaryOp acc = grb_accum(accum, w.type(), where), f = grb_binary_op(op, w.type());
  vector_ptr m = optional_grb(mask, where), a = to_grb(u, where), b = to_grb(v, where);
  if (is_positional(op)) {  // as for matrices: entries of one input alone are copied
    vector_ptr t = new_grb_vector(w.size(), w.type(), where);
    vector_ptr both = new_grb_vector(w.size(), w.type(), where);
    GrB_BinaryOp first = grb_binary_op(BinaryOpCode::first, w.type());
    GrB_BinaryOp second = grb_binary_op(BinaryOpCode::second, w.type());
    RINGBLAS_GRB_TRY(
        where, t.get(),
        GrB_Vector_eWiseAdd_BinaryOp(t.get(), nullptr, nullptr, first, a.get(), b.get(), nullptr));
    RINGBLAS_GRB_TRY(
        where, both.get(),
        GrB_Vector_eWiseMult_BinaryOp(both.get(), nullptr, nullptr, f, a.get(), b.get(), nullptr));
    RINGBLAS_GRB_TRY(where, t.get(),
                     GrB_Vector_eWiseAdd_BinaryOp(t.get(), nullptr, nullptr, second, t.get(),
                                                  both.get(), nullptr));
    descriptor_ptr dm = grb_descriptor(masks_only(desc), where);
    GrB_UnaryOp id = grb_unary_op(UnaryOpCode::identity, w.type(), where);
    write_vector(w, output_matters(mask, accum, desc), where, [&](GrB_Vector c) {
      RINGBLAS_GRB_TRY(where, c, GrB_Vector_apply(c, m.get(), acc, id, t.get(), dm.get()));
    });
    return;
  }
  descriptor_ptr d = grb_descriptor(desc, where);
  write_vector(w, output_matters(mask, accum, desc), where, [&](GrB_Vector c) {
    RINGBLAS_GRB_TRY(where, c,
                     GrB_Vector_eWiseAdd_BinaryOp(c, m.get(), acc, f, a.get(), b.get(), d.get()));
  });
}

void ewise_mult(Matrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, const Matrix& A,
                const Matrix& B, const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::ewise_mult";
  GrB_BinaryOp acc = grb_accum(accum, C.type(), where), f = grb_binary_op(op, C.type());
  descriptor_ptr d = grb_descriptor(desc, where);
  matrix_ptr m = optional_grb(mask, where), a = to_grb(A, where), b = to_grb(B, where);
  write_matrix(C, output_matters(mask, accum, desc), where, [&](GrB_Matrix c) {
    RINGBLAS_GRB_TRY(where, c,
                     GrB_Matrix_eWiseMult_BinaryOp(c, m.get(), acc, f, a.get(), b.get(), d.get()));
  });
}

void ewise_mult(Vector& w, const Vector* mask, Accum accum, BinaryOpCode op, const Vector& u,
                const Vector& v, const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::ewise_mult (vector)";
  GrB_BinaryOp acc = grb_accum(accum, w.type(), where), f = grb_binary_op(op, w.type());
  descriptor_ptr d = grb_descriptor(desc, where);
  vector_ptr m = optional_grb(mask, where), a = to_grb(u, where), b = to_grb(v, where);
  write_vector(w, output_matters(mask, accum, desc), where, [&](GrB_Vector c) {
    RINGBLAS_GRB_TRY(where, c,
                     GrB_Vector_eWiseMult_BinaryOp(c, m.get(), acc, f, a.get(), b.get(), d.get()));
  });
}

void apply(Matrix& C, const Matrix* mask, Accum accum, UnaryOpCode op, const Matrix& A,
           const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::apply (unary)";
  GrB_BinaryOp acc = grb_accum(accum, C.type(), where);
  GrB_UnaryOp f = grb_unary_op(op, C.type(), where);
  descriptor_ptr d = grb_descriptor(desc, where);
  matrix_ptr m = optional_grb(mask, where), a = to_grb(A, where);
  write_matrix(C, output_matters(mask, accum, desc), where, [&](GrB_Matrix c) {
    RINGBLAS_GRB_TRY(where, c, GrB_Matrix_apply(c, m.get(), acc, f, a.get(), d.get()));
  });
}

void apply(Vector& w, const Vector* mask, Accum accum, UnaryOpCode op, const Vector& u,
           const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::apply (unary, vector)";
  GrB_BinaryOp acc = grb_accum(accum, w.type(), where);
  GrB_UnaryOp f = grb_unary_op(op, w.type(), where);
  descriptor_ptr d = grb_descriptor(desc, where);
  vector_ptr m = optional_grb(mask, where), a = to_grb(u, where);
  write_vector(w, output_matters(mask, accum, desc), where, [&](GrB_Vector c) {
    RINGBLAS_GRB_TRY(where, c, GrB_Vector_apply(c, m.get(), acc, f, a.get(), d.get()));
  });
}

void apply(Matrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, BindSide side,
           const Scalar& s, const Matrix& A, const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::apply (bound binary op)";
  GrB_BinaryOp acc = grb_accum(accum, C.type(), where), f = grb_binary_op(op, C.type());
  // GraphBLAS counts A as the second input when the scalar is bound first: its transpose is
  // GrB_INP1.
  Descriptor moved = desc;
  moved.transpose_a = side == BindSide::first ? false : desc.transpose_a;
  moved.transpose_b = side == BindSide::first ? desc.transpose_a : false;
  descriptor_ptr d = grb_descriptor(moved, where);
  scalar_ptr x = grb_scalar(s, where);
  matrix_ptr m = optional_grb(mask, where), a = to_grb(A, where);
  write_matrix(C, output_matters(mask, accum, desc), where, [&](GrB_Matrix c) {
    if (side == BindSide::first) {
      RINGBLAS_GRB_TRY(
          where, c,
          GrB_Matrix_apply_BinaryOp1st_Scalar(c, m.get(), acc, f, x.get(), a.get(), d.get()));
    } else {
      RINGBLAS_GRB_TRY(
          where, c,
          GrB_Matrix_apply_BinaryOp2nd_Scalar(c, m.get(), acc, f, a.get(), x.get(), d.get()));
    }
  });
}

void apply(Matrix& C, const Matrix* mask, Accum accum, IndexUnaryOpCode op, Index thunk,
           const Matrix& A, const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::apply (index-unary)";
  GrB_BinaryOp acc = grb_accum(accum, C.type(), where);
  descriptor_ptr d = grb_descriptor(desc, where);
  matrix_ptr m = optional_grb(mask, where), a = to_grb(A, where);
  // ringblas's diagindex is j - i + s (codes.hpp); GrB_DIAGINDEX computes j - (i + s), so it gets
  // -s (negated with wrap-around, as int64 arithmetic in GraphBLAS wraps).
  const std::int64_t s = op == IndexUnaryOpCode::diagindex
                             ? static_cast<std::int64_t>(0ull - static_cast<std::uint64_t>(thunk))
                             : std::int64_t(thunk);
  write_matrix(C, output_matters(mask, accum, desc), where, [&](GrB_Matrix c) {
    RINGBLAS_GRB_TRY(where, c,
                     GrB_Matrix_apply_IndexOp_INT64(c, m.get(), acc, grb_index_unary_op(op),
                                                    a.get(), s, d.get()));
  });
}

void kronecker(Matrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, const Matrix& A,
               const Matrix& B, const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::kronecker";
  GrB_BinaryOp acc = grb_accum(accum, C.type(), where), f = grb_binary_op(op, C.type());
  descriptor_ptr d = grb_descriptor(desc, where);
  matrix_ptr m = optional_grb(mask, where), a = to_grb(A, where), b = to_grb(B, where);
  write_matrix(C, output_matters(mask, accum, desc), where, [&](GrB_Matrix c) {
    RINGBLAS_GRB_TRY(where, c,
                     GrB_Matrix_kronecker_BinaryOp(c, m.get(), acc, f, a.get(), b.get(), d.get()));
  });
}

}  // namespace ringblas::cpu
