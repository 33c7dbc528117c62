// Public operations: validate (backend/core/dispatch/validate.hpp), then hand the problem to its
// dispatch table (backend/core/dispatch_tables_*.cpp), which picks the executor and the kernel
// variant.
#include "ringblas/ops.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "backend/core/containers/dense_batch.hpp"
#include "backend/core/dispatch/dispatch_tables.hpp"
#include "backend/core/dispatch/validate.hpp"
#include "backend/cpu/cpu_backend.hpp"
#include "ringblas/matrix_batch.hpp"

namespace ringblas {
namespace {

using detail::check_accum;
using detail::check_indices;
using detail::check_mask;
using detail::Dims;
using detail::dims;
using detail::require;
using detail::str;
using detail::Tolerance;

/// Float sums may differ by summation order; scale the tolerance by the inner dimension.
Tolerance tol_for(Type t, MonoidCode add, Index terms) {
  Tolerance tol = Tolerance::for_type(t, double(terms));
  tol.values_any = add == MonoidCode::any;
  return tol;
}
Tolerance exact(Type t) { return Tolerance::for_type(t); }
/// The type whose rounding bounds a result computed at `computed` and stored as `stored`: a sum
/// of fp32 values stored as fp64 is only as close as fp32 arithmetic.
Type looser(Type stored, Type computed) {
  if (stored == Type::fp32 || computed == Type::fp32) return Type::fp32;
  return is_float(stored) ? stored : computed;
}

/// The multiply that, applied to |x| and |y|, bounds |mul(x, y)|; nullopt where none does.
std::optional<BinaryOpCode> abs_bound_op(BinaryOpCode m) {
  switch (m) {
    case BinaryOpCode::times:
    case BinaryOpCode::first:
    case BinaryOpCode::second:
    case BinaryOpCode::pair: return m;
    case BinaryOpCode::plus:
    case BinaryOpCode::minus: return BinaryOpCode::plus;
    case BinaryOpCode::min:
    case BinaryOpCode::max: return BinaryOpCode::max;
    default: return std::nullopt;
  }
}

/// Verify compares float sums computed in different orders; where they cancel, the difference
/// is bounded by n·eps·Σ|products| (n = inner dimension), not by the result. This says whether
/// that bound applies and with which relative factor.
std::optional<double> cancellation_bound(const Context& ctx, Type out, const Semiring& s,
                                         Index inner) {
  if (ctx.backend != Backend::verify || s.is_user() || s.add != MonoidCode::plus ||
      !abs_bound_op(s.mul) || !(is_float(out) || is_float(s.type)))
    return std::nullopt;
  const double eps = (out == Type::fp32 || s.type == Type::fp32) ? 1.2e-7 : 2.3e-16;
  return 2.0 * double(std::max<Index>(inner, 1)) * eps;
}

/// The same bound for a plus-reduction of `terms` values computed at type `t`.
std::optional<double> sum_cancellation_bound(const Context& ctx, MonoidCode m, Type t, Index terms) {
  if (ctx.backend != Backend::verify || m != MonoidCode::plus || !is_float(t)) return std::nullopt;
  const double eps = t == Type::fp32 ? 1.2e-7 : 2.3e-16;
  return 2.0 * double(std::max<Index>(terms, 1)) * eps;
}

/// |X| on the host at fp64.
Matrix abs_values(const Matrix& x, const Context& ctx) {
  Matrix h = (x.location() == Location::host ? x : x.to(Location::host, ctx)).cast(Type::fp64);
  double* v = h.values().as<double>();
  for (Index k = 0; k < h.nnz(); ++k) v[k] = std::fabs(v[k]);
  return h;
}
DenseMatrix abs_values(const DenseMatrix& x, const Context& ctx) {
  DenseMatrix h = x.location() == Location::host ? x : x.to(Location::host, ctx);
  std::vector<double> v(static_cast<std::size_t>(h.nrows() * h.ncols()));
  for (Index i = 0; i < h.nrows(); ++i)
    for (Index j = 0; j < h.ncols(); ++j)
      v[std::size_t(h.layout() == Layout::row_major ? i * h.ncols() + j : j * h.nrows() + i)] =
          std::fabs(h.at<double>(i, j));
  return DenseMatrix::from_values(h.nrows(), h.ncols(), v, h.layout());
}

}  // namespace

void mxm(Matrix& C, const Matrix* M, Accum acc, const Semiring& s, const Matrix& A,
         const Matrix& B, const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_a), b = dims(B, d.transpose_b);
  require(a.cols == b.rows, "mxm",
          [&] { return "inner dimensions differ: A is " + str(a) + ", B is " + str(b); });
  require(dims(C) == Dims{a.rows, b.cols}, "mxm", [&] {
    return "C is " + str(dims(C)) + " but A*B is " + str({a.rows, b.cols});
  });
  check_mask("mxm", M, dims(C));
  check_accum("mxm", acc);
  Tolerance tol = tol_for(C.type(), s.add, a.cols);
  std::optional<Matrix> scale;
  if (auto rel = cancellation_bound(ctx, C.type(), s, a.cols)) {
    scale.emplace(a.rows, b.cols, Type::fp64);
    Descriptor sd;
    sd.transpose_a = d.transpose_a;
    sd.transpose_b = d.transpose_b;
    cpu::mxm(*scale, nullptr, no_accum, Semiring(MonoidCode::plus, *abs_bound_op(s.mul), Type::fp64),
             abs_values(A, ctx), abs_values(B, ctx), sd, ctx);
    tol.scale = &*scale;
    tol.scale_rel = *rel;
  }
  detail::execute(detail::mxm_table(), detail::MxmProblem{M, acc, s, A, B, d, &ctx}, d.variant, C,
                  ctx, tol);
}

void mxv(Vector& w, const Vector* m, Accum acc, const Semiring& s, const Matrix& A, const Vector& u,
         const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_a);
  require(a.cols == u.size(), "mxv",
          [&] { return "A is " + str(a) + " but u has size " + std::to_string(u.size()); });
  require(w.size() == a.rows, "mxv",
          [&] { return "w has size " + std::to_string(w.size()) + " but A is " + str(a); });
  check_mask("mxv", m, w.size());
  check_accum("mxv", acc);
  detail::execute(detail::mxv_table(), detail::MxvProblem{m, acc, s, A, u, d}, d.variant, w, ctx,
                  tol_for(w.type(), s.add, a.cols));
}

void vxm(Vector& w, const Vector* m, Accum acc, const Semiring& s, const Vector& u, const Matrix& A,
         const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_b);
  require(a.rows == u.size(), "vxm",
          [&] { return "u has size " + std::to_string(u.size()) + " but A is " + str(a); });
  require(w.size() == a.cols, "vxm",
          [&] { return "w has size " + std::to_string(w.size()) + " but A is " + str(a); });
  check_mask("vxm", m, w.size());
  check_accum("vxm", acc);
  detail::execute(detail::vxm_table(), detail::MxvProblem{m, acc, s, A, u, d}, d.variant, w, ctx,
                  tol_for(w.type(), s.add, a.rows));
}

void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const DenseMatrix& B,
         const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_a);
  Dims b = d.transpose_b ? Dims{B.ncols(), B.nrows()} : Dims{B.nrows(), B.ncols()};
  require(a.cols == b.rows, "mxm (dense)",
          [&] { return "A is " + str(a) + " but B is " + str(b); });
  require(C.nrows() == a.rows && C.ncols() == b.cols, "mxm (dense)", [&] {
    return "C is " + str({C.nrows(), C.ncols()}) + " but A*B is " + str({a.rows, b.cols});
  });
  detail::check_dense_output_flags("mxm (dense)", d, true);
  Tolerance tol = tol_for(C.type(), s.add, a.cols);
  std::optional<DenseMatrix> scale;
  if (auto rel = cancellation_bound(ctx, C.type(), s, a.cols)) {
    scale.emplace(a.rows, b.cols, Type::fp64);
    Descriptor sd;
    sd.transpose_a = d.transpose_a;
    sd.transpose_b = d.transpose_b;
    cpu::mxm(*scale, Semiring(MonoidCode::plus, *abs_bound_op(s.mul), Type::fp64),
             abs_values(A, ctx), abs_values(B, ctx), sd, ctx);
    tol.dense_scale = &*scale;
    tol.scale_rel = *rel;
  }
  detail::execute(detail::mxm_dense_table(), detail::DenseMxmProblem{s, A, B, nullptr, d}, d.variant,
                  C, ctx, tol);
}

void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const DenseMatrix& B,
         const Epilogue& ep, const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_a);
  require(a.cols == B.nrows(), "mxm (dense, epilogue)", [&] {
    return "A is " + str(a) + " but B is " + str({B.nrows(), B.ncols()});
  });
  require(C.nrows() == a.rows && C.ncols() == B.ncols(), "mxm (dense, epilogue)", [&] {
    return "C is " + str({C.nrows(), C.ncols()}) + " but A*B is " + str({a.rows, B.ncols()});
  });
  if (ep.has_bias() && !ep.bias)
    throw InvalidValue("mxm (dense, epilogue): a bias epilogue needs a bias vector");
  if (ep.has_bias() && ep.bias->size() != C.ncols())
    throw InvalidValue("mxm (dense, epilogue): the bias has size " + std::to_string(ep.bias->size()) +
                       " but C has " + std::to_string(C.ncols()) + " columns");
  detail::check_dense_output_flags("mxm (dense, epilogue)", d, false);
  detail::execute(detail::mxm_dense_epilogue_table(), detail::DenseMxmProblem{s, A, B, &ep, d},
                  d.variant, C, ctx, tol_for(C.type(), s.add, a.cols));
}

void mxm_batched(std::vector<DenseMatrix>& C, const Semiring& s, const std::vector<Matrix>& A,
                 const std::vector<DenseMatrix>& B, const Descriptor& d, Context& ctx) {
  require(C.size() == A.size() && B.size() == A.size(), "mxm_batched",
          "batch sizes differ: C has " + std::to_string(C.size()) + ", A " +
              std::to_string(A.size()) + ", B " + std::to_string(B.size()) + " items");
  detail::check_dense_output_flags("mxm_batched", d, false);
  // Messages are built only on failure: this loop runs per item on every call.
  Index inner = 0;
  for (std::size_t k = 0; k < A.size(); ++k) {
    Dims a = dims(A[k], d.transpose_a);
    const bool fits = a.cols == B[k].nrows() && C[k].nrows() == a.rows &&
                      C[k].ncols() == B[k].ncols() && B[k].ncols() == B[0].ncols();
    if (!fits) {
      const std::string item = "item " + std::to_string(k) + ": ";
      require(a.cols == B[k].nrows(), "mxm_batched",
              item + "A is " + str(a) + " but B is " + str({B[k].nrows(), B[k].ncols()}));
      require(C[k].nrows() == a.rows && C[k].ncols() == B[k].ncols(), "mxm_batched",
              item + "C is " + str({C[k].nrows(), C[k].ncols()}) + " but A*B is " +
                  str({a.rows, B[k].ncols()}));
      require(false, "mxm_batched",
              item + "B has " + std::to_string(B[k].ncols()) + " columns but item 0 has " +
                  std::to_string(B[0].ncols()) + " (n_B is shared by the batch)");
    }
    inner = std::max(inner, a.cols);
  }
  detail::DenseBatch out{std::move(C)};
  try {
    detail::execute(detail::mxm_batched_table(), detail::BatchedMxmProblem{s, A, B, d}, d.variant,
                    out, ctx,
                    tol_for(out.items.empty() ? s.type : out.items[0].type(), s.add, inner));
  } catch (...) {
    C = std::move(out.items);
    throw;
  }
  C = std::move(out.items);
}

/// The checks of the stacked mxm_batched (both forms): op(items) stacked are `stacked`.
static void check_stacked(std::size_t items, Dims stacked, const DenseMatrix& B,
                          const DenseMatrix& C, const Epilogue& ep, const Descriptor& d) {
  detail::check_dense_output_flags("mxm_batched (stacked)", d, false);
  require(stacked.rows == C.nrows() && stacked.cols == B.nrows() && B.ncols() == C.ncols(),
          "mxm_batched (stacked)", [&] {
            return "the " + std::to_string(items) + " items are " + std::to_string(stacked.rows) +
                   " x " + std::to_string(stacked.cols) + " stacked, B is " +
                   str({B.nrows(), B.ncols()}) + ", C is " + str({C.nrows(), C.ncols()});
          });
  if (ep.has_bias()) {
    if (!ep.bias) throw InvalidValue("mxm_batched (stacked): the epilogue needs a bias vector");
    if (ep.bias->size() != C.ncols())
      throw InvalidValue("mxm_batched (stacked): bias has size " +
                         std::to_string(ep.bias->size()) + " but C has " +
                         std::to_string(C.ncols()) + " columns");
  }
}

void mxm_batched(DenseMatrix& C, const Semiring& s, const std::vector<Matrix>& A,
                 const DenseMatrix& B, const Epilogue& ep, const Descriptor& d, Context& ctx) {
  Index rows = 0, inner = 0, widest = 0;
  for (const Matrix& a : A) {
    const Dims x = dims(a, d.transpose_a);
    rows += x.rows;
    inner += x.cols;
    widest = std::max(widest, x.cols);
  }
  check_stacked(A.size(), {rows, inner}, B, C, ep, d);
  detail::execute(detail::mxm_batched_stacked_table(),
                  detail::StackedBatchedMxmProblem{s, A, B, ep, d}, d.variant, C, ctx,
                  tol_for(C.type(), s.add, widest));
}

void mxm_batched(DenseMatrix& C, const Semiring& s, const MatrixBatch& A, const DenseMatrix& B,
                 const Epilogue& ep, const Descriptor& d, Context& ctx) {
  check_stacked(A.size(), dims(A.block_diagonal(), d.transpose_a), B, C, ep, d);
  // The tolerance of verify: a sum runs over one item's columns, not the block-diagonal's.
  const Index widest = d.transpose_a ? A.max_item_rows() : A.max_item_cols();
  detail::execute(detail::mxm_dense_epilogue_table(),
                  detail::DenseMxmProblem{s, A.block_diagonal(), B, &ep, d}, d.variant, C, ctx,
                  tol_for(C.type(), s.add, widest));
}

#define RINGBLAS_EWISE(NAME)                                                                    \
  void NAME(Matrix& C, const Matrix* M, Accum acc, BinaryOpCode op, const Matrix& A,            \
            const Matrix& B, const Descriptor& d, Context& ctx) {                               \
    Dims a = dims(A, d.transpose_a), b = dims(B, d.transpose_b);                                \
    require(a == b && dims(C) == a, #NAME,                                                      \
            "A is " + str(a) + ", B is " + str(b) + ", C is " + str(dims(C)));                  \
    check_mask(#NAME, M, dims(C));                                                              \
    check_accum(#NAME, acc);                                                                    \
    detail::execute(detail::NAME##_table(&C), detail::EwiseProblem<Matrix>{M, acc, op, A, B, d}, \
                    d.variant, C, ctx, exact(C.type()));                                        \
  }                                                                                             \
  void NAME(Vector& w, const Vector* m, Accum acc, BinaryOpCode op, const Vector& u,            \
            const Vector& v, const Descriptor& d, Context& ctx) {                               \
    require(u.size() == v.size() && w.size() == u.size(), #NAME,                                \
            "sizes " + std::to_string(u.size()) + ", " + std::to_string(v.size()) + ", w " +    \
                std::to_string(w.size()));                                                      \
    check_mask(#NAME, m, w.size());                                                             \
    check_accum(#NAME, acc);                                                                    \
    detail::execute(detail::NAME##_table(&w), detail::EwiseProblem<Vector>{m, acc, op, u, v, d}, \
                    d.variant, w, ctx, exact(w.type()));                                        \
  }
RINGBLAS_EWISE(ewise_add)
RINGBLAS_EWISE(ewise_mult)
#undef RINGBLAS_EWISE

/// Shared checks of the matrix operations whose T has A's shape (apply, select).
static void check_elementwise_unary(const char* op, const Matrix& C, const Matrix* M,
                                    Accum acc, const Matrix& A, const Descriptor& d) {
  Dims a = dims(A, d.transpose_a);
  require(dims(C) == a, op, "C is " + str(dims(C)) + " but A is " + str(a));
  check_mask(op, M, dims(C));
  check_accum(op, acc);
}

void apply(Matrix& C, const Matrix* M, Accum acc, UnaryOpCode op, const Matrix& A,
           const Descriptor& d, Context& ctx) {
  check_elementwise_unary("apply", C, M, acc, A, d);
  detail::execute(detail::apply_table(), detail::ApplyProblem<Matrix>{M, acc, op, A, d}, d.variant,
                  C, ctx, exact(C.type()));
}

void apply(Vector& w, const Vector* m, Accum acc, UnaryOpCode op, const Vector& u,
           const Descriptor& d, Context& ctx) {
  require(w.size() == u.size(), "apply", "w has size " + std::to_string(w.size()) + ", u " +
                                             std::to_string(u.size()));
  check_mask("apply", m, w.size());
  check_accum("apply", acc);
  detail::execute(detail::apply_vector_table(), detail::ApplyProblem<Vector>{m, acc, op, u, d},
                  d.variant, w, ctx, exact(w.type()));
}

void apply(Matrix& C, const Matrix* M, Accum acc, BinaryOpCode op, BindSide side, const Scalar& s,
           const Matrix& A, const Descriptor& d, Context& ctx) {
  check_elementwise_unary("apply", C, M, acc, A, d);
  detail::execute(detail::apply_bound_table(), detail::ApplyBoundProblem{M, acc, op, side, s, A, d},
                  d.variant, C, ctx, exact(C.type()));
}

void apply(Matrix& C, const Matrix* M, Accum acc, IndexUnaryOpCode op, Index thunk,
           const Matrix& A, const Descriptor& d, Context& ctx) {
  check_elementwise_unary("apply", C, M, acc, A, d);
  detail::execute(detail::apply_index_table(), detail::ApplyIndexProblem{M, acc, op, thunk, A, d},
                  d.variant, C, ctx, exact(C.type()));
}

void select(Matrix& C, const Matrix* M, Accum acc, SelectOpCode op, const Scalar& thunk,
            const Matrix& A, const Descriptor& d, Context& ctx) {
  if ((op == SelectOpCode::row_topk || op == SelectOpCode::col_topk) && thunk.as<double>() < 0)
    throw InvalidValue("select " + std::string(select_op_name(op)) + ": k must be >= 0");
  check_elementwise_unary("select", C, M, acc, A, d);
  detail::execute(detail::select_table(), detail::SelectProblem{M, acc, op, thunk, A, d}, d.variant,
                  C, ctx, exact(C.type()));
}

void reduce(Vector& w, const Vector* m, Accum acc, MonoidCode monoid, const Matrix& A,
            ReduceDim dim, const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_a);
  Index n = dim == ReduceDim::rows ? a.rows : a.cols;
  require(w.size() == n, "reduce", "w has size " + std::to_string(w.size()) + " but reducing " +
                                       str(a) + " by " + (dim == ReduceDim::rows ? "rows" : "cols") +
                                       " gives " + std::to_string(n));
  check_mask("reduce", m, w.size());
  check_accum("reduce", acc);
  const Index terms = dim == ReduceDim::rows ? a.cols : a.rows;
  const Type at = looser(w.type(), A.type());
  Tolerance tol = tol_for(at, monoid, terms);
  std::optional<Vector> scale;
  if (auto rel = sum_cancellation_bound(ctx, monoid, at, terms)) {
    // Float sums that cancel: allow rel · Σ|A(i,:)| per entry (computed on the cpu path).
    scale.emplace(w.size(), Type::fp64);
    Descriptor sd;
    sd.transpose_a = d.transpose_a;
    cpu::reduce(*scale, nullptr, no_accum, MonoidCode::plus, abs_values(A, ctx), dim, sd, ctx);
    tol.vector_scale = &*scale;
    tol.scale_rel = *rel;
  }
  detail::execute(detail::reduce_table(), detail::ReduceProblem{m, acc, monoid, A, dim, d},
                  d.variant, w, ctx, tol);
}

/// Scalar reductions take no descriptor: the table decides with the variant `automatic`.
template <class In>
static Scalar reduce_scalar(MonoidCode monoid, const In& x, Context& ctx, Index terms) {
  Scalar out;
  Tolerance tol = tol_for(x.type(), monoid, terms);
  if (auto rel = sum_cancellation_bound(ctx, monoid, x.type(), terms)) {
    const In h = x.location() == Location::host ? x : x.to(Location::host, ctx);
    const std::vector<double> v = h.cast(Type::fp64).template values_vector<double>();
    double sum_abs = 0.0;
    for (double e : v) sum_abs += std::fabs(e);
    tol.scalar_scale = sum_abs;
    tol.scale_rel = *rel;
  }
  detail::execute(detail::reduce_scalar_table(&x), detail::ReduceScalarProblem<In>{monoid, x},
                  Variant::automatic, out, ctx, tol);
  return out;
}

Scalar reduce(MonoidCode monoid, const Matrix& A, Context& ctx) {
  return reduce_scalar(monoid, A, ctx, A.nnz());
}
Scalar reduce(MonoidCode monoid, const Vector& u, Context& ctx) {
  return reduce_scalar(monoid, u, ctx, u.nnz());
}

void transpose(Matrix& C, const Matrix* M, Accum acc, const Matrix& A, const Descriptor& d,
               Context& ctx) {
  Dims t = dims(A, !d.transpose_a);
  require(dims(C) == t, "transpose", "C is " + str(dims(C)) + " but the result is " + str(t));
  check_mask("transpose", M, dims(C));
  check_accum("transpose", acc);
  detail::execute(detail::transpose_table(), detail::TransposeProblem{M, acc, A, d}, d.variant, C,
                  ctx, exact(C.type()));
}

void extract(Matrix& C, const Matrix* M, Accum acc, const Matrix& A, const Indices& rows,
             const Indices& cols, const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_a);
  check_indices("extract", rows, a.rows, "row");
  check_indices("extract", cols, a.cols, "column");
  Dims t{rows.count(a.rows), cols.count(a.cols)};
  require(dims(C) == t, "extract", "C is " + str(dims(C)) + " but A(rows, cols) is " + str(t));
  check_mask("extract", M, dims(C));
  check_accum("extract", acc);
  detail::execute(detail::extract_table(), detail::IndexedProblem{M, acc, A, rows, cols, d},
                  d.variant, C, ctx, exact(C.type()));
}

void assign(Matrix& C, const Matrix* M, Accum acc, const Matrix& A, const Indices& rows,
            const Indices& cols, const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_a);
  check_indices("assign", rows, C.nrows(), "row");
  check_indices("assign", cols, C.ncols(), "column");
  Dims t{rows.count(C.nrows()), cols.count(C.ncols())};
  require(a == t, "assign", "A is " + str(a) + " but C(rows, cols) is " + str(t));
  check_mask("assign", M, dims(C));
  check_accum("assign", acc);
  detail::execute(detail::assign_table(), detail::IndexedProblem{M, acc, A, rows, cols, d},
                  d.variant, C, ctx, exact(C.type()));
}

void assign(Vector& w, const Vector* m, Accum acc, const Scalar& s, const Descriptor& d,
            Context& ctx) {
  check_mask("assign (scalar)", m, w.size());
  check_accum("assign (scalar)", acc);
  detail::execute(detail::assign_scalar_table(), detail::AssignScalarProblem{m, acc, s, d},
                  d.variant, w, ctx, exact(w.type()));
}

void kronecker(Matrix& C, const Matrix* M, Accum acc, BinaryOpCode op, const Matrix& A,
               const Matrix& B, const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_a), b = dims(B, d.transpose_b);
  Dims t{a.rows * b.rows, a.cols * b.cols};
  require(dims(C) == t, "kronecker", "C is " + str(dims(C)) + " but kron(A, B) is " + str(t));
  check_mask("kronecker", M, dims(C));
  check_accum("kronecker", acc);
  detail::execute(detail::kronecker_table(), detail::EwiseProblem<Matrix>{M, acc, op, A, B, d},
                  d.variant, C, ctx, exact(C.type()));
}

}  // namespace ringblas
