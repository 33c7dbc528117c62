// cpu executor: the dense-output product (SpMM) C = A ⊕.⊗ B; epilogue/batched forms build on it.
//
// Every element of C is written: C(i,j) = ⊕_k A(i,k) ⊗ B(k,j) where row i of op(A) has entries,
// and the add monoid's identity (in the semiring's type, then cast to C's type) where it has none:
// a dense result has no "absent" element, and the identity is the value of an empty ⊕.
#include <cstring>
#include <string>

#include "backend/cpu/cpu_backend.hpp"
#include "backend/cpu/cpu_common.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cpu {

using namespace detail;

namespace {

// The full nrows x ncols product in type out_type: identity everywhere, then
// C = second(C, A ⊕.⊗ B) so that GraphBLAS typecasts the products into out_type.
matrix_ptr dense_product(const Semiring& s, const Matrix& A, const DenseMatrix& B,
                         const Descriptor& desc, Index nrows, Index ncols, Type out_type,
                         std::string_view where) {
  semiring_handle sr = grb_semiring(s, where);
  Descriptor plain;  // a dense product has no mask: only the transposes apply
  plain.transpose_a = desc.transpose_a;
  plain.transpose_b = desc.transpose_b;
  descriptor_ptr d = grb_descriptor(plain, where);

  unsigned char identity[sizeof(double)] = {};
  if (s.user) {
    std::memcpy(identity, s.user->identity.data(), type_size(s.type));
  } else {
    RINGBLAS_GRB_TRY(where, nullptr, GxB_Monoid_identity(identity, sr.monoid));
  }
  scalar_ptr id = grb_scalar(visit_type(s.type,
                                        [&](auto v) {
                                          std::memcpy(&v, identity, sizeof(v));
                                          return Scalar(v);
                                        }),
                             where);

  matrix_ptr a = to_grb(A, where), b = to_grb_full(B, where);
  matrix_ptr c = new_grb_matrix(nrows, ncols, out_type, where);
  RINGBLAS_GRB_TRY(where, c.get(),
                   GrB_Matrix_assign_Scalar(c.get(), nullptr, nullptr, id.get(), GrB_ALL,
                                            GrB_Index(nrows), GrB_ALL, GrB_Index(ncols), nullptr));
  RINGBLAS_GRB_TRY(where, c.get(),
                   GrB_mxm(c.get(), nullptr, grb_binary_op(BinaryOpCode::second, out_type),
                           sr.get(), a.get(), b.get(), d.get()));
  return c;
}

DenseMatrix dense_mxm(const DenseMatrix& C, const Semiring& s, const Matrix& A,
                      const DenseMatrix& B, const Descriptor& desc, std::string_view where) {
  matrix_ptr c = dense_product(s, A, B, desc, C.nrows(), C.ncols(), C.type(), where);
  return from_grb_full(c.get(), C.type(), C.layout(), where);
}

}  // namespace

void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const DenseMatrix& B,
         const Descriptor& desc, Context&) {
  DenseMatrix out = dense_mxm(C, s, A, B, desc, "cpu::mxm (dense)");
  C = std::move(out);
}

}  // namespace ringblas::cpu
