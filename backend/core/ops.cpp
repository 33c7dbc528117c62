// Public operations: validate dimensions and indices, then hand over to the executor chosen by
// backend/core/dispatch.hpp (cpu executor on host copies of the inputs, or the cuda executor).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "backend/core/dense_batch.hpp"
#include "backend/core/dispatch.hpp"
#include "backend/cpu/cpu_backend.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "ringblas/ops.hpp"

namespace ringblas {
namespace {

using detail::HostInputs;
using detail::Tolerance;

struct Dims {
  Index rows, cols;
  bool operator==(const Dims&) const = default;
};
std::string str(Dims d) { return std::to_string(d.rows) + "x" + std::to_string(d.cols); }
Dims dims(const Matrix& a, bool transposed = false) {
  return transposed ? Dims{a.ncols(), a.nrows()} : Dims{a.nrows(), a.ncols()};
}

void require(bool ok, const char* op, const std::string& what) {
  if (!ok) throw DimensionMismatch(std::string(op) + ": " + what);
}
void check_mask(const char* op, const Matrix* m, Dims c) {
  if (m) require(dims(*m) == c, op, "mask is " + str(dims(*m)) + " but C is " + str(c));
}
void check_mask(const char* op, const Vector* m, Index n) {
  if (m)
    require(m->size() == n, op,
            "mask has size " + std::to_string(m->size()) + " but w has " + std::to_string(n));
}
void check_indices(const char* op, const Indices& ix, Index n, const char* what) {
  if (ix.all_) return;
  for (std::size_t k = 0; k < ix.list.size(); ++k)
    if (ix.list[k] < 0 || ix.list[k] >= n)
      throw InvalidIndex(std::string(op) + ": " + what + " index " + std::to_string(ix.list[k]) +
                         " (position " + std::to_string(k) + ") out of range 0.." +
                         std::to_string(n - 1));
}
/// Float sums may differ by summation order; scale the tolerance by the inner dimension.
Tolerance tol_for(Type t, MonoidCode add, Index terms) {
  Tolerance tol = Tolerance::for_type(t, double(terms));
  tol.values_any = add == MonoidCode::any;
  return tol;
}
Tolerance exact(Type t) { return Tolerance::for_type(t); }

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
  require(a.cols == b.rows, "mxm", "inner dimensions differ: A is " + str(a) + ", B is " + str(b));
  require(dims(C) == Dims{a.rows, b.cols}, "mxm",
          "C is " + str(dims(C)) + " but A*B is " + str({a.rows, b.cols}));
  check_mask("mxm", M, dims(C));
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
  detail::execute<Matrix>(
      "mxm", ctx, d, C,
      [&](Matrix& c, Context& x) {
        HostInputs h(x);
        cpu::mxm(c, h(M), acc, s, h(A), h(B), d, x);
      },
      [&](Matrix& c, Context& x) { cuda::mxm(c, M, acc, s, A, B, d, x); }, tol);
}

void mxv(Vector& w, const Vector* m, Accum acc, const Semiring& s, const Matrix& A, const Vector& u,
         const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_a);
  require(a.cols == u.size(), "mxv", "A is " + str(a) + " but u has size " + std::to_string(u.size()));
  require(w.size() == a.rows, "mxv", "w has size " + std::to_string(w.size()) + " but A is " + str(a));
  check_mask("mxv", m, w.size());
  detail::execute<Vector>(
      "mxv", ctx, d, w,
      [&](Vector& o, Context& x) {
        HostInputs h(x);
        cpu::mxv(o, h(m), acc, s, h(A), h(u), d, x);
      },
      [&](Vector& o, Context& x) { cuda::mxv(o, m, acc, s, A, u, d, x); },
      tol_for(w.type(), s.add, a.cols));
}

void vxm(Vector& w, const Vector* m, Accum acc, const Semiring& s, const Vector& u, const Matrix& A,
         const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_b);
  require(a.rows == u.size(), "vxm", "u has size " + std::to_string(u.size()) + " but A is " + str(a));
  require(w.size() == a.cols, "vxm", "w has size " + std::to_string(w.size()) + " but A is " + str(a));
  check_mask("vxm", m, w.size());
  detail::execute<Vector>(
      "vxm", ctx, d, w,
      [&](Vector& o, Context& x) {
        HostInputs h(x);
        cpu::vxm(o, h(m), acc, s, h(u), h(A), d, x);
      },
      [&](Vector& o, Context& x) { cuda::vxm(o, m, acc, s, u, A, d, x); },
      tol_for(w.type(), s.add, a.rows));
}

void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const DenseMatrix& B,
         const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_a);
  Dims b = d.transpose_b ? Dims{B.ncols(), B.nrows()} : Dims{B.nrows(), B.ncols()};
  require(a.cols == b.rows, "mxm (dense)", "A is " + str(a) + " but B is " + str(b));
  require(C.nrows() == a.rows && C.ncols() == b.cols, "mxm (dense)",
          "C is " + str({C.nrows(), C.ncols()}) + " but A*B is " + str({a.rows, b.cols}));
  if (d.replace || d.mask_complement || d.mask_structure)
    throw NotImplemented("mxm (dense): a dense output takes no mask, so replace and mask flags do not apply");
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
  detail::execute<DenseMatrix>(
      "mxm (dense)", ctx, d, C,
      [&](DenseMatrix& c, Context& x) {
        HostInputs h(x);
        cpu::mxm(c, s, h(A), h(B), d, x);
      },
      [&](DenseMatrix& c, Context& x) { cuda::mxm(c, s, A, B, d, x); }, tol);
}

void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const DenseMatrix& B,
         const Epilogue& ep, const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_a);
  require(a.cols == B.nrows(), "mxm (dense, epilogue)",
          "A is " + str(a) + " but B is " + str({B.nrows(), B.ncols()}));
  require(C.nrows() == a.rows && C.ncols() == B.ncols(), "mxm (dense, epilogue)",
          "C is " + str({C.nrows(), C.ncols()}) + " but A*B is " + str({a.rows, B.ncols()}));
  if (ep.has_bias() && !ep.bias)
    throw InvalidValue("mxm (dense, epilogue): a bias epilogue needs a bias vector");
  if (ep.has_bias() && ep.bias->size() != C.ncols())
    throw InvalidValue("mxm (dense, epilogue): the bias has size " + std::to_string(ep.bias->size()) +
                       " but C has " + std::to_string(C.ncols()) + " columns");
  if (d.transpose_b || d.replace || d.mask_complement || d.mask_structure)
    throw NotImplemented("mxm (dense, epilogue): transpose_b, masks and replace are not supported with a dense B");
  detail::execute<DenseMatrix>(
      "mxm (dense, epilogue)", ctx, d, C,
      [&](DenseMatrix& c, Context& x) {
        HostInputs h(x);
        cpu::mxm(c, s, h(A), h(B), ep, d, x);
      },
      [&](DenseMatrix& c, Context& x) { cuda::mxm(c, s, A, B, ep, d, x); },
      tol_for(C.type(), s.add, a.cols));
}

void mxm_batched(std::vector<DenseMatrix>& C, const Semiring& s, const std::vector<Matrix>& A,
                 const std::vector<DenseMatrix>& B, const Descriptor& d, Context& ctx) {
  require(C.size() == A.size() && B.size() == A.size(), "mxm_batched",
          "batch sizes differ: C has " + std::to_string(C.size()) + ", A " +
              std::to_string(A.size()) + ", B " + std::to_string(B.size()) + " items");
  if (d.transpose_b || d.replace || d.mask_complement || d.mask_structure)
    throw NotImplemented("mxm_batched: transpose_b, masks and replace are not supported with a dense B");
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
    detail::execute<detail::DenseBatch>(
        "mxm_batched", ctx, d, out,
        [&](detail::DenseBatch& c, Context& x) {
          std::vector<Matrix> host_a;
          std::vector<DenseMatrix> host_b;
          const bool a_host = std::all_of(A.begin(), A.end(), [](const Matrix& m) { return m.location() == Location::host; });
          const bool b_host = std::all_of(B.begin(), B.end(), [](const DenseMatrix& m) { return m.location() == Location::host; });
          if (!a_host)
            for (const auto& m : A) host_a.push_back(m.location() == Location::host ? m : m.to(Location::host, x));
          if (!b_host)
            for (const auto& m : B) host_b.push_back(m.location() == Location::host ? m : m.to(Location::host, x));
          cpu::mxm_batched(c.items, s, a_host ? A : host_a, b_host ? B : host_b, d, x);
        },
        [&](detail::DenseBatch& c, Context& x) { cuda::mxm_batched(c.items, s, A, B, d, x); },
        tol_for(out.items.empty() ? s.type : out.items[0].type(), s.add, inner));
  } catch (...) {
    C = std::move(out.items);
    throw;
  }
  C = std::move(out.items);
}

#define RINGBLAS_EWISE(NAME)                                                                     \
  void NAME(Matrix& C, const Matrix* M, Accum acc, BinaryOpCode op, const Matrix& A,             \
            const Matrix& B, const Descriptor& d, Context& ctx) {                                \
    Dims a = dims(A, d.transpose_a), b = dims(B, d.transpose_b);                                 \
    require(a == b && dims(C) == a, #NAME,                                                       \
            "A is " + str(a) + ", B is " + str(b) + ", C is " + str(dims(C)));                   \
    check_mask(#NAME, M, dims(C));                                                               \
    detail::execute<Matrix>(                                                                     \
        #NAME, ctx, d, C,                                                                        \
        [&](Matrix& c, Context& x) {                                                             \
          HostInputs h(x);                                                                       \
          cpu::NAME(c, h(M), acc, op, h(A), h(B), d, x);                                         \
        },                                                                                       \
        [&](Matrix& c, Context& x) { cuda::NAME(c, M, acc, op, A, B, d, x); }, exact(C.type())); \
  }                                                                                              \
  void NAME(Vector& w, const Vector* m, Accum acc, BinaryOpCode op, const Vector& u,             \
            const Vector& v, const Descriptor& d, Context& ctx) {                                \
    require(u.size() == v.size() && w.size() == u.size(), #NAME,                                 \
            "sizes " + std::to_string(u.size()) + ", " + std::to_string(v.size()) + ", w " +     \
                std::to_string(w.size()));                                                       \
    check_mask(#NAME, m, w.size());                                                              \
    detail::execute<Vector>(                                                                     \
        #NAME, ctx, d, w,                                                                        \
        [&](Vector& o, Context& x) {                                                             \
          HostInputs h(x);                                                                       \
          cpu::NAME(o, h(m), acc, op, h(u), h(v), d, x);                                         \
        },                                                                                       \
        [&](Vector& o, Context& x) { cuda::NAME(o, m, acc, op, u, v, d, x); }, exact(w.type())); \
  }
RINGBLAS_EWISE(ewise_add)
RINGBLAS_EWISE(ewise_mult)
#undef RINGBLAS_EWISE

/// Shared checks and dispatch of the matrix operations whose T has A's shape (apply, select).
template <class CpuFn, class CudaFn>
static void elementwise_unary(const char* op, Matrix& C, const Matrix* M, const Matrix& A,
                              const Descriptor& d, Context& ctx, CpuFn cpu_fn, CudaFn cuda_fn) {
  Dims a = dims(A, d.transpose_a);
  require(dims(C) == a, op, "C is " + str(dims(C)) + " but A is " + str(a));
  check_mask(op, M, dims(C));
  detail::execute<Matrix>(op, ctx, d, C, cpu_fn, cuda_fn, exact(C.type()));
}

void apply(Matrix& C, const Matrix* M, Accum acc, UnaryOpCode op, const Matrix& A,
           const Descriptor& d, Context& ctx) {
  elementwise_unary(
      "apply", C, M, A, d, ctx,
      [&](Matrix& c, Context& x) {
        HostInputs h(x);
        cpu::apply(c, h(M), acc, op, h(A), d, x);
      },
      [&](Matrix& c, Context& x) { cuda::apply(c, M, acc, op, A, d, x); });
}

void apply(Vector& w, const Vector* m, Accum acc, UnaryOpCode op, const Vector& u,
           const Descriptor& d, Context& ctx) {
  require(w.size() == u.size(), "apply", "w has size " + std::to_string(w.size()) + ", u " +
                                             std::to_string(u.size()));
  check_mask("apply", m, w.size());
  detail::execute<Vector>(
      "apply", ctx, d, w,
      [&](Vector& o, Context& x) {
        HostInputs h(x);
        cpu::apply(o, h(m), acc, op, h(u), d, x);
      },
      [&](Vector& o, Context& x) { cuda::apply(o, m, acc, op, u, d, x); }, exact(w.type()));
}

void apply(Matrix& C, const Matrix* M, Accum acc, BinaryOpCode op, BindSide side, const Scalar& s,
           const Matrix& A, const Descriptor& d, Context& ctx) {
  elementwise_unary(
      "apply", C, M, A, d, ctx,
      [&](Matrix& c, Context& x) {
        HostInputs h(x);
        cpu::apply(c, h(M), acc, op, side, s, h(A), d, x);
      },
      [&](Matrix& c, Context& x) { cuda::apply(c, M, acc, op, side, s, A, d, x); });
}

void apply(Matrix& C, const Matrix* M, Accum acc, IndexUnaryOpCode op, Index thunk,
           const Matrix& A, const Descriptor& d, Context& ctx) {
  elementwise_unary(
      "apply", C, M, A, d, ctx,
      [&](Matrix& c, Context& x) {
        HostInputs h(x);
        cpu::apply(c, h(M), acc, op, thunk, h(A), d, x);
      },
      [&](Matrix& c, Context& x) { cuda::apply(c, M, acc, op, thunk, A, d, x); });
}

void select(Matrix& C, const Matrix* M, Accum acc, SelectOpCode op, const Scalar& thunk,
            const Matrix& A, const Descriptor& d, Context& ctx) {
  if ((op == SelectOpCode::row_topk || op == SelectOpCode::col_topk) && thunk.as<double>() < 0)
    throw InvalidValue("select " + std::string(select_op_name(op)) + ": k must be >= 0");
  elementwise_unary(
      "select", C, M, A, d, ctx,
      [&](Matrix& c, Context& x) {
        HostInputs h(x);
        cpu::select(c, h(M), acc, op, thunk, h(A), d, x);
      },
      [&](Matrix& c, Context& x) { cuda::select(c, M, acc, op, thunk, A, d, x); });
}

void reduce(Vector& w, const Vector* m, Accum acc, MonoidCode monoid, const Matrix& A,
            ReduceDim dim, const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_a);
  Index n = dim == ReduceDim::rows ? a.rows : a.cols;
  require(w.size() == n, "reduce", "w has size " + std::to_string(w.size()) + " but reducing " +
                                       str(a) + " by " + (dim == ReduceDim::rows ? "rows" : "cols") +
                                       " gives " + std::to_string(n));
  check_mask("reduce", m, w.size());
  detail::execute<Vector>(
      "reduce", ctx, d, w,
      [&](Vector& o, Context& x) {
        HostInputs h(x);
        cpu::reduce(o, h(m), acc, monoid, h(A), dim, d, x);
      },
      [&](Vector& o, Context& x) { cuda::reduce(o, m, acc, monoid, A, dim, d, x); },
      tol_for(w.type(), monoid, dim == ReduceDim::rows ? a.cols : a.rows));
}

/// Scalar reductions have no output container: dispatch inline.
template <class In>
static Scalar reduce_scalar(MonoidCode monoid, const In& x, Context& ctx, Index terms) {
  auto on_cpu = [&] {
    ctx.trace_line("reduce: cpu (suitesparse)");
    HostInputs h(ctx);
    return cpu::reduce(monoid, h(x), ctx);
  };
  switch (ctx.backend) {
    case Backend::cpu: return on_cpu();
    case Backend::cuda: return cuda::reduce(monoid, x, ctx);
    case Backend::automatic:
      if (!cuda_available()) return on_cpu();
      try {
        return cuda::reduce(monoid, x, ctx);
      } catch (const NotImplemented& e) {
        ctx.trace_line(std::string("reduce: ") + e.what() + "; falling back to cpu");
        return on_cpu();
      }
    case Backend::verify: {
      Scalar want = on_cpu(), got = cuda::reduce(monoid, x, ctx);
      if (auto diff = detail::compare(got, want, tol_for(x.type(), monoid, terms)))
        throw VerificationFailed("reduce: cuda and cpu differ: " + *diff + " (cuda vs cpu)");
      return got;
    }
  }
  return on_cpu();
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
  detail::execute<Matrix>(
      "transpose", ctx, d, C,
      [&](Matrix& c, Context& x) {
        HostInputs h(x);
        cpu::transpose(c, h(M), acc, h(A), d, x);
      },
      [&](Matrix& c, Context& x) { cuda::transpose(c, M, acc, A, d, x); }, exact(C.type()));
}

void extract(Matrix& C, const Matrix* M, Accum acc, const Matrix& A, const Indices& rows,
             const Indices& cols, const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_a);
  check_indices("extract", rows, a.rows, "row");
  check_indices("extract", cols, a.cols, "column");
  Dims t{rows.count(a.rows), cols.count(a.cols)};
  require(dims(C) == t, "extract", "C is " + str(dims(C)) + " but A(rows, cols) is " + str(t));
  check_mask("extract", M, dims(C));
  detail::execute<Matrix>(
      "extract", ctx, d, C,
      [&](Matrix& c, Context& x) {
        HostInputs h(x);
        cpu::extract(c, h(M), acc, h(A), rows, cols, d, x);
      },
      [&](Matrix& c, Context& x) { cuda::extract(c, M, acc, A, rows, cols, d, x); },
      exact(C.type()));
}

void assign(Matrix& C, const Matrix* M, Accum acc, const Matrix& A, const Indices& rows,
            const Indices& cols, const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_a);
  check_indices("assign", rows, C.nrows(), "row");
  check_indices("assign", cols, C.ncols(), "column");
  Dims t{rows.count(C.nrows()), cols.count(C.ncols())};
  require(a == t, "assign", "A is " + str(a) + " but C(rows, cols) is " + str(t));
  check_mask("assign", M, dims(C));
  detail::execute<Matrix>(
      "assign", ctx, d, C,
      [&](Matrix& c, Context& x) {
        HostInputs h(x);
        cpu::assign(c, h(M), acc, h(A), rows, cols, d, x);
      },
      [&](Matrix& c, Context& x) { cuda::assign(c, M, acc, A, rows, cols, d, x); },
      exact(C.type()));
}

void kronecker(Matrix& C, const Matrix* M, Accum acc, BinaryOpCode op, const Matrix& A,
               const Matrix& B, const Descriptor& d, Context& ctx) {
  Dims a = dims(A, d.transpose_a), b = dims(B, d.transpose_b);
  Dims t{a.rows * b.rows, a.cols * b.cols};
  require(dims(C) == t, "kronecker", "C is " + str(dims(C)) + " but kron(A, B) is " + str(t));
  check_mask("kronecker", M, dims(C));
  detail::execute<Matrix>(
      "kronecker", ctx, d, C,
      [&](Matrix& c, Context& x) {
        HostInputs h(x);
        cpu::kronecker(c, h(M), acc, op, h(A), h(B), d, x);
      },
      [&](Matrix& c, Context& x) { cuda::kronecker(c, M, acc, op, A, B, d, x); },
      exact(C.type()));
}

namespace detail {
bool is_cuda_variant(Variant v) { return v != Variant::automatic && v != Variant::suitesparse; }
}  // namespace detail

}  // namespace ringblas
