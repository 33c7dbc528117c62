// Triangle counting by masked plus_pair products (see triangle_count.hpp for the method).
#include "algorithms/triangle_count.hpp"

#include <string>

#include "algorithms/graph_vectors.hpp"
#include "ringblas/index_vectors.hpp"

namespace ringblas::algorithms {
namespace {

/// S = P A Pᵀ (boolean) with P ordering the vertices by decreasing degree (ties by id). The
/// degrees, their sorting permutation and both gathers stay where A is; as A is symmetric,
/// P A Pᵀ = P (P A)ᵀ: two row gathers (extract with a row list) and one transpose, with no
/// per-row sort of relabelled columns.
Matrix by_decreasing_degree(const Matrix& A, Context& ctx) {
  const Index n = A.nrows();
  const Location at = A.location();
  // deg = 0 + (A +.pair 0): the entry count of every row, empty rows included.
  Vector deg = constant_vector(n, Index{0}, at, ctx);
  mxv(deg, nullptr, BinaryOpCode::plus, semiring("plus_pair", Type::int64), A,
      constant_vector(n, Index{0}, at, ctx), {}, ctx);
  Vector perm = new_vector(n, Type::int64, at, ctx);
  sort_permutation(perm, deg, SortOrder::descending, ctx);
  Matrix PA = new_matrix(n, n, Type::boolean, at, ctx);
  extract(PA, nullptr, no_accum, A, &perm, nullptr, {}, ctx);
  Matrix S = new_matrix(n, n, Type::boolean, at, ctx);
  Descriptor transposed;
  transposed.transpose_a = true;
  extract(S, nullptr, no_accum, PA, &perm, nullptr, transposed, ctx);
  return S;
}

}  // namespace

std::int64_t triangle_count(const Matrix& A, const TriangleOptions& opt, Context& ctx) {
  const Index n = A.nrows();
  if (A.ncols() != n)
    throw DimensionMismatch("triangle_count: A must be square, it is " + std::to_string(n) + " x " +
                            std::to_string(A.ncols()));
  // tril(S, -1) and triu(S, 1) drop the self-loops; only Cohen's mask needs offdiag(A).
  const Matrix S = opt.presort ? by_decreasing_degree(A, ctx) : A;
  Matrix L = new_matrix(n, n, Type::boolean, S.location(), ctx);
  Matrix C = new_matrix(n, n, Type::int64, S.location(), ctx);
  select(L, nullptr, no_accum, SelectOpCode::tril, Scalar(Index{-1}), S, {}, ctx);
  const Semiring plus_pair = semiring("plus_pair", Type::int64);
  Descriptor d = structural();
  const TriangleMethod method = opt.method != TriangleMethod::automatic ? opt.method
                                : opt.presort                           ? TriangleMethod::forward
                                              : TriangleMethod::sandia_llt;
  if (method == TriangleMethod::sandia_llt) {
    d.transpose_b = true;
    mxm(C, &L, no_accum, plus_pair, L, L, d, ctx);
    return reduce(MonoidCode::plus, C, ctx).as<std::int64_t>();
  }
  Matrix U = new_matrix(n, n, Type::boolean, S.location(), ctx);
  select(U, nullptr, no_accum, SelectOpCode::triu, Scalar(Index{1}), S, {}, ctx);
  switch (method) {
    case TriangleMethod::forward:
      d.transpose_b = true;
      mxm(C, &U, no_accum, plus_pair, L, L, d, ctx);
      return reduce(MonoidCode::plus, C, ctx).as<std::int64_t>();
    case TriangleMethod::sandia_ll:
      mxm(C, &L, no_accum, plus_pair, L, L, d, ctx);
      return reduce(MonoidCode::plus, C, ctx).as<std::int64_t>();
    case TriangleMethod::sandia_lut:
      d.transpose_b = true;
      mxm(C, &L, no_accum, plus_pair, L, U, d, ctx);
      return reduce(MonoidCode::plus, C, ctx).as<std::int64_t>();
    case TriangleMethod::cohen: {
      Matrix O = new_matrix(n, n, Type::boolean, S.location(), ctx);
      select(O, nullptr, no_accum, SelectOpCode::offdiag, Scalar(Index{0}), S, {}, ctx);
      mxm(C, &O, no_accum, plus_pair, L, U, d, ctx);
      return reduce(MonoidCode::plus, C, ctx).as<std::int64_t>() / 2;
    }
    case TriangleMethod::automatic:
    case TriangleMethod::sandia_llt:
      break;
  }
  throw InvalidValue("triangle_count: unknown method");
}

}  // namespace ringblas::algorithms
