// The public MaxK-GNN operations (include/ringblas/cbsr.hpp): validation once, then each one's
// dispatch table (dispatch_tables_maxk.cpp).
#include <algorithm>
#include <string>

#include "backend/core/dispatch_tables_maxk.hpp"
#include "backend/core/validate.hpp"
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
  const Dims a = dims(A, d.transpose_a);
  require(a.cols == X.nrows(), op, "A is " + str(a) + " but X is " + str({X.nrows(), X.ncols()}));
  require(C.nrows() == a.rows && C.ncols() == X.ncols(), op,
          "C is " + str({C.nrows(), C.ncols()}) + " but A*X is " + str({a.rows, X.ncols()}));
  detail::check_dense_output_flags(op, d, false);
  require_plus_times_fp32(op, s);
  require_fp32(op, "C", C.type());
  detail::execute(detail::mxm_cbsr_table(), detail::CbsrMxmProblem{s, A, X, nullptr, d}, d.variant,
                  C, ctx,
                  detail::Tolerance::for_type(Type::fp32, double(std::min<Index>(a.cols, 1024))));
}

void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const Cbsr& X, const Epilogue& ep,
         const Descriptor& d, Context& ctx) {
  const char* op = "mxm (cbsr, epilogue)";
  const Dims a = dims(A, d.transpose_a);
  require(a.cols == X.nrows(), op, "A is " + str(a) + " but X is " + str({X.nrows(), X.ncols()}));
  require(C.nrows() == a.rows && C.ncols() == X.ncols(), op,
          "C is " + str({C.nrows(), C.ncols()}) + " but A*X is " + str({a.rows, X.ncols()}));
  if (ep.has_bias() && !ep.bias)
    throw InvalidValue(std::string(op) + ": a bias epilogue needs a bias vector");
  if (ep.has_bias() && ep.bias->size() != C.ncols())
    throw InvalidValue(std::string(op) + ": the bias has size " + std::to_string(ep.bias->size()) +
                       " but C has " + std::to_string(C.ncols()) + " columns");
  detail::check_dense_output_flags(op, d, false);
  require_plus_times_fp32(op, s);
  require_fp32(op, "C", C.type());
  detail::execute(detail::mxm_cbsr_table(), detail::CbsrMxmProblem{s, A, X, &ep, d}, d.variant, C,
                  ctx,
                  detail::Tolerance::for_type(Type::fp32, double(std::min<Index>(a.cols, 1024))));
}

void mxm(Cbsr& C, const Semiring& s, const Matrix& A, const DenseMatrix& B, const Descriptor& d,
         Context& ctx) {
  const char* op = "mxm (sampled cbsr)";
  const Dims a = dims(A, d.transpose_a);
  require(a.cols == B.nrows(), op, "A is " + str(a) + " but B is " + str({B.nrows(), B.ncols()}));
  require(C.nrows() == a.rows && C.ncols() == B.ncols(), op,
          "C is " + str({C.nrows(), C.ncols()}) + " but A*B is " + str({a.rows, B.ncols()}));
  detail::check_dense_output_flags(op, d, false);
  require_plus_times_fp32(op, s);
  require_fp32(op, "B", B.type());
  detail::execute(detail::mxm_sampled_table(), detail::SampledMxmProblem{s, A, B, d}, d.variant, C,
                  ctx,
                  detail::Tolerance::for_type(Type::fp32, double(std::min<Index>(a.cols, 1024))));
}

}  // namespace ringblas
