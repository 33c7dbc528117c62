// The rows of the MaxK-GNN operations' dispatch tables: the cuda maxk family (backend/cuda/maxk)
// and the cpu loops (backend/cpu/cpu_maxk.cpp).
#include "backend/core/dispatch/dispatch_tables_maxk.hpp"

#include <cmath>

#include "backend/core/dispatch/dispatch_rows.hpp"
#include "backend/cpu/cpu_backend.hpp"
#include "backend/cpu/cpu_maxk.hpp"
#include "backend/cuda/maxk/maxk.hpp"

namespace ringblas::detail {

using namespace rows;

const Table<MaxkProblem, Cbsr>& maxk_table() {
  using P = MaxkProblem;
  static const Table<P, Cbsr> t{
      "maxk",
      {
          {Variant::maxk, kCuda,
           [](const P& p, const Cbsr&) { return cuda::maxk::can_implement_topk(p.Y); },
           [](const P& p, Cbsr& x, Context& c) { cuda::maxk::topk(x, p.Y, p.k, c); }},
          {Variant::suitesparse, kCpu, always<P, Cbsr>,
           [](const P& p, Cbsr& x, Context& c) {
             HostInputs h(c);
             cpu::maxk(x, h(p.Y), p.k, c);
           }},
      }};
  return t;
}

const Table<DensifyProblem, DenseMatrix>& densify_table() {
  using P = DensifyProblem;
  static const Table<P, DenseMatrix> t{
      "densify",
      {
          {Variant::maxk, kCuda,
           [](const P&, const DenseMatrix& d) { return cuda::maxk::can_implement_densify(d); },
           [](const P& p, DenseMatrix& d, Context& c) { cuda::maxk::densify(d, p.X, c); }},
          {Variant::suitesparse, kCpu, always<P, DenseMatrix>,
           [](const P& p, DenseMatrix& d, Context& c) {
             HostInputs h(c);
             cpu::densify(d, h(p.X), c);
           }},
      }};
  return t;
}

const Table<CbsrMxmProblem, DenseMatrix>& mxm_cbsr_table() {
  using P = CbsrMxmProblem;
  static const Table<P, DenseMatrix> t{
      "mxm (cbsr)",
      {
          {Variant::maxk, kCuda,
           [](const P& p, const DenseMatrix& c) {
             return cuda::maxk::can_implement_forward(p.s, p.A, c, p.ep, p.d);
           },
           [](const P& p, DenseMatrix& c, Context& x) {
             cuda::maxk::forward(c, p.A, p.X, p.ep, p.d, x, cuda::maxk::forward_shape(p.X.k()),
                                 p.drop);
           }},
          {Variant::suitesparse, kCpu, always<P, DenseMatrix>,
           [](const P& p, DenseMatrix& c, Context& x) {
             HostInputs h(x);
             cpu::mxm(c, p.s, h(p.A), h(p.X), h(p.ep ? p.ep->bias : nullptr), p.ep, p.d, x);
             // The output dropout as its definition says: nn::dropout over the written C.
             if (p.drop && p.drop->p > 0)
               cpu::dropout(c, nullptr, p.drop->p, p.drop->seed, p.drop->stream, x);
           }},
      }};
  return t;
}

const Table<SampledMxmProblem, Cbsr>& mxm_sampled_table() {
  using P = SampledMxmProblem;
  static const Table<P, Cbsr> t{
      "mxm (sampled cbsr)",
      {
          {Variant::maxk, kCuda,
           [](const P& p, const Cbsr&) {
             return cuda::maxk::can_implement_backward(p.s, p.A, p.B, p.d);
           },
           [](const P& p, Cbsr& c, Context& x) { cuda::maxk::backward(c, p.A, p.B, p.d, x); }},
          {Variant::suitesparse, kCpu, always<P, Cbsr>,
           [](const P& p, Cbsr& c, Context& x) {
             HostInputs h(x);
             cpu::mxm(c, p.s, h(p.A), h(p.B), p.d, x);
           }},
      }};
  return t;
}

std::optional<std::string> compare(const Cbsr& a, const Cbsr& b, const Tolerance& tol) {
  if (a.nrows() != b.nrows() || a.ncols() != b.ncols() || a.k() != b.k())
    return "shapes differ: " + std::to_string(a.nrows()) + "x" + std::to_string(a.ncols()) + " k " +
           std::to_string(a.k()) + " vs " + std::to_string(b.nrows()) + "x" +
           std::to_string(b.ncols()) + " k " + std::to_string(b.k());
  const std::uint8_t* ai = a.indices().as<std::uint8_t>();
  const std::uint8_t* bi = b.indices().as<std::uint8_t>();
  const float* av = a.values().as<float>();
  const float* bv = b.values().as<float>();
  for (Index e = 0; e < a.nnz(); ++e) {
    auto where = [&] {
      return "X(" + std::to_string(e / a.k()) + ", entry " + std::to_string(e % a.k()) + "): ";
    };
    if (ai[e] != bi[e])
      return where() + "column " + std::to_string(ai[e]) + " vs " + std::to_string(bi[e]);
    const double x = av[e], y = bv[e];
    if (x == y || (std::isnan(x) && std::isnan(y))) continue;  // equal infinities too
    // Unequal infinities or a NaN against a number differ whatever the tolerance.
    if (!std::isfinite(x) || !std::isfinite(y) ||
        !(std::abs(x - y) <= tol.rel * std::max(std::abs(x), std::abs(y)) + tol.abs))
      return where() + std::to_string(x) + " vs " + std::to_string(y);
  }
  return std::nullopt;
}

}  // namespace ringblas::detail
