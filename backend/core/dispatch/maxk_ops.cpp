// The public MaxK-GNN operations (include/ringblas/cbsr.hpp): validation once, then each one's
// dispatch table (dispatch_tables_maxk.cpp).
#include <algorithm>
#include <string>

#include "backend/core/dispatch/dispatch_tables_maxk.hpp"
#include "backend/core/dispatch/validate.hpp"
#include "ringblas/cbsr.hpp"
#include "ringblas/error.hpp"

namespace ringblas {
namespace {

using detail::Dims;
using detail::dims;
using detail::require;
using detail::str;

void require_plus_times_fp32(const char* op, const Semiring& s) {
  if (s.is_user() || s.add != MonoidCode::plus || s.mul != BinaryOpCode::times ||
      s.type != Type::fp32)
    throw NotImplemented(std::string(op) + ": MaxK-GNN products are plus_times over fp32, not " +
                         s.name());
}

void require_fp32(const char* op, const char* what, Type t) {
  if (t != Type::fp32)
    throw NotImplemented(std::string(op) + ": " + what + " must be fp32, not " +
                         std::string(type_name(t)));
}

void require_cbsr_columns(const char* op, Index h) {
  if (h > kCbsrMaxColumns)
    throw NotImplemented(std::string(op) + ": " + std::to_string(h) +
                         " columns; CBSR column indices are 8-bit, so at most " +
                         std::to_string(kCbsrMaxColumns));
}

/// Shapes, descriptor and semiring of C = op(A) ⊕.⊗ B (one of the MaxK products; B's rows and
/// columns given, C's shape checked), and the verify tolerance for sums over op(A)'s columns.
detail::Tolerance check_product(const char* op, Index c_rows, Index c_cols, const Semiring& s,
                                const Matrix& A, Index b_rows, Index b_cols, const Descriptor& d) {
  const Dims a = dims(A, d.transpose_a);
  require(a.cols == b_rows, op,
          "A is " + str(a) + " but the right operand is " + str({b_rows, b_cols}));
  require(c_rows == a.rows && c_cols == b_cols, op,
          "C is " + str({c_rows, c_cols}) + " but the product is " + str({a.rows, b_cols}));
  detail::check_dense_output_flags(op, d, false);
  require_plus_times_fp32(op, s);
  return detail::Tolerance::for_type(Type::fp32, double(std::min<Index>(a.cols, 1024)));
}

void require_int32_rows(const char* op, Index n) {
  if (n >= (Index{1} << 31)) throw NotImplemented(std::string(op) + ": 2^31 or more rows");
}

}  // namespace

void maxk(Cbsr& X, const DenseMatrix& Y, int k, const Descriptor& d, Context& ctx) {
  const char* op = "maxk";
  require_fp32(op, "Y", Y.type());
  require_cbsr_columns(op, Y.ncols());
  require_int32_rows(op, Y.nrows());
  if (k < 1 || k > Y.ncols())
    throw InvalidValue(std::string(op) + ": k = " + std::to_string(k) + " outside [1, " +
                       std::to_string(Y.ncols()) + "] (Y's columns)");
  detail::check_dense_output_flags(op, d, false);
  if (d.transpose_a) throw NotImplemented(std::string(op) + ": transpose_a does not apply");
  // Selection copies values: cuda and cpu agree exactly.
  detail::execute(detail::maxk_table(), detail::MaxkProblem{Y, k}, d.variant, X, ctx,
                  detail::Tolerance{});
}

void densify(DenseMatrix& D, const Cbsr& X, const Descriptor& d, Context& ctx) {
  const char* op = "densify";
  require_fp32(op, "D", D.type());
  detail::check_dense_output_flags(op, d, false);
  if (d.transpose_a) throw NotImplemented(std::string(op) + ": transpose_a does not apply");
  require(D.nrows() == X.nrows() && D.ncols() == X.ncols(), op,
          "D is " + str({D.nrows(), D.ncols()}) + " but X is " + str({X.nrows(), X.ncols()}));
  detail::execute(detail::densify_table(), detail::DensifyProblem{X}, d.variant, D, ctx,
                  detail::Tolerance{});
}

void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const Cbsr& X, const Descriptor& d,
         Context& ctx) {
  const char* op = "mxm (cbsr)";
  const detail::Tolerance tol =
      check_product(op, C.nrows(), C.ncols(), s, A, X.nrows(), X.ncols(), d);
  require_fp32(op, "C", C.type());
  detail::execute(detail::mxm_cbsr_table(), detail::CbsrMxmProblem{s, A, X, nullptr, d}, d.variant,
                  C, ctx, tol);
}

namespace {

/// The epilogue forms' checks (shapes, semiring, bias, C's type); the tolerance of check_product.
detail::Tolerance check_epilogue_product(const char* op, const DenseMatrix& C, const Semiring& s,
                                         const Matrix& A, const Cbsr& X, const Epilogue& ep,
                                         const Descriptor& d) {
  const detail::Tolerance tol =
      check_product(op, C.nrows(), C.ncols(), s, A, X.nrows(), X.ncols(), d);
  if (ep.has_bias() && !ep.bias)
    throw InvalidValue(std::string(op) + ": a bias epilogue needs a bias vector");
  if (ep.has_bias() && ep.bias->size() != C.ncols())
    throw InvalidValue(std::string(op) + ": the bias has size " + std::to_string(ep.bias->size()) +
                       " but C has " + std::to_string(C.ncols()) + " columns");
  require_fp32(op, "C", C.type());
  return tol;
}

}  // namespace

void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const Cbsr& X, const Epilogue& ep,
         const Descriptor& d, Context& ctx) {
  const char* op = "mxm (cbsr, epilogue)";
  const detail::Tolerance tol = check_epilogue_product(op, C, s, A, X, ep, d);
  detail::execute(detail::mxm_cbsr_table(), detail::CbsrMxmProblem{s, A, X, &ep, d}, d.variant, C,
                  ctx, tol);
}

void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const Cbsr& X, const Epilogue& ep,
         const OutputDropout& drop, const Descriptor& d, Context& ctx) {
  const char* op = "mxm (cbsr, epilogue, dropout)";
  const detail::Tolerance tol = check_epilogue_product(op, C, s, A, X, ep, d);
  detail::require_p(op, drop.p);
  detail::execute(detail::mxm_cbsr_table(), detail::CbsrMxmProblem{s, A, X, &ep, d, &drop},
                  d.variant, C, ctx, tol);
}

void mxm(Cbsr& C, const Semiring& s, const Matrix& A, const DenseMatrix& B, const Descriptor& d,
         Context& ctx) {
  const char* op = "mxm (sampled cbsr)";
  const detail::Tolerance tol =
      check_product(op, C.nrows(), C.ncols(), s, A, B.nrows(), B.ncols(), d);
  require_fp32(op, "B", B.type());
  detail::execute(detail::mxm_sampled_table(), detail::SampledMxmProblem{s, A, B, d}, d.variant, C,
                  ctx, tol);
}

}  // namespace ringblas
