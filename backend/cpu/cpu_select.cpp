// cpu executor: select (GraphBLAS built-in predicates, and row/column top-k computed on the host).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "backend/cpu/cpu_backend.hpp"
#include "backend/cpu/cpu_common.hpp"
#include "ringblas/error.hpp"
#include "semirings/cast.hpp"

namespace ringblas::cpu {

using namespace detail;

namespace {

GrB_IndexUnaryOp value_predicate(SelectOpCode op, Type t) {
#define RINGBLAS_VALUE_OP(NAME)  \
  switch (t) {                   \
    case Type::boolean:          \
      return GrB_##NAME##_BOOL;  \
    case Type::int32:            \
      return GrB_##NAME##_INT32; \
    case Type::int64:            \
      return GrB_##NAME##_INT64; \
    case Type::fp32:             \
      return GrB_##NAME##_FP32;  \
    default:                     \
      return GrB_##NAME##_FP64;  \
  }
  switch (op) {
    case SelectOpCode::value_gt:
      RINGBLAS_VALUE_OP(VALUEGT)
    case SelectOpCode::value_ge:
      RINGBLAS_VALUE_OP(VALUEGE)
    case SelectOpCode::value_lt:
      RINGBLAS_VALUE_OP(VALUELT)
    case SelectOpCode::value_le:
      RINGBLAS_VALUE_OP(VALUELE)
    case SelectOpCode::value_eq:
      RINGBLAS_VALUE_OP(VALUEEQ)
    default:
      RINGBLAS_VALUE_OP(VALUENE)
  }
#undef RINGBLAS_VALUE_OP
}

// The k largest entries of each row of y (ties: smaller column first; NaN ranks below every
// number), as a CSR matrix of y's shape and type with sorted columns.
template <class T>
Matrix top_k_per_row(const Matrix& y, Index k) {
  const auto rp = y.row_ptr_vector();
  const auto ci = y.col_idx_vector();
  const T* val = y.values().as<T>();
  auto larger = [&](Index p, Index q) {
    const T a = val[p], b = val[q];
    if constexpr (std::is_floating_point_v<T>) {
      const bool na = std::isnan(a), nb = std::isnan(b);
      if (na || nb) return na == nb ? ci[p] < ci[q] : nb;
    }
    if (a != b) return a > b;
    return ci[p] < ci[q];
  };
  std::vector<Index> out_ptr(std::size_t(y.nrows()) + 1, 0), out_col;
  std::vector<T> out_val;
  std::vector<Index> pos;
  for (Index i = 0; i < y.nrows(); ++i) {
    pos.resize(std::size_t(rp[i + 1] - rp[i]));
    std::iota(pos.begin(), pos.end(), rp[i]);
    if (Index(pos.size()) > k) {
      std::nth_element(pos.begin(), pos.begin() + k, pos.end(), larger);
      pos.resize(std::size_t(k));
      std::sort(pos.begin(), pos.end());  // positions in a row are in column order
    }
    for (Index p : pos) {
      out_col.push_back(ci[p]);
      out_val.push_back(val[p]);
    }
    out_ptr[std::size_t(i) + 1] = Index(out_col.size());
  }
  return Matrix::from_csr(y.nrows(), y.ncols(), out_ptr, out_col, out_val);
}

}  // namespace

void select(Matrix& C, const Matrix* mask, Accum accum, SelectOpCode op, const Scalar& thunk,
            const Matrix& A, const Descriptor& desc, Context&) {
  constexpr std::string_view where = "cpu::select";
  GrB_BinaryOp acc = grb_accum(accum, C.type(), where);
  matrix_ptr m = optional_grb(mask, where);

  if (op == SelectOpCode::row_topk || op == SelectOpCode::col_topk) {
    const Index k = thunk.as<std::int64_t>();
    if (k < 0)
      throw InvalidValue(std::string(where) + ": " + std::string(select_op_name(op)) +
                         " needs k >= 0, got " + std::to_string(k));
    // Y holds the lines to pick from as rows: op(A) for row_topk, op(A)ᵀ for col_topk.
    const bool col = op == SelectOpCode::col_topk;
    const bool transpose_y = desc.transpose_a != col;
    Matrix y_storage;
    if (transpose_y) {
      matrix_ptr a = to_grb(A, where);
      matrix_ptr yt = new_grb_matrix(A.ncols(), A.nrows(), A.type(), where);
      RINGBLAS_GRB_TRY(where, yt.get(),
                       GrB_transpose(yt.get(), nullptr, nullptr, a.get(), nullptr));
      y_storage = from_grb(yt.get(), A.type(), IndexType::i64, where);
    }
    const Matrix& y = transpose_y ? y_storage : A;
    require_host(y.location(), where, "A");
    Matrix picked = visit_type(A.type(), [&](auto v) { return top_k_per_row<decltype(v)>(y, k); });
    // C<M> = C accum T through GraphBLAS's write-back (T transposed back for col_topk).
    Descriptor through = desc;
    through.transpose_a = col;
    descriptor_ptr d = grb_descriptor(through, where);
    matrix_ptr t = to_grb(picked, where);
    GrB_UnaryOp identity = grb_unary_op(UnaryOpCode::identity, A.type(), where);
    write_matrix(C, output_matters(mask, accum, desc), where, [&](GrB_Matrix c) {
      RINGBLAS_GRB_TRY(where, c, GrB_Matrix_apply(c, m.get(), acc, identity, t.get(), d.get()));
    });
    return;
  }

  descriptor_ptr d = grb_descriptor(desc, where);
  matrix_ptr a = to_grb(A, where);
  const bool positional = op == SelectOpCode::tril || op == SelectOpCode::triu ||
                          op == SelectOpCode::diag || op == SelectOpCode::offdiag;
  if (positional) {
    GrB_IndexUnaryOp f = op == SelectOpCode::tril   ? GrB_TRIL
                         : op == SelectOpCode::triu ? GrB_TRIU
                         : op == SelectOpCode::diag ? GrB_DIAG
                                                    : GrB_OFFDIAG;
    const std::int64_t k = thunk.as<std::int64_t>();
    write_matrix(C, output_matters(mask, accum, desc), where, [&](GrB_Matrix c) {
      RINGBLAS_GRB_TRY(where, c, GrB_Matrix_select_INT64(c, m.get(), acc, f, a.get(), k, d.get()));
    });
    return;
  }
  // Value predicates in A's type, the thunk cast to it here with GraphBLAS's rules (SuiteSparse
  // 7.4 itself mis-casts e.g. a 0.5 thunk for a bool predicate).
  GrB_IndexUnaryOp f = value_predicate(op, A.type());
  const Scalar cast_thunk = visit_type(thunk.type(), [&](auto from) {
    const auto x = thunk.as<decltype(from)>();
    return visit_type(A.type(), [&](auto to) { return Scalar(sr::cast<decltype(to)>(x)); });
  });
  scalar_ptr s = grb_scalar(cast_thunk, where);
  write_matrix(C, output_matters(mask, accum, desc), where, [&](GrB_Matrix c) {
    RINGBLAS_GRB_TRY(where, c,
                     GrB_Matrix_select_Scalar(c, m.get(), acc, f, a.get(), s.get(), d.get()));
  });
}

}  // namespace ringblas::cpu
