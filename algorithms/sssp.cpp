// Frontier Bellman-Ford and delta-stepping in min.+ on the public API (see sssp.hpp).
#include "algorithms/sssp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
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

constexpr double kInf = std::numeric_limits<double>::infinity();

/// d = ∞ ∪ e_s: the full distance vector (∞: not reached yet) with d(s) = 0.
Vector initial_distances(const Matrix& A, Index source, Context& ctx) {
  Vector d = constant_vector(A.nrows(), kInf, location_of(A), ctx);
  Vector s = Vector::from_entries<double>(A.nrows(), {source}, {0.0});
  assign_scalar(d, location_of(A) == Location::host ? s : s.to(location_of(A), ctx), 0.0, ctx);
  return d;
}

/// One relaxation of the frontier f over the edges of M: t = f min.+ M; d = min(d, t) on the
/// full d. Returns the improved entries (strictly shorter than before, ∞ included) with their
/// new distances.
Vector relax(Vector& d, const Vector& f, const Matrix& M, Context& ctx) {
  const Index n = d.size();
  const Location where = d.location();
  Vector t = new_vector(n, Type::fp64, where, ctx);
  Vector gap = new_vector(n, Type::fp64, where, ctx);
  Vector shorter = new_vector(n, Type::fp64, where, ctx);
  Vector improved = new_vector(n, Type::fp64, where, ctx);
  vxm(t, nullptr, no_accum, semiring("min_plus", Type::fp64), f, M, {}, ctx);
  ewise_mult(gap, nullptr, no_accum, BinaryOpCode::minus, t, d, {}, ctx);
  const Vector less = select_vector(SelectOpCode::value_lt, gap, 0.0, ctx);
  ewise_add(shorter, nullptr, no_accum, BinaryOpCode::min, d, t, {}, ctx);
  d = std::move(shorter);
  ewise_mult(improved, nullptr, no_accum, BinaryOpCode::second, less, d, {}, ctx);
  return improved;
}

/// The reached vertices' distances (d < ∞).
Vector reached(const Vector& d, Context& ctx) {
  return select_vector(SelectOpCode::value_lt, d, kInf, ctx);
}

}  // namespace

SsspResult sssp_bellman_ford(const Matrix& A, Index source, Context& ctx) {
  check_problem(A, source);
  SsspResult r;
  Vector d = initial_distances(A, source, ctx);
  Vector f = Vector::from_entries<double>(A.nrows(), {source}, {0.0});
  if (location_of(A) != Location::host) f = f.to(location_of(A), ctx);
  while (f.nnz() > 0) {
    if (r.rounds == A.nrows())
      throw InvalidValue("sssp: a negative cycle is reachable from source " +
                         std::to_string(source));
    ++r.rounds;
    f = relax(d, f, A, ctx);
  }
  r.distance = reached(d, ctx);
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
    constexpr double kWidth = 16;  // see sssp.hpp: measured on R-MAT scale 22
    delta = kWidth * std::max(wmax, 1e-300) / std::max(1.0, double(A.nnz()) / double(n));
  }
  Matrix light = new_matrix(n, n, Type::fp64, where, ctx);
  Matrix heavy = new_matrix(n, n, Type::fp64, where, ctx);
  select(light, nullptr, no_accum, SelectOpCode::value_le, delta, A, {}, ctx);
  select(heavy, nullptr, no_accum, SelectOpCode::value_gt, delta, A, {}, ctx);

  SsspResult r;
  Vector d = initial_distances(A, source, ctx);
  // settled: 0 on unsettled vertices, ∞ on settled ones (a full vector): d + settled hides them.
  Vector settled = constant_vector(n, 0.0, where, ctx);
  // r = d + settled: the unsettled vertices' distances (∞ on settled ones).
  auto unsettled = [&] {
    Vector rest = new_vector(n, Type::fp64, where, ctx);
    ewise_add(rest, nullptr, no_accum, BinaryOpCode::plus, d, settled, {}, ctx);
    return rest;
  };
  for (;;) {
    const Vector rest = unsettled();
    const double smallest = reduce(MonoidCode::min, rest, ctx).as<double>();
    if (!(smallest < kInf)) break;
    const double bucket = std::floor(smallest / delta);
    const double end = (bucket + 1) * delta;
    Vector f = select_vector(SelectOpCode::value_lt, rest, end, ctx);
    while (f.nnz() > 0) {
      ++r.rounds;
      f = select_vector(SelectOpCode::value_lt, relax(d, f, light, ctx), end, ctx);
    }
    const Vector B = select_vector(SelectOpCode::value_lt, unsettled(), end, ctx);
    relax(d, B, heavy, ctx);
    assign_scalar(settled, B, kInf, ctx);
  }
  r.distance = reached(d, ctx);
  return r;
}

}  // namespace ringblas::algorithms
