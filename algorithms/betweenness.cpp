// Batched Brandes betweenness centrality on the public API (see betweenness.hpp).
#include "algorithms/betweenness.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "algorithms/graph_vectors.hpp"

namespace ringblas::algorithms {
namespace {

/// Host-built matrix moved to `where` once.
Matrix placed(Matrix m, Location where, Context& ctx) {
  return where == Location::host ? m : m.to(where, ctx);
}

/// Σ_r δ_{s_r}(v) over one batch of sources (a vertex with no dependency may be absent). The
/// batch's matrices are n x b (a column per source): A ⊕.⊗ F then has a row per vertex with at
/// most b entries, work that spreads over the whole GPU, where F ⊕.⊗ A (b x n) would be b very
/// long rows.
Vector batch_dependencies(const Matrix& A, const Matrix& AT, const std::vector<Index>& sources,
                          Context& ctx) {
  const Index n = A.nrows(), b = Index(sources.size());
  const Location where = location_of(A);
  std::vector<Index> cols(sources.size());
  for (Index r = 0; r < b; ++r) cols[r] = r;
  // P = Σ_r e_{s_r} e_rᵀ as the transpose of its b x n form: only b + 1 row pointers come from
  // the host (P's own n + 1 would be a 32 MB upload on R-MAT scale 22).
  const Matrix PT = placed(
      Matrix::from_triplets<double>(b, n, cols, sources, std::vector<double>(sources.size(), 1.0)),
      where, ctx);
  Matrix P = new_matrix(n, b, Type::fp64, where, ctx);
  transpose(P, nullptr, no_accum, PT, {}, ctx);
  // A and Aᵀ hold ones, so +.× is LAGraph's +.first (path counts flow, edge values ignored) on
  // a semiring every executor builds by default.
  const Semiring plus_times = semiring("plus_times", Type::fp64);
  const Descriptor unvisited = structural(/*complement=*/true, /*replace=*/true);
  Matrix F = new_matrix(n, b, Type::fp64, where, ctx);
  mxm(F, &P, no_accum, plus_times, AT, P, unvisited, ctx);
  std::vector<Matrix> S;
  while (F.nnz() > 0) {
    Matrix sum = new_matrix(n, b, Type::fp64, where, ctx);
    Matrix next = new_matrix(n, b, Type::fp64, where, ctx);
    ewise_add(sum, nullptr, no_accum, BinaryOpCode::plus, P, F, {}, ctx);
    P = std::move(sum);
    mxm(next, &P, no_accum, plus_times, AT, F, unvisited, ctx);
    S.push_back(std::move(F));
    F = std::move(next);
  }
  // δ (n x b) holds the dependencies found so far; LAGraph's dense B is 1 + δ.
  Matrix delta = new_matrix(n, b, Type::fp64, where, ctx);
  const Descriptor on_level = structural(/*complement=*/false, /*replace=*/true);
  for (Index i = Index(S.size()) - 1; i >= 1; --i) {
    Matrix inv = new_matrix(n, b, Type::fp64, where, ctx);
    Matrix ratio = new_matrix(n, b, Type::fp64, where, ctx);
    Matrix W = new_matrix(n, b, Type::fp64, where, ctx);
    apply(inv, &S[i], no_accum, UnaryOpCode::minv, P, on_level, ctx);
    ewise_mult(ratio, &S[i], no_accum, BinaryOpCode::div, delta, P, on_level, ctx);
    ewise_add(W, nullptr, no_accum, BinaryOpCode::plus, inv, ratio, {}, ctx);
    Matrix Wp = new_matrix(n, b, Type::fp64, where, ctx);
    Matrix WP = new_matrix(n, b, Type::fp64, where, ctx);
    Matrix sum = new_matrix(n, b, Type::fp64, where, ctx);
    mxm(Wp, &S[i - 1], no_accum, plus_times, A, W, on_level, ctx);
    ewise_mult(WP, nullptr, no_accum, BinaryOpCode::times, Wp, P, {}, ctx);
    ewise_add(sum, nullptr, no_accum, BinaryOpCode::plus, delta, WP, {}, ctx);
    delta = std::move(sum);
  }
  Vector total = new_vector(n, Type::fp64, where, ctx);
  reduce(total, nullptr, no_accum, MonoidCode::plus, delta, ReduceDim::rows, {}, ctx);
  return total;
}

}  // namespace

Vector betweenness(const Matrix& A, const std::vector<Index>& sources, Index batch, Context& ctx) {
  const Index n = A.nrows();
  if (A.ncols() != n)
    throw DimensionMismatch("betweenness: A must be square, it is " + std::to_string(n) + " x " +
                            std::to_string(A.ncols()));
  if (batch < 1) throw InvalidValue("betweenness: batch must be at least 1");
  for (Index s : sources)
    if (s < 0 || s >= n)
      throw InvalidIndex("betweenness: source " + std::to_string(s) + " out of range 0.." +
                         std::to_string(n - 1));
  const Location where = location_of(A);
  Matrix ones = new_matrix(n, n, Type::fp64, where, ctx);
  apply(ones, nullptr, no_accum, UnaryOpCode::one, A, {}, ctx);
  Matrix AT = new_matrix(n, n, Type::fp64, where, ctx);
  transpose(AT, nullptr, no_accum, ones, {}, ctx);
  Vector centrality = constant_vector(n, 0.0, where, ctx);
  for (std::size_t first = 0; first < sources.size(); first += std::size_t(batch)) {
    const std::size_t last = std::min(sources.size(), first + std::size_t(batch));
    const std::vector<Index> part(sources.begin() + std::ptrdiff_t(first),
                                  sources.begin() + std::ptrdiff_t(last));
    Vector sum = new_vector(n, Type::fp64, where, ctx);
    ewise_add(sum, nullptr, no_accum, BinaryOpCode::plus, centrality,
              batch_dependencies(ones, AT, part, ctx), {}, ctx);
    centrality = std::move(sum);
  }
  return centrality;
}

}  // namespace ringblas::algorithms
