// k-core decomposition by bulk peeling on the public API (see kcore.hpp for the method).
#include "algorithms/kcore.hpp"

#include <algorithm>
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
  Vector deg = new_vector(n, Type::int64, where, ctx);
  mxv(deg, nullptr, no_accum, plus_pair, S, zeros, {}, ctx);
  Vector all = new_vector(n, Type::int64, where, ctx);
  ewise_add(all, nullptr, no_accum, BinaryOpCode::plus, deg, zeros, {}, ctx);
  deg = std::move(all);

  Vector core = new_vector(n, Type::int64, where, ctx);
  Index k = 0;
  while (deg.nnz() > 0) {
    k = std::max(k, reduce(MonoidCode::min, deg, ctx).as<Index>());
    for (;;) {
      const Vector q = select_vector(SelectOpCode::value_le, deg, k, ctx);
      if (q.nnz() == 0) break;
      assign_scalar(core, q, k, ctx);
      Vector kept = new_vector(n, Type::int64, where, ctx);
      Vector lost = new_vector(n, Type::int64, where, ctx);
      Vector left = new_vector(n, Type::int64, where, ctx);
      apply(kept, &q, no_accum, UnaryOpCode::identity, deg, structural(true, true), ctx);
      vxm(lost, &kept, no_accum, plus_pair, q, S, structural(), ctx);
      ewise_add(left, nullptr, no_accum, BinaryOpCode::minus, kept, lost, {}, ctx);
      deg = std::move(left);
    }
  }
  return core;
}

}  // namespace ringblas::algorithms
