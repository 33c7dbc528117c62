// The rows of the dispatch tables of ewise_add, ewise_mult, apply, select, reduce, transpose,
// extract, assign (also of a scalar to a vector) and kronecker: one cuda row each (the elementwise,
// reduce and index_ops families; matrix apply and select also the forced-only row_filter),
// answered by cuda::can_implement_<op> (backend/cuda/kernel_support.def), and the cpu
// (suitesparse) row.
#include "backend/core/dispatch/dispatch_rows.hpp"
#include "backend/cpu/cpu_backend.hpp"
#include "backend/cuda/cuda_backend.hpp"

namespace ringblas::detail {

using namespace rows;

/// ewise_add / ewise_mult, matrix and vector.
#define RINGBLAS_EWISE_TABLE(NAME, X, VARIANT)                                             \
  const Table<EwiseProblem<X>, X>& NAME##_table(const X*) {                                \
    using P = EwiseProblem<X>;                                                             \
    static const Table<P, X> t{                                                            \
        #NAME,                                                                             \
        {                                                                                  \
            {VARIANT, kCuda,                                                               \
             [](const P& p, const X& c) {                                                  \
               return cuda::can_implement_##NAME(c, p.mask, p.accum, p.op, p.A, p.B, p.d); \
             },                                                                            \
             [](const P& p, X& c, Context& x) {                                            \
               cuda::NAME(c, p.mask, p.accum, p.op, p.A, p.B, chosen(p.d), x);             \
             }},                                                                           \
            {Variant::suitesparse, kCpu, always<P, X>,                                     \
             [](const P& p, X& c, Context& x) {                                            \
               HostInputs h(x);                                                            \
               cpu::NAME(c, h(p.mask), p.accum, p.op, h(p.A), h(p.B), p.d, x);             \
             }},                                                                           \
        }};                                                                                \
    return t;                                                                              \
  }
RINGBLAS_EWISE_TABLE(ewise_add, Matrix, Variant::elementwise)
RINGBLAS_EWISE_TABLE(ewise_add, Vector, Variant::elementwise)
RINGBLAS_EWISE_TABLE(ewise_mult, Matrix, Variant::elementwise)
RINGBLAS_EWISE_TABLE(ewise_mult, Vector, Variant::elementwise)
#undef RINGBLAS_EWISE_TABLE

const Table<EwiseProblem<Matrix>, Matrix>& kronecker_table() {
  using P = EwiseProblem<Matrix>;
  static const Table<P, Matrix> t{
      "kronecker",
      {
          {Variant::elementwise, kCuda,
           [](const P& p, const Matrix& c) {
             return cuda::can_implement_kronecker(c, p.mask, p.accum, p.op, p.A, p.B, p.d);
           },
           [](const P& p, Matrix& c, Context& x) {
             cuda::kronecker(c, p.mask, p.accum, p.op, p.A, p.B, chosen(p.d), x);
           }},
          {Variant::suitesparse, kCpu, always<P, Matrix>,
           [](const P& p, Matrix& c, Context& x) {
             HostInputs h(x);
             cpu::kronecker(c, h(p.mask), p.accum, p.op, h(p.A), h(p.B), p.d, x);
           }},
      }};
  return t;
}

namespace {

/// The row_filter rows (elementwise/row_filter.cu: count, scan, fill by rows, no full-size
/// intermediates). Measured against `elementwise` on an H100 (session 8,
/// tests/bench/results/ew_rowfilter_h100.md, n = 1M, mean row length d): apply masked by A itself
/// 1.09 against 3.42 ms at d = 96 and 0.30 against 1.01 ms at d = 10, so apply prefers it
/// whenever it can run; select by value 0.93 against 1.15 ms at d = 96 but 0.31 against 0.26 ms
/// at d = 10 (the per-row count and scan cost more than they save on short rows), so select
/// prefers it from a mean row length of 32 (the crossover lies between 10 and 96, not measured
/// closer).
constexpr double kPreferred = -1.0;
template <class P>
Entry<P, Matrix> apply_row_filter_row(void (*run)(const P&, Matrix&, Context&)) {
  return {Variant::row_filter, kCuda,
          [](const P& p, const Matrix& c) {
            return cuda::can_implement_apply_row_filter(c, p.mask, p.A, p.d);
          },
          run, [](const P&, const Matrix&) { return kPreferred; }};
}
double select_row_filter_cost(const SelectProblem& p, const Matrix&) {
  const Index rows = p.A.nrows() > 0 ? p.A.nrows() : 1;
  return p.A.nnz() >= 32 * rows ? kPreferred : 1.0;
}
Descriptor row_filter(const Descriptor& d) { return with_variant(d, Variant::row_filter); }
void apply_unary_row_filter(const ApplyProblem<Matrix>& p, Matrix& c, Context& x) {
  cuda::apply(c, p.mask, p.accum, p.op, p.A, row_filter(p.d), x);
}

}  // namespace

/// apply (unary), matrix and vector; the arguments after X: further cuda rows (matrices), after
/// the cpu row (rows are ranked by executor and cost, not by place).
#define RINGBLAS_APPLY_TABLE(NAME, X, ...)                                                         \
  const Table<ApplyProblem<X>, X>& NAME() {                                                        \
    using P = ApplyProblem<X>;                                                                     \
    static const Table<P, X> t{"apply",                                                            \
                               {{Variant::elementwise, kCuda,                                      \
                                 [](const P& p, const X& c) {                                      \
                                   return cuda::can_implement_apply(c, p.mask, p.accum, p.op, p.A, \
                                                                    p.d);                          \
                                 },                                                                \
                                 [](const P& p, X& c, Context& x) {                                \
                                   cuda::apply(c, p.mask, p.accum, p.op, p.A, chosen(p.d), x);     \
                                 }},                                                               \
                                {Variant::suitesparse, kCpu, always<P, X>,                         \
                                 [](const P& p, X& c, Context& x) {                                \
                                   HostInputs h(x);                                                \
                                   cpu::apply(c, h(p.mask), p.accum, p.op, h(p.A), p.d, x);        \
                                 }},                                                               \
                                __VA_ARGS__}};                                                     \
    return t;                                                                                      \
  }
RINGBLAS_APPLY_TABLE(apply_table, Matrix, apply_row_filter_row<P>(apply_unary_row_filter))
RINGBLAS_APPLY_TABLE(apply_vector_table, Vector)
#undef RINGBLAS_APPLY_TABLE

const Table<ApplyBoundProblem, Matrix>& apply_bound_table() {
  using P = ApplyBoundProblem;
  static const Table<P, Matrix> t{
      "apply",
      {
          {Variant::elementwise, kCuda,
           [](const P& p, const Matrix& c) {
             return cuda::can_implement_apply(c, p.mask, p.accum, p.op, p.side, p.scalar, p.A, p.d);
           },
           [](const P& p, Matrix& c, Context& x) {
             cuda::apply(c, p.mask, p.accum, p.op, p.side, p.scalar, p.A, chosen(p.d), x);
           }},
          apply_row_filter_row<P>([](const P& p, Matrix& c, Context& x) {
            cuda::apply(c, p.mask, p.accum, p.op, p.side, p.scalar, p.A, row_filter(p.d), x);
          }),
          {Variant::suitesparse, kCpu, always<P, Matrix>,
           [](const P& p, Matrix& c, Context& x) {
             HostInputs h(x);
             cpu::apply(c, h(p.mask), p.accum, p.op, p.side, p.scalar, h(p.A), p.d, x);
           }},
      }};
  return t;
}

const Table<ApplyIndexProblem, Matrix>& apply_index_table() {
  using P = ApplyIndexProblem;
  static const Table<P, Matrix> t{
      "apply",
      {
          {Variant::elementwise, kCuda,
           [](const P& p, const Matrix& c) {
             return cuda::can_implement_apply(c, p.mask, p.accum, p.op, p.thunk, p.A, p.d);
           },
           [](const P& p, Matrix& c, Context& x) {
             cuda::apply(c, p.mask, p.accum, p.op, p.thunk, p.A, chosen(p.d), x);
           }},
          apply_row_filter_row<P>([](const P& p, Matrix& c, Context& x) {
            cuda::apply(c, p.mask, p.accum, p.op, p.thunk, p.A, row_filter(p.d), x);
          }),
          {Variant::suitesparse, kCpu, always<P, Matrix>,
           [](const P& p, Matrix& c, Context& x) {
             HostInputs h(x);
             cpu::apply(c, h(p.mask), p.accum, p.op, p.thunk, h(p.A), p.d, x);
           }},
      }};
  return t;
}

const Table<SelectProblem, Matrix>& select_table() {
  using P = SelectProblem;
  static const Table<P, Matrix> t{
      "select",
      {
          {Variant::elementwise, kCuda,
           [](const P& p, const Matrix& c) {
             return cuda::can_implement_select(c, p.mask, p.accum, p.op, p.thunk, p.A, p.d);
           },
           [](const P& p, Matrix& c, Context& x) {
             cuda::select(c, p.mask, p.accum, p.op, p.thunk, p.A, chosen(p.d), x);
           }},
          {Variant::row_filter, kCuda,
           [](const P& p, const Matrix& c) {
             return cuda::can_implement_select_row_filter(c, p.op);
           },
           [](const P& p, Matrix& c, Context& x) {
             cuda::select(c, p.mask, p.accum, p.op, p.thunk, p.A, row_filter(p.d), x);
           },
           select_row_filter_cost},
          {Variant::suitesparse, kCpu, always<P, Matrix>,
           [](const P& p, Matrix& c, Context& x) {
             HostInputs h(x);
             cpu::select(c, h(p.mask), p.accum, p.op, p.thunk, h(p.A), p.d, x);
           }},
      }};
  return t;
}

const Table<ReduceProblem, Vector>& reduce_table() {
  using P = ReduceProblem;
  static const Table<P, Vector> t{
      "reduce",
      {
          {Variant::reduce, kCuda,
           [](const P& p, const Vector& w) {
             return cuda::can_implement_reduce(w, p.mask, p.accum, p.monoid, p.A, p.dim, p.d);
           },
           [](const P& p, Vector& w, Context& x) {
             cuda::reduce(w, p.mask, p.accum, p.monoid, p.A, p.dim, chosen(p.d), x);
           }},
          {Variant::suitesparse, kCpu, always<P, Vector>,
           [](const P& p, Vector& w, Context& x) {
             HostInputs h(x);
             cpu::reduce(w, h(p.mask), p.accum, p.monoid, h(p.A), p.dim, p.d, x);
           }},
      }};
  return t;
}

#define RINGBLAS_REDUCE_SCALAR_TABLE(X)                                                           \
  const Table<ReduceScalarProblem<X>, Scalar>& reduce_scalar_table(const X*) {                    \
    using P = ReduceScalarProblem<X>;                                                             \
    static const Table<P, Scalar> t{                                                              \
        "reduce (scalar)",                                                                        \
        {                                                                                         \
            {Variant::reduce, kCuda,                                                              \
             [](const P& p, const Scalar&) { return cuda::can_implement_reduce(p.monoid, p.A); }, \
             [](const P& p, Scalar& s, Context& x) { s = cuda::reduce(p.monoid, p.A, x); }},      \
            {Variant::suitesparse, kCpu, always<P, Scalar>,                                       \
             [](const P& p, Scalar& s, Context& x) {                                              \
               HostInputs h(x);                                                                   \
               s = cpu::reduce(p.monoid, h(p.A), x);                                              \
             }},                                                                                  \
        }};                                                                                       \
    return t;                                                                                     \
  }
RINGBLAS_REDUCE_SCALAR_TABLE(Matrix)
RINGBLAS_REDUCE_SCALAR_TABLE(Vector)
#undef RINGBLAS_REDUCE_SCALAR_TABLE

const Table<TransposeProblem, Matrix>& transpose_table() {
  using P = TransposeProblem;
  static const Table<P, Matrix> t{"transpose",
                                  {
                                      {Variant::transpose, kCuda,
                                       [](const P& p, const Matrix& c) {
                                         return cuda::can_implement_transpose(c, p.mask, p.accum,
                                                                              p.A, p.d);
                                       },
                                       [](const P& p, Matrix& c, Context& x) {
                                         cuda::transpose(c, p.mask, p.accum, p.A, chosen(p.d), x);
                                       }},
                                      {Variant::suitesparse, kCpu, always<P, Matrix>,
                                       [](const P& p, Matrix& c, Context& x) {
                                         HostInputs h(x);
                                         cpu::transpose(c, h(p.mask), p.accum, h(p.A), p.d, x);
                                       }},
                                  }};
  return t;
}

#define RINGBLAS_INDEXED_TABLE(NAME)                                                            \
  const Table<IndexedProblem, Matrix>& NAME##_table() {                                         \
    using P = IndexedProblem;                                                                   \
    static const Table<P, Matrix> t{                                                            \
        #NAME,                                                                                  \
        {                                                                                       \
            {Variant::NAME, kCuda,                                                              \
             [](const P& p, const Matrix& c) {                                                  \
               return cuda::can_implement_##NAME(c, p.mask, p.accum, p.A, p.rows, p.cols, p.d); \
             },                                                                                 \
             [](const P& p, Matrix& c, Context& x) {                                            \
               cuda::NAME(c, p.mask, p.accum, p.A, p.rows, p.cols, chosen(p.d), x);             \
             }},                                                                                \
            {Variant::suitesparse, kCpu, always<P, Matrix>,                                     \
             [](const P& p, Matrix& c, Context& x) {                                            \
               HostInputs h(x);                                                                 \
               cpu::NAME(c, h(p.mask), p.accum, h(p.A), p.rows, p.cols, p.d, x);                \
             }},                                                                                \
        }};                                                                                     \
    return t;                                                                                   \
  }
RINGBLAS_INDEXED_TABLE(extract)
RINGBLAS_INDEXED_TABLE(assign)
#undef RINGBLAS_INDEXED_TABLE

/// w<m> = w accum s: the index_ops family's scatter into a full device w (in place), and the
/// cpu row for everything else.
const Table<AssignScalarProblem, Vector>& assign_scalar_table() {
  using P = AssignScalarProblem;
  static const Table<P, Vector> t{"assign (scalar)",
                                  {
                                      {Variant::assign, kCuda,
                                       [](const P& p, const Vector& w) {
                                         return cuda::can_implement_assign(w, p.mask, p.accum, p.d);
                                       },
                                       [](const P& p, Vector& w, Context& x) {
                                         cuda::assign(w, p.mask, p.accum, p.s, chosen(p.d), x);
                                       }},
                                      {Variant::suitesparse, kCpu, always<P, Vector>,
                                       [](const P& p, Vector& w, Context& x) {
                                         HostInputs h(x);
                                         cpu::assign(w, h(p.mask), p.accum, p.s, p.d, x);
                                       }},
                                  }};
  return t;
}

}  // namespace ringblas::detail
