// k-core decomposition by bulk peeling on the public API (see kcore.hpp for the method).
#include "algorithms/kcore.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "algorithms/graph_vectors.hpp"

namespace ringblas::algorithms {

Vector core_numbers(const Matrix& A, Context& ctx) {
  const Index n = A.nrows();
  if (A.ncols() != n)
    throw DimensionMismatch("core_numbers: A must be square, it is " + std::to_string(n) + " x " +
                            std::to_string(A.ncols()));
  const Location where = location_of(A);
  Matrix S = new_matrix(n, n, Type::boolean, where, ctx);
  select(S, nullptr, no_accum, SelectOpCode::offdiag, Scalar(Index{0}), A, {}, ctx);
  const Semiring plus_pair = semiring("plus_pair", Type::int64);
  const Vector zeros = constant_vector(n, Index{0}, where, ctx);
  // w = w ⊕op u for a full w (its structure kept: no compaction, no host read).
  auto updated = [&](const Vector& w, BinaryOpCode op, const Vector& u) {
    Vector out = new_vector(n, Type::int64, where, ctx);
    ewise_add(out, nullptr, no_accum, op, w, u, {}, ctx);
    return out;
  };
  Vector deg = new_vector(n, Type::int64, where, ctx);
  mxv(deg, nullptr, no_accum, plus_pair, S, zeros, {}, ctx);
  deg = updated(zeros, BinaryOpCode::plus, deg);
  Vector core = zeros;
  // The degree of a removed vertex: above every k, and still after losing up to n edges.
  const Index removed = std::numeric_limits<Index>::max() / 2;

  Index k = 0, remaining = n;
  while (remaining > 0) {
    k = std::max(k, reduce(MonoidCode::min, deg, ctx).as<Index>());
    Vector q = select_vector(SelectOpCode::value_le, deg, k, ctx);
    while (q.nnz() > 0) {
      remaining -= q.nnz();
      assign_scalar(core, q, k, ctx);
      Vector lost = new_vector(n, Type::int64, where, ctx);
      vxm(lost, nullptr, no_accum, plus_pair, q, S, {}, ctx);
      assign_scalar(deg, q, removed, ctx);
      deg = updated(deg, BinaryOpCode::minus, lost);
      // Every vertex at most k was in q: only those that just lost degree can reach k now.
      Vector touched = new_vector(n, Type::int64, where, ctx);
      ewise_mult(touched, nullptr, no_accum, BinaryOpCode::second, lost, deg, {}, ctx);
      q = select_vector(SelectOpCode::value_le, touched, k, ctx);
    }
  }
  return core;
}

}  // namespace ringblas::algorithms
