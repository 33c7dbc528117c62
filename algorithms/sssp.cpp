// Frontier Bellman-Ford and delta-stepping in min.+ on the public API (see sssp.hpp).
#include "algorithms/sssp.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "algorithms/graph_vectors.hpp"

namespace ringblas::algorithms {
namespace {

void check_problem(const Matrix& A, Index source) {
  const Index n = A.nrows();
  if (A.ncols() != n)
    throw DimensionMismatch("sssp: A must be square, it is " + std::to_string(n) + " x " +
                            std::to_string(A.ncols()));
  if (source < 0 || source >= n)
    throw InvalidIndex("sssp: source " + std::to_string(source) + " out of range 0.." +
                       std::to_string(n - 1));
}

Vector source_vector(const Matrix& A, Index source, Context& ctx) {
  Vector d = Vector::from_entries<double>(A.nrows(), {source}, {0.0});
  return location_of(A) == Location::host ? d : d.to(location_of(A), ctx);
}

/// One relaxation of the frontier f over the edges of M: t = f min.+ M; d = min(d, t).
/// Returns the improved entries of t (absent from d before, or strictly shorter).
Vector relax(Vector& d, const Vector& f, const Matrix& M, Context& ctx) {
  const Index n = d.size();
  Vector t = new_vector(n, Type::fp64, d.location(), ctx);
  Vector gap = new_vector(n, Type::fp64, d.location(), ctx);
  Vector improved = new_vector(n, Type::fp64, d.location(), ctx);
  Vector shorter = new_vector(n, Type::fp64, d.location(), ctx);
  vxm(t, nullptr, no_accum, semiring("min_plus", Type::fp64), f, M, {}, ctx);
  ewise_mult(gap, nullptr, no_accum, BinaryOpCode::minus, t, d, {}, ctx);
  const Vector less = select_vector(SelectOpCode::value_lt, gap, 0.0, ctx);
  apply(improved, &d, no_accum, UnaryOpCode::identity, t, structural(/*complement=*/true), ctx);
  apply(improved, &less, no_accum, UnaryOpCode::identity, t, structural(), ctx);
  ewise_add(shorter, nullptr, no_accum, BinaryOpCode::min, d, t, {}, ctx);
  d = std::move(shorter);
  return improved;
}

}  // namespace

SsspResult sssp_bellman_ford(const Matrix& A, Index source, Context& ctx) {
  check_problem(A, source);
  SsspResult r;
  r.distance = source_vector(A, source, ctx);
  Vector f = r.distance;
  while (f.nnz() > 0) {
    if (r.rounds == A.nrows())
      throw InvalidValue("sssp: a negative cycle is reachable from source " +
                         std::to_string(source));
    ++r.rounds;
    f = relax(r.distance, f, A, ctx);
  }
  return r;
}

SsspResult sssp_delta_stepping(const Matrix& A, Index source, double delta, Context& ctx) {
  check_problem(A, source);
  if (!(delta >= 0)) throw InvalidValue("sssp: delta must be >= 0");
  const Index n = A.nrows();
  const Location where = location_of(A);
  if (A.nnz() > 0 && reduce(MonoidCode::min, A, ctx).as<double>() < 0)
    throw InvalidValue("sssp: delta-stepping needs non-negative weights (use Bellman-Ford)");
  if (delta == 0) {
    const double wmax = A.nnz() > 0 ? reduce(MonoidCode::max, A, ctx).as<double>() : 1.0;
    delta = std::max(wmax, 1e-300) / std::max(1.0, double(A.nnz()) / double(n));
  }
  Matrix light = new_matrix(n, n, Type::fp64, where, ctx);
  Matrix heavy = new_matrix(n, n, Type::fp64, where, ctx);
  select(light, nullptr, no_accum, SelectOpCode::value_le, delta, A, {}, ctx);
  select(heavy, nullptr, no_accum, SelectOpCode::value_gt, delta, A, {}, ctx);

  SsspResult r;
  Vector& d = r.distance;
  d = source_vector(A, source, ctx);
  Vector settled = new_vector(n, Type::fp64, where, ctx);
  for (;;) {
    Vector rest = new_vector(n, Type::fp64, where, ctx);
    apply(rest, &settled, no_accum, UnaryOpCode::identity, d, structural(/*complement=*/true), ctx);
    if (rest.nnz() == 0) break;
    const double bucket = std::floor(reduce(MonoidCode::min, rest, ctx).as<double>() / delta);
    const double end = (bucket + 1) * delta;
    Vector B = select_vector(SelectOpCode::value_lt, rest, end, ctx);
    Vector f = B;
    while (f.nnz() > 0) {
      ++r.rounds;
      f = select_vector(SelectOpCode::value_lt, relax(d, f, light, ctx), end, ctx);
      Vector grown = new_vector(n, Type::fp64, where, ctx);
      ewise_add(grown, nullptr, no_accum, BinaryOpCode::second, B, f, {}, ctx);
      B = std::move(grown);
    }
    Vector final_b = new_vector(n, Type::fp64, where, ctx);
    Vector all = new_vector(n, Type::fp64, where, ctx);
    ewise_mult(final_b, nullptr, no_accum, BinaryOpCode::first, d, B, {}, ctx);
    relax(d, final_b, heavy, ctx);
    ewise_add(all, nullptr, no_accum, BinaryOpCode::first, settled, B, {}, ctx);
    settled = std::move(all);
  }
  return r;
}

}  // namespace ringblas::algorithms
