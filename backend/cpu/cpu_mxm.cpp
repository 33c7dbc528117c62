// cpu executor: mxm, mxv and vxm on SuiteSparse:GraphBLAS.
#include "backend/cpu/cpu_backend.hpp"
#include "backend/cpu/cpu_common.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cpu {

using namespace detail;

void mxm(Matrix& C, const Matrix* mask, Accum accum, const Semiring& s, const Matrix& A,
         const Matrix& B, const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::mxm";
  semiring_handle sr = grb_semiring(s, where);
  GrB_BinaryOp acc = grb_accum(accum, C.type(), where);
  descriptor_ptr d = grb_descriptor(desc, where);
  matrix_ptr m = optional_grb(mask, where), a = to_grb(A, where), b = to_grb(B, where);
  write_matrix(C, output_matters(mask, accum, desc), where, [&](GrB_Matrix c) {
    RINGBLAS_GRB_TRY(where, c, GrB_mxm(c, m.get(), acc, sr.get(), a.get(), b.get(), d.get()));
  });
}

void mxv(Vector& w, const Vector* mask, Accum accum, const Semiring& s, const Matrix& A,
         const Vector& u, const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::mxv";
  semiring_handle sr = grb_semiring(s, where);
  GrB_BinaryOp acc = grb_accum(accum, w.type(), where);
  descriptor_ptr d = grb_descriptor(desc, where);
  vector_ptr m = optional_grb(mask, where), x = to_grb(u, where);
  matrix_ptr a = to_grb(A, where);
  write_vector(w, output_matters(mask, accum, desc), where, [&](GrB_Vector c) {
    RINGBLAS_GRB_TRY(where, c, GrB_mxv(c, m.get(), acc, sr.get(), a.get(), x.get(), d.get()));
  });
}

void vxm(Vector& w, const Vector* mask, Accum accum, const Semiring& s, const Vector& u,
         const Matrix& A, const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::vxm";
  semiring_handle sr = grb_semiring(s, where);
  GrB_BinaryOp acc = grb_accum(accum, w.type(), where);
  descriptor_ptr d = grb_descriptor(desc, where);  // desc.transpose_b transposes A (GrB_INP1)
  vector_ptr m = optional_grb(mask, where), x = to_grb(u, where);
  matrix_ptr a = to_grb(A, where);
  write_vector(w, output_matters(mask, accum, desc), where, [&](GrB_Vector c) {
    RINGBLAS_GRB_TRY(where, c, GrB_vxm(c, m.get(), acc, sr.get(), x.get(), a.get(), d.get()));
  });
}

}  // namespace ringblas::cpu
