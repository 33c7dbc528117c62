// k-core decomposition by bulk peeling on the public API (see kcore.hpp for the method).
#include "algorithms/kcore.hpp"

#include <algorithm>
#include <string>

#include "algorithms/graph_vectors.hpp"

namespace ringblas::algorithms {

Vector core_numbers(const Matrix& A, Context& ctx) {
  return core_numbers(A, KCoreUpdate::sparse_loss, ctx);
}

Vector core_numbers(const Matrix& A, KCoreUpdate update, Context& ctx) {
  const Index n = A.nrows();
  if (A.ncols() != n)
    throw DimensionMismatch("core_numbers: A must be square, it is " + std::to_string(n) + " x " +
                            std::to_string(A.ncols()));
  if (n >= (Index(1) << 30))
    throw NotImplemented("core_numbers: " + std::to_string(n) +
                         " vertices; the levels kept in the degrees need n < 2^30");
  const Location where = location_of(A);
  Matrix S = new_matrix(n, n, Type::boolean, where, ctx);
  select(S, nullptr, no_accum, SelectOpCode::offdiag, Scalar(Index{0}), A, {}, ctx);
  const Semiring plus_pair = semiring("plus_pair", Type::int64);
  const Vector zeros = constant_vector(n, Index{0}, where, ctx);
  Vector lost = new_vector(n, Type::int64, where, ctx);
  mxv(lost, nullptr, no_accum, plus_pair, S, zeros, {}, ctx);
  // deg = zeros ∪ lost: full (isolated vertices 0), its structure known (no host read).
  Vector deg = new_vector(n, Type::int64, where, ctx);
  ewise_add(deg, nullptr, no_accum, BinaryOpCode::plus, zeros, lost, {}, ctx);
  const Index B = 4 * (n + 1);  // the spacing of the levels kept in the peeled vertices' degrees
  // w - u for the full w: w's structure kept (u's entries lie inside it).
  auto minus_full = [&](const Vector& w, const Vector& u) {
    Vector out = new_vector(n, Type::int64, where, ctx);
    ewise_add(out, nullptr, no_accum, BinaryOpCode::minus, w, u, {}, ctx);
    return out;
  };
  const bool in_place = update == KCoreUpdate::in_place;

  Index k = 0, remaining = n;
  while (remaining > 0) {
    k = std::max(k, reduce(MonoidCode::min, deg, ctx).as<Index>());
    const Index mark = B * (k + 1) + B / 2;
    Vector q = select_vector(SelectOpCode::value_le, deg, k, ctx);
    while (q.nnz() > 0) {
      remaining -= q.nnz();
      // deg -= lost, then deg -= q - mark: q's values are the peeled vertices' degrees, so theirs
      // become mark - lost. Each is a union with the full deg (structure known, no host read):
      // 0.05-0.07 ms each in H100 traces, where one accumulated sparse union took 0.2-0.27.
      // in_place: lost is accumulated into deg by the product itself (w full, no mask: the cuda
      // write-back updates w's values, nothing to size or read back).
      if (in_place) {
        vxm(deg, nullptr, BinaryOpCode::minus, plus_pair, q, S, {}, ctx);
      } else {
        vxm(lost, nullptr, no_accum, plus_pair, q, S, {}, ctx);
        deg = minus_full(deg, lost);
      }
      deg = minus_full(deg, apply_bound(BinaryOpCode::minus, q, mark, ctx));
      // Every vertex at most k was in q: only those that just lost degree can reach k now
      // (in_place has no lost, so it selects among all of deg: the same vertices).
      Vector touched;
      if (!in_place) {
        touched = new_vector(n, Type::int64, where, ctx);
        ewise_mult(touched, nullptr, no_accum, BinaryOpCode::second, lost, deg, {}, ctx);
      }
      q = select_vector(SelectOpCode::value_le, in_place ? deg : touched, k, ctx);
    }
  }
  return apply_bound(BinaryOpCode::minus, apply_bound(BinaryOpCode::div, deg, B, ctx), Index{1},
                     ctx);
}

}  // namespace ringblas::algorithms
