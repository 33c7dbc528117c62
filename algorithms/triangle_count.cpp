// Triangle counting by masked plus_pair products (see triangle_count.hpp for the method).
#include "algorithms/triangle_count.hpp"

#include <string>

#include "algorithms/graph_vectors.hpp"
#include "ringblas/index_vectors.hpp"

namespace ringblas::algorithms {
namespace {

/// An empty output for the operations below, on the host with 32-bit row pointers where the
/// sizes allow: the executor makes its result where it computes it, and an empty output is not
/// copied (a device copy of n + 1 row pointers would cost more than most of the operations).
Matrix empty_output(Index nrows, Index ncols, Type t, const Matrix& A) {
  constexpr Index lim = (Index(1) << 31) - 1;
  return Matrix(nrows, ncols, t,
                nrows < lim && ncols < lim && A.nnz() < lim ? IndexType::i32 : IndexType::i64);
}

/// S = P A Pᵀ (boolean) over the vertices with edges (an isolated vertex is in no triangle),
/// with P ordering them by decreasing degree (ties by id). The degrees, their sorting
/// permutation and both gathers stay where A is; as A is symmetric, P A Pᵀ = P (P A)ᵀ: two row
/// gathers (extract with a row list) and one transpose, with no per-row sort of relabelled
/// columns.
Matrix by_decreasing_degree(const Matrix& A, Context& ctx) {
  const Index n = A.nrows();
  const Location at = A.location();
  // deg = A +.pair 1: deg(i) = |A(i, :)| on the rows with entries, none on the others (1 a full
  // vector; reading A's values to find the rows with entries first took 3.2 of 6.7 ms at R-MAT
  // scale 22).
  Vector deg = new_vector(n, Type::int64, at, ctx);
  mxv(deg, nullptr, no_accum, semiring("plus_pair", Type::int64), A,
      constant_vector(n, Index{0}, at, ctx), {}, ctx);
  Vector perm = new_vector(n, Type::int64, at, ctx);
  sort_permutation(perm, deg, SortOrder::descending, ctx);
  const Index m = perm.nnz();
  Matrix PA = empty_output(m, n, Type::boolean, A);
  extract(PA, nullptr, no_accum, A, &perm, nullptr, {}, ctx);
  Matrix S = empty_output(m, m, Type::boolean, A);
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
  Matrix relabelled;
  if (opt.presort) relabelled = by_decreasing_degree(A, ctx);
  const Matrix& S = opt.presort ? relabelled : A;  // no copy of A without the presort
  const Index m = S.nrows();
  Matrix L = empty_output(m, m, Type::boolean, A);
  Matrix C = empty_output(m, m, Type::int64, A);
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
  Matrix U = empty_output(m, m, Type::boolean, A);
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
      Matrix O = empty_output(m, m, Type::boolean, A);
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
