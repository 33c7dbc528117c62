// Frontier Bellman-Ford in min.+ on the public API (see sssp.hpp for the method).
#include "algorithms/sssp.hpp"

#include <string>
#include <utility>

#include "algorithms/graph_vectors.hpp"

namespace ringblas::algorithms {

SsspResult sssp_bellman_ford(const Matrix& A, Index source, Context& ctx) {
  const Index n = A.nrows();
  if (A.ncols() != n)
    throw DimensionMismatch("sssp: A must be square, it is " + std::to_string(n) + " x " +
                            std::to_string(A.ncols()));
  if (source < 0 || source >= n)
    throw InvalidIndex("sssp: source " + std::to_string(source) + " out of range 0.." +
                       std::to_string(n - 1));
  const Location where = location_of(A);
  const Semiring min_plus = semiring("min_plus", Type::fp64);
  SsspResult r;
  Vector& d = r.distance;
  d = Vector::from_entries<double>(n, {source}, {0.0});
  if (where != Location::host) d = d.to(where, ctx);
  Vector f = d;
  while (f.nnz() > 0) {
    if (r.rounds == n)
      throw InvalidValue("sssp: a negative cycle is reachable from source " +
                         std::to_string(source));
    ++r.rounds;
    Vector t(n, Type::fp64), gap(n, Type::fp64), next(n, Type::fp64), shorter_d(n, Type::fp64);
    vxm(t, nullptr, no_accum, min_plus, f, A, {}, ctx);
    ewise_mult(gap, nullptr, no_accum, BinaryOpCode::minus, t, d, {}, ctx);
    const Vector shorter = select_vector(SelectOpCode::value_lt, gap, 0.0, ctx);
    apply(next, &d, no_accum, UnaryOpCode::identity, t, structural(/*complement=*/true), ctx);
    apply(next, &shorter, no_accum, UnaryOpCode::identity, t, structural(), ctx);
    ewise_add(shorter_d, nullptr, no_accum, BinaryOpCode::min, d, t, {}, ctx);
    d = std::move(shorter_d);
    f = std::move(next);
  }
  return r;
}

}  // namespace ringblas::algorithms
