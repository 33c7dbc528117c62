// The rows of every operation's dispatch table: which cuda variants exist, what each can run
// (its family's can_implement), in which order automatic tries them, and the cpu (suitesparse)
// row. Adding a kernel variant = one row here (and its family's can_implement).
#include "backend/core/dispatch_tables.hpp"

#include <algorithm>
#include <string_view>

#include "backend/cpu/cpu_backend.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/sparse_layer/sparse_layer.hpp"
#include "backend/cuda/spgemm_hash/spgemm_hash.hpp"
#include "backend/cuda/spmm_batched/spmm_batched.hpp"
#include "backend/cuda/spmm_subwarp/spmm_subwarp.hpp"
#include "backend/cuda/spmv/spmv.hpp"
#include "ringblas/kernels.hpp"

namespace ringblas::detail {
namespace {

constexpr Executor kCpu = Executor::cpu;
constexpr Executor kCuda = Executor::cuda;

/// desc with `v` forced: a row runs its own variant, whatever the caller's desc says.
Descriptor with_variant(const Descriptor& d, Variant v) {
  Descriptor out = d;
  out.variant = v;
  return out;
}

/// desc as the entry points of the operations added in issue 9 take it: their table row has
/// decided, and they run their one kernel for `automatic` (some reject every named variant).
Descriptor chosen(const Descriptor& d) { return with_variant(d, Variant::automatic); }

// --- mxm, sparse C -----------------------------------------------------------------------------
using MxmEntry = Entry<MxmProblem, Matrix>;

// --- mxm, dense C (with and without epilogue) ----------------------------------------------------
using DenseEntry = Entry<DenseMxmProblem, DenseMatrix>;
template <Variant V>
void run_dense_cuda(const DenseMxmProblem& p, DenseMatrix& c, Context& x) {
  const Descriptor d = with_variant(p.d, V);
  if (p.ep)
    cuda::mxm(c, p.s, p.A, p.B, *p.ep, d, x);
  else
    cuda::mxm(c, p.s, p.A, p.B, d, x);
}
template <bool Coo>
Reason can_batched_single(const DenseMxmProblem& p, const DenseMatrix& c) {
  return cuda::spmm_batched::can_implement(p.s, p.ep, p.d, {c.nrows()}, Coo);
}
std::vector<DenseEntry> dense_entries() {
  auto can_subwarp = [](const DenseMxmProblem& p, const DenseMatrix& c) {
    return cuda::spmm_subwarp::can_implement(p.s, p.A, p.B, c, p.ep, p.d);
  };
  return {
      {Variant::spmm_subwarp, kCuda, can_subwarp, run_dense_cuda<Variant::spmm_subwarp>},
      {Variant::spmm_subwarp_coo, kCuda, can_subwarp, run_dense_cuda<Variant::spmm_subwarp_coo>,
       nullptr, false},
      {Variant::spmm_batched, kCuda, can_batched_single<false>,
       run_dense_cuda<Variant::spmm_batched>, nullptr, false},
      {Variant::spmm_batched_coo, kCuda, can_batched_single<true>,
       run_dense_cuda<Variant::spmm_batched_coo>, nullptr, false},
      {Variant::sparse_layer, kCuda,
       [](const DenseMxmProblem& p, const DenseMatrix& c) -> Reason {
         std::string why = cuda::sparse_layer::can_implement(p.s, p.A, p.B, c, p.d);
         if (why.empty()) return std::nullopt;
         return why;
       },
       run_dense_cuda<Variant::sparse_layer>, nullptr, false},
      {Variant::suitesparse, kCpu,
       [](const DenseMxmProblem&, const DenseMatrix&) -> Reason { return std::nullopt; },
       [](const DenseMxmProblem& p, DenseMatrix& c, Context& x) {
         HostInputs h(x);
         if (p.ep)
           cpu::mxm(c, p.s, h(p.A), h(p.B), *p.ep, p.d, x);
         else
           cpu::mxm(c, p.s, h(p.A), h(p.B), p.d, x);
       }},
  };
}

// --- mxv / vxm -----------------------------------------------------------------------------------
using MxvEntry = Entry<MxvProblem, Vector>;
template <bool Mxv, Variant V>
void run_spmv(const MxvProblem& p, Vector& w, Context& x) {
  if constexpr (Mxv)
    cuda::mxv(w, p.mask, p.accum, p.s, p.A, p.u, with_variant(p.d, V), x);
  else
    cuda::vxm(w, p.mask, p.accum, p.s, p.u, p.A, with_variant(p.d, V), x);
}
/// The CSR whose rows are outputs is Aᵀ: mxv with transpose_a, vxm without transpose_b.
template <bool Mxv>
bool pull_transposes(const MxvProblem& p) {
  return Mxv ? p.d.transpose_a : !p.d.transpose_b;
}
template <bool Mxv>
std::vector<MxvEntry> spmv_entries() {
  auto can = [](const MxvProblem& p, const Vector&) { return cuda::spmv::can_implement(p.s, p.A); };
  return {
      {Variant::spmv_pull, kCuda, can, run_spmv<Mxv, Variant::spmv_pull>,
       [](const MxvProblem& p, const Vector&) {
         return cuda::spmv::pull_cost(p.A, p.u, pull_transposes<Mxv>(p));
       }},
      {Variant::spmv_push, kCuda, can, run_spmv<Mxv, Variant::spmv_push>,
       [](const MxvProblem& p, const Vector& w) {
         return cuda::spmv::push_cost(p.A, p.u, w.size(), pull_transposes<Mxv>(p));
       }},
      {Variant::suitesparse, kCpu,
       [](const MxvProblem&, const Vector&) -> Reason { return std::nullopt; },
       [](const MxvProblem& p, Vector& w, Context& x) {
         HostInputs h(x);
         if constexpr (Mxv)
           cpu::mxv(w, h(p.mask), p.accum, p.s, h(p.A), h(p.u), p.d, x);
         else
           cpu::vxm(w, h(p.mask), p.accum, p.s, h(p.u), h(p.A), p.d, x);
       }},
  };
}

template <class P, class Out>
Reason always(const P&, const Out&) {
  return std::nullopt;
}

}  // namespace

const Table<MxmProblem, Matrix>& mxm_table() {
  static const Table<MxmProblem, Matrix> t{
      "mxm",
      {
          MxmEntry{Variant::spgemm_hash, kCuda,
                   [](const MxmProblem& p, const Matrix& c) {
                     return cuda::spgemm_hash::can_implement(p.s, p.A, p.B, c, p.accum, p.d);
                   },
                   [](const MxmProblem& p, Matrix& c, Context& x) {
                     cuda::mxm(c, p.mask, p.accum, p.s, p.A, p.B,
                               with_variant(p.d, Variant::spgemm_hash), x);
                   }},
          MxmEntry{Variant::suitesparse, kCpu, always<MxmProblem, Matrix>,
                   [](const MxmProblem& p, Matrix& c, Context& x) {
                     HostInputs h(x);
                     cpu::mxm(c, h(p.mask), p.accum, p.s, h(p.A), h(p.B), p.d, x);
                   }},
      }};
  return t;
}

const Table<MxvProblem, Vector>& mxv_table() {
  static const Table<MxvProblem, Vector> t{"mxv", spmv_entries<true>()};
  return t;
}
const Table<MxvProblem, Vector>& vxm_table() {
  static const Table<MxvProblem, Vector> t{"vxm", spmv_entries<false>()};
  return t;
}

const Table<DenseMxmProblem, DenseMatrix>& mxm_dense_table() {
  static const Table<DenseMxmProblem, DenseMatrix> t{"mxm (dense)", dense_entries()};
  return t;
}
const Table<DenseMxmProblem, DenseMatrix>& mxm_dense_epilogue_table() {
  static const Table<DenseMxmProblem, DenseMatrix> t{"mxm (dense, epilogue)", dense_entries()};
  return t;
}

const Table<BatchedMxmProblem, DenseBatch>& mxm_batched_table() {
  using E = Entry<BatchedMxmProblem, DenseBatch>;
  static const Table<BatchedMxmProblem, DenseBatch> t{
      "mxm_batched",
      {
          E{Variant::spmm_batched, kCuda,
            [](const BatchedMxmProblem& p, const DenseBatch&) {
              return cuda::spmm_batched::can_implement(p.s, nullptr, p.d, {}, false);
            },
            [](const BatchedMxmProblem& p, DenseBatch& c, Context& x) {
              cuda::mxm_batched(c.items, p.s, p.A, p.B, with_variant(p.d, Variant::spmm_batched),
                                x);
            }},
          E{Variant::spmm_batched_coo, kCuda,
            [](const BatchedMxmProblem& p, const DenseBatch& c) {
              std::vector<Index> rows;
              rows.reserve(c.items.size());
              for (const DenseMatrix& m : c.items) rows.push_back(m.nrows());
              return cuda::spmm_batched::can_implement(p.s, nullptr, p.d, rows, true);
            },
            [](const BatchedMxmProblem& p, DenseBatch& c, Context& x) {
              cuda::mxm_batched(c.items, p.s, p.A, p.B,
                                with_variant(p.d, Variant::spmm_batched_coo), x);
            },
            nullptr, false},
          E{Variant::suitesparse, kCpu, always<BatchedMxmProblem, DenseBatch>,
            [](const BatchedMxmProblem& p, DenseBatch& c, Context& x) {
              auto on_host = [](const auto& m) { return m.location() == Location::host; };
              const bool a_host = std::all_of(p.A.begin(), p.A.end(), on_host);
              const bool b_host = std::all_of(p.B.begin(), p.B.end(), on_host);
              std::vector<Matrix> host_a;
              std::vector<DenseMatrix> host_b;
              if (!a_host)
                for (const auto& m : p.A)
                  host_a.push_back(on_host(m) ? m : m.to(Location::host, x));
              if (!b_host)
                for (const auto& m : p.B)
                  host_b.push_back(on_host(m) ? m : m.to(Location::host, x));
              cpu::mxm_batched(c.items, p.s, a_host ? p.A : host_a, b_host ? p.B : host_b, p.d, x);
            }},
      }};
  return t;
}

// The operations whose cuda kernels are being written (issue 9): one row each, answered by
// cuda::can_implement_<op> (backend/cuda/not_implemented.cpp until the kernel lands).
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

/// apply (unary), matrix and vector.
#define RINGBLAS_APPLY_TABLE(NAME, X)                                                             \
  const Table<ApplyProblem<X>, X>& NAME() {                                                       \
    using P = ApplyProblem<X>;                                                                    \
    static const Table<P, X> t{"apply",                                                           \
                               {                                                                  \
                                   {Variant::elementwise, kCuda,                                  \
                                    [](const P& p, const X& c) {                                  \
                                      return cuda::can_implement_apply(c, p.mask, p.accum, p.op,  \
                                                                       p.A, p.d);                 \
                                    },                                                            \
                                    [](const P& p, X& c, Context& x) {                            \
                                      cuda::apply(c, p.mask, p.accum, p.op, p.A, chosen(p.d), x); \
                                    }},                                                           \
                                   {Variant::suitesparse, kCpu, always<P, X>,                     \
                                    [](const P& p, X& c, Context& x) {                            \
                                      HostInputs h(x);                                            \
                                      cpu::apply(c, h(p.mask), p.accum, p.op, h(p.A), p.d, x);    \
                                    }},                                                           \
                               }};                                                                \
    return t;                                                                                     \
  }
RINGBLAS_APPLY_TABLE(apply_table, Matrix)
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

const Table<LayerChainProblem, DenseMatrix>& mxm_layers_table() {
  using P = LayerChainProblem;
  static const Table<P, DenseMatrix> t{
      "mxm_layers",
      {
          // Arguments are validated by mxm_layers itself (bias <= 0, fp32, sizes).
          {Variant::sparse_layer, kCuda, always<P, DenseMatrix>,
           [](const P& p, DenseMatrix& out, Context& x) {
             out = cuda::sparse_layer::run_chain(p.weights, p.bias, p.ymax, p.features, p.ids,
                                                 p.options, p.stats, x);
           }},
      }};
  return t;
}

}  // namespace ringblas::detail

namespace ringblas {
namespace {

/// Adds table `t` to the listing, merged into the line of its operation (the name up to " (").
template <class P, class Out>
void list(std::vector<OperationKernels>& rows, const detail::Table<P, Out>& t) {
  const std::string_view full = t.operation;
  const std::string name(full.substr(0, full.find(" (")));
  auto it = std::find_if(rows.begin(), rows.end(),
                         [&](const OperationKernels& r) { return r.operation == name; });
  if (it == rows.end()) {
    rows.push_back({name, "none", {}});
    it = rows.end() - 1;
  }
  for (const auto& e : t.entries) {
    const std::string v(variant_name(e.variant));
    if (e.executor == detail::Executor::cpu)
      it->cpu = v;
    else if (std::find(it->cuda.begin(), it->cuda.end(), v) == it->cuda.end())
      it->cuda.push_back(v);
  }
}

}  // namespace

std::vector<OperationKernels> kernel_table() {
  using namespace detail;
  std::vector<OperationKernels> rows;
  list(rows, mxm_table());
  list(rows, mxv_table());
  list(rows, vxm_table());
  list(rows, mxm_dense_table());
  list(rows, mxm_dense_epilogue_table());
  list(rows, mxm_batched_table());
  list(rows, ewise_add_table(static_cast<const Matrix*>(nullptr)));
  list(rows, ewise_add_table(static_cast<const Vector*>(nullptr)));
  list(rows, ewise_mult_table(static_cast<const Matrix*>(nullptr)));
  list(rows, ewise_mult_table(static_cast<const Vector*>(nullptr)));
  list(rows, apply_table());
  list(rows, apply_vector_table());
  list(rows, apply_bound_table());
  list(rows, apply_index_table());
  list(rows, select_table());
  list(rows, reduce_table());
  list(rows, reduce_scalar_table(static_cast<const Matrix*>(nullptr)));
  list(rows, reduce_scalar_table(static_cast<const Vector*>(nullptr)));
  list(rows, transpose_table());
  list(rows, extract_table());
  list(rows, assign_table());
  list(rows, kronecker_table());
  list(rows, mxm_layers_table());
  return rows;
}

}  // namespace ringblas
