// Triangle counting by masked plus_pair products (see triangle_count.hpp for the method).
#include "algorithms/triangle_count.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "algorithms/graph_vectors.hpp"

namespace ringblas::algorithms {
namespace {

/// S(perm, perm) = P S Pᵀ (boolean) with perm sorting the vertices by decreasing degree (ties by id). The
/// degrees are read back once and sorted on the host by a stable counting sort (O(n + max
/// degree): a comparison sort of millions of vertices would cost more than the count itself).
Matrix by_decreasing_degree(const Matrix& S, Context& ctx) {
  const Index n = S.nrows();
  // deg = S +.pair 0 (a dense vector): the entry count of each row, without a copy of S.
  Vector deg = new_vector(n, Type::int64, S.location(), ctx);
  mxv(deg, nullptr, no_accum, semiring("plus_pair", Type::int64), S,
      constant_vector(n, Index{0}, S.location(), ctx), {}, ctx);
  const Vector host_deg = deg.location() == Location::host ? deg : deg.to(Location::host, ctx);
  std::vector<Index> d(static_cast<std::size_t>(n), 0);
  const std::vector<Index> idx = host_deg.indices_vector();
  const std::vector<Index> val = host_deg.values_vector<Index>();
  Index max_d = 0;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    d[static_cast<std::size_t>(idx[k])] = val[k];
    max_d = std::max(max_d, val[k]);
  }
  // start[g]: the first position of degree g, degrees in decreasing order.
  std::vector<Index> start(static_cast<std::size_t>(max_d) + 2, 0);
  for (Index v = 0; v < n; ++v) ++start[static_cast<std::size_t>(max_d - d[v]) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  Indices perm;
  perm.list.resize(static_cast<std::size_t>(n));
  for (Index v = 0; v < n; ++v)
    perm.list[static_cast<std::size_t>(start[static_cast<std::size_t>(max_d - d[v])]++)] = v;
  Matrix permuted = new_matrix(n, n, Type::boolean, S.location(), ctx);
  extract(permuted, nullptr, no_accum, S, perm, perm, {}, ctx);
  return permuted;
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
  if (opt.method == TriangleMethod::sandia_llt) {
    d.transpose_b = true;
    mxm(C, &L, no_accum, plus_pair, L, L, d, ctx);
    return reduce(MonoidCode::plus, C, ctx).as<std::int64_t>();
  }
  Matrix U = new_matrix(n, n, Type::boolean, S.location(), ctx);
  select(U, nullptr, no_accum, SelectOpCode::triu, Scalar(Index{1}), S, {}, ctx);
  switch (opt.method) {
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
    case TriangleMethod::sandia_llt:
      break;
  }
  throw InvalidValue("triangle_count: unknown method");
}

}  // namespace ringblas::algorithms
