// The rows of the products' dispatch tables (mxm sparse and dense, mxv/vxm, mxm_batched,
// mxm_layers): which cuda variants exist, what each can run (its family's can_implement), in
// which order automatic tries them, and the cpu (suitesparse) row. A new variant = one row here.
#include <algorithm>

#include "backend/core/dispatch/dispatch_rows.hpp"
#include "backend/cpu/cpu_backend.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/sparse_layer/sparse_layer.hpp"
#include "backend/cuda/spgemm_dot/spgemm_dot.hpp"
#include "backend/cuda/spgemm_hash/spgemm_hash.hpp"
#include "backend/cuda/spmm_batched/spmm_batched.hpp"
#include "backend/cuda/spmm_subwarp/spmm_subwarp.hpp"
#include "backend/cuda/spmv/spmv.hpp"

namespace ringblas::detail {
namespace {

using namespace rows;

// --- mxm, sparse C -----------------------------------------------------------------------------
using MxmEntry = Entry<MxmProblem, Matrix>;

/// The masked dot-product rows: spgemm_dot (an intersection per mask entry) and
/// spgemm_dot_hash (row by row of the mask, A's row in a shared-memory hash set, cheaper when
/// A's rows are reused by several mask entries); one can_implement, each its run and cost.
/// Chosen over the row-wise product when the mask is much sparser than the unmasked product
/// (spgemm_dot.hpp's density rule).
template <Variant V>
MxmEntry masked_dot_entry() {
  constexpr bool hash = V == Variant::spgemm_dot_hash;
  return MxmEntry{V, kCuda,
                  [](const MxmProblem& p, const Matrix&) {
                    return cuda::spgemm_dot::can_implement(p.s, p.mask, p.A, p.B, p.d);
                  },
                  [](const MxmProblem& p, Matrix& c, Context& x) {
                    (hash ? cuda::spgemm_dot::run_hash : cuda::spgemm_dot::run)(
                        c, p.mask, p.accum, p.s, p.A, p.B, with_variant(p.d, V), x);
                  },
                  [](const MxmProblem& p, const Matrix&) {
                    return cuda::spgemm_dot::variant_cost(p.s, p.mask, p.A, p.B, p.d, hash, p.ctx);
                  }};
}

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
  // Automatic orders the two single-SpMM kernels by spmm_subwarp::relative_cost (A's mean row
  // length, rows and n_B).
  return {
      {Variant::spmm_rowsplit, kCuda, can_subwarp, run_dense_cuda<Variant::spmm_rowsplit>,
       [](const DenseMxmProblem& p, const DenseMatrix&) {
         return cuda::spmm_subwarp::relative_cost(Variant::spmm_rowsplit, p.A, p.d.transpose_a,
                                                  p.B.ncols());
       }},
      {Variant::spmm_subwarp, kCuda, can_subwarp, run_dense_cuda<Variant::spmm_subwarp>,
       [](const DenseMxmProblem& p, const DenseMatrix&) {
         return cuda::spmm_subwarp::relative_cost(Variant::spmm_subwarp, p.A, p.d.transpose_a,
                                                  p.B.ncols());
       }},
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
                   },
                   [](const MxmProblem& p, const Matrix&) {
                     return cuda::spgemm_dot::rowwise_cost(p.A, p.B, p.d);
                   }},
          masked_dot_entry<Variant::spgemm_dot>(),
          masked_dot_entry<Variant::spgemm_dot_hash>(),
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

const Table<StackedBatchedMxmProblem, DenseMatrix>& mxm_batched_stacked_table() {
  using P = StackedBatchedMxmProblem;
  static const Table<P, DenseMatrix> t{
      "mxm_batched (stacked)",
      {
          {Variant::spmm_batched, kCuda,
           [](const P& p, const DenseMatrix& c) -> Reason {
             if (c.type() != p.s.type || (reads_y(p.s.mul) && p.B.type() != p.s.type))
               return "the stacked form needs B and C of the semiring's type";
             return cuda::spmm_batched::can_implement(p.s, &p.ep, p.d, {}, false);
           },
           [](const P& p, DenseMatrix& c, Context& x) {
             cuda::mxm_batched(c, p.s, p.A, p.B, p.ep, with_variant(p.d, Variant::spmm_batched), x);
           }},
          {Variant::suitesparse, kCpu, always<P, DenseMatrix>,
           [](const P& p, DenseMatrix& c, Context& x) {
             auto on_host = [](const Matrix& m) { return m.location() == Location::host; };
             std::vector<Matrix> host_a;
             if (!std::all_of(p.A.begin(), p.A.end(), on_host))
               for (const auto& m : p.A) host_a.push_back(on_host(m) ? m : m.to(Location::host, x));
             HostInputs h(x);
             const Epilogue ep(p.ep.kind, p.ep.bias ? &h(*p.ep.bias) : nullptr, p.ep.clamp);
             cpu::mxm_batched(c, p.s, host_a.empty() ? p.A : host_a, h(p.B), ep, p.d, x);
           }},
      }};
  return t;
}

const Table<LayerChainProblem, DenseMatrix>& mxm_layers_table() {
  using P = LayerChainProblem;
  static const Table<P, DenseMatrix> t{
      "mxm_layers",
      {
          // Arguments are validated by mxm_layers itself (bias <= 0, fp32, sizes); the options
          // here (an explicit staged tail needs a narrow network).
          {Variant::sparse_layer, kCuda,
           [](const P& p, const DenseMatrix&) {
             return cuda::sparse_layer::can_implement_chain(p.options, p.features.nrows());
           },
           [](const P& p, DenseMatrix& out, Context& x) {
             out = cuda::sparse_layer::run_chain(p.weights, p.bias, p.ymax, p.features, p.ids,
                                                 p.options, p.stats, x);
           }},
      }};
  return t;
}

// The prepared-network form of mxm_layers (listed on mxm_layers' line): preparation and layers.
const Table<LayerNetworkProblem, SparseNetwork>& prepare_network_table() {
  using P = LayerNetworkProblem;
  static const Table<P, SparseNetwork> t{
      "mxm_layers (prepare_network)",
      {
          {Variant::sparse_layer, kCuda, always<P, SparseNetwork>,
           [](const P& p, SparseNetwork& out, Context& x) {
             out = cuda::sparse_layer::prepare_network(p.weights, p.bias, p.ymax, p.stats,
                                                       p.options, x);
           }},
      }};
  return t;
}

const Table<PreparedLayersProblem, std::vector<Index>>& mxm_layers_prepared_table() {
  using P = PreparedLayersProblem;
  static const Table<P, std::vector<Index>> t{
      "mxm_layers (prepared network)",
      {
          {Variant::sparse_layer, kCuda,
           [](const P& p, const std::vector<Index>&) {
             return cuda::sparse_layer::can_implement_chain(p.options, p.net.neurons);
           },
           [](const P& p, std::vector<Index>& out, Context& x) {
             out = cuda::sparse_layer::run_network(p.net, p.features, p.options, p.stats,
                                                   p.survivors, x);
           }},
      }};
  return t;
}

}  // namespace ringblas::detail
