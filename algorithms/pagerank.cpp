// PageRank by power iteration on the public API (see pagerank.hpp for the method).
#include "algorithms/pagerank.hpp"

#include <string>
#include <utility>

#include "algorithms/graph_vectors.hpp"

namespace ringblas::algorithms {

PageRankResult pagerank(const Matrix& A, const PageRankOptions& opt, Context& ctx) {
  const Index n = A.nrows();
  if (A.ncols() != n)
    throw DimensionMismatch("pagerank: A must be square, it is " + std::to_string(n) + " x " +
                            std::to_string(A.ncols()));
  if (!(opt.damping >= 0.0 && opt.damping <= 1.0))
    throw InvalidValue("pagerank: damping " + std::to_string(opt.damping) + " outside [0, 1]");
  if (!(opt.tol >= 0.0)) throw InvalidValue("pagerank: negative tolerance");
  const Location where = location_of(A);
  const double alpha = opt.damping;
  PageRankResult r;
  r.rank = constant_vector(n, n ? 1.0 / double(n) : 0.0, where, ctx);
  if (n == 0) {
    r.converged = true;
    return r;
  }

  // d = out-weights; w = α ./ d on non-dangling vertices; dangling = 1 where d is absent.
  Vector d = new_vector(n, Type::fp64, where, ctx);
  reduce(d, nullptr, no_accum, MonoidCode::plus, A, ReduceDim::rows, {}, ctx);
  d = select_vector(SelectOpCode::value_ne, d, 0.0, ctx);  // zero out-weight is dangling too
  Vector inv = new_vector(n, Type::fp64, where, ctx);
  apply(inv, nullptr, no_accum, UnaryOpCode::minv, d, {}, ctx);
  const Vector w = apply_bound(BinaryOpCode::times, inv, alpha, ctx);
  const Vector ones = constant_vector(n, 1.0, where, ctx);
  Vector dangling = new_vector(n, Type::fp64, where, ctx);
  apply(dangling, &d, no_accum, UnaryOpCode::identity, ones, structural(/*complement=*/true), ctx);

  const Semiring plus_times = semiring("plus_times", Type::fp64);
  const Matrix* at = opt.symmetric ? &A : opt.transposed;
  if (at && (at->nrows() != n || at->ncols() != n))
    throw DimensionMismatch("pagerank: the transposed graph must be " + std::to_string(n) + " x " +
                            std::to_string(n));
  Vector& x = r.rank;
  while (r.iterations < opt.max_iterations) {
    ++r.iterations;
    Vector xw = new_vector(n, Type::fp64, where, ctx);
    Vector xd = new_vector(n, Type::fp64, where, ctx);
    ewise_mult(xw, nullptr, no_accum, BinaryOpCode::times, x, w, {}, ctx);
    ewise_mult(xd, nullptr, no_accum, BinaryOpCode::times, x, dangling, {}, ctx);
    const double dangling_sum = reduce(MonoidCode::plus, xd, ctx).as<double>();
    const double c = (alpha * dangling_sum + 1.0 - alpha) / double(n);
    // x' = c + y, accumulated into the full vector c (every vertex keeps an entry).
    Vector next = constant_vector(n, c, where, ctx);
    if (at)
      mxv(next, nullptr, BinaryOpCode::plus, plus_times, *at, xw, {}, ctx);
    else
      vxm(next, nullptr, BinaryOpCode::plus, plus_times, xw, A, {}, ctx);
    Vector diff = new_vector(n, Type::fp64, where, ctx);
    Vector absdiff = new_vector(n, Type::fp64, where, ctx);
    ewise_add(diff, nullptr, no_accum, BinaryOpCode::minus, next, x, {}, ctx);
    apply(absdiff, nullptr, no_accum, UnaryOpCode::abs, diff, {}, ctx);
    const double change = reduce(MonoidCode::plus, absdiff, ctx).as<double>();
    x = std::move(next);
    if (change < double(n) * opt.tol) {
      r.converged = true;
      break;
    }
  }
  return r;
}

}  // namespace ringblas::algorithms
