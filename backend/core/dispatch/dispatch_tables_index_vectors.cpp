// The rows of the dispatch tables of the operations with vector index lists
// (include/ringblas/index_vectors.hpp): the index_ops family's cuda row (device lists stay on
// the device) and the cpu row (SuiteSparse; the lists copied to the host).
#include "backend/core/dispatch/dispatch_rows.hpp"
#include "backend/cpu/cpu_backend.hpp"
#include "backend/cpu/cpu_index_vectors.hpp"
#include "backend/cuda/index_ops/index_vectors.hpp"

namespace ringblas::detail {

using namespace rows;

const Table<IndexVectorsProblem, Matrix>& extract_vectors_table() {
  using P = IndexVectorsProblem;
  static const Table<P, Matrix> t{
      "extract (index vectors)",
      {
          {Variant::extract, kCuda, always<P, Matrix>,
           [](const P& p, Matrix& c, Context& x) {
             cuda::index_ops::extract_vectors(c, p.mask, p.accum, p.A, p.rows, p.cols, chosen(p.d),
                                              x);
           }},
          {Variant::suitesparse, kCpu, always<P, Matrix>,
           [](const P& p, Matrix& c, Context& x) {
             HostInputs h(x);
             const Indices r = p.rows ? cpu::indices_of(h(*p.rows)) : Indices::all();
             const Indices k = p.cols ? cpu::indices_of(h(*p.cols)) : Indices::all();
             cpu::extract(c, h(p.mask), p.accum, h(p.A), r, k, p.d, x);
           }},
      }};
  return t;
}

const Table<SortPermutationProblem, Vector>& sort_permutation_table() {
  using P = SortPermutationProblem;
  static const Table<P, Vector> t{
      "sort_permutation",
      {
          {Variant::sort, kCuda,
           [](const P& p, const Vector&) {
             return cuda::index_ops::can_implement_sort_permutation(p.u);
           },
           [](const P& p, Vector& out, Context& x) {
             cuda::index_ops::sort_permutation(out, p.u, p.descending, x);
           }},
          {Variant::suitesparse, kCpu, always<P, Vector>,
           [](const P& p, Vector& out, Context& x) {
             HostInputs h(x);
             cpu::sort_permutation(out, h(p.u), p.descending, x);
           }},
      }};
  return t;
}

}  // namespace ringblas::detail
