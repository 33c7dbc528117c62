// PageRank with networkx's definition (networkx.pagerank: uniform teleport and uniform spread of
// the dangling vertices' rank), converged in the L1 norm.
//
// Method (LAGraph LAGr_PageRank, the "GAP" variant extended with dangling vertices; networkx
// pagerank_scipy / _pagerank_python):
//   d = A ⊕ (row sums, plus)          out-weight of every vertex; dangling: d(i) absent
//   w = α ./ d                        (apply minv, then times α)
//   x = 1/n
//   repeat:
//     y = (x .* w) +.× A              (vxm: y(j) = α Σ_i x(i) A(i,j) / d(i));
//                                     with Aᵀ at hand (given, or A itself when symmetric, as
//                                     LAGraph's G->AT / undirected kind): y = Aᵀ +.× (x .* w)
//                                     (mxv: a row per output, no atomics)
//     c = (α · Σ_{i dangling} x(i) + 1 - α) / n
//     x' = c + y                      (every vertex gets c: y accumulated into a full c)
//     stop when ‖x' - x‖₁ < n · tol   (networkx's test)
// Edge weights are A's values (networkx's default weight='weight'; 1 for pattern graphs).
// Host reads per iteration: two scalars (the dangling sum and the L1 change).
#pragma once
#include "ringblas/ringblas.hpp"

namespace ringblas::algorithms {

struct PageRankOptions {
  double damping = 0.85;  ///< α
  double tol = 1e-10;     ///< stop when ‖x' - x‖₁ < n · tol
  int max_iterations = 100;
  /// Aᵀ for y = Aᵀ +.× (x .* w) (nullptr: y = (x .* w) +.× A), or A itself when `symmetric`.
  const Matrix* transposed = nullptr;
  bool symmetric = false;  ///< A equals Aᵀ (undirected graph)
};

struct PageRankResult {
  Vector rank;  ///< fp64, every vertex (sums to 1)
  int iterations = 0;
  bool converged = false;  ///< false: max_iterations reached first (networkx raises then)
};

/// PageRank of the directed graph A (A(i, j): edge i -> j with weight A(i, j) >= 0); results at
/// A's location. Throws DimensionMismatch unless A is square, InvalidValue for a damping outside
/// [0, 1] or a negative tolerance.
PageRankResult pagerank(const Matrix& A, const PageRankOptions& opt = {},
                        Context& ctx = default_context());

}  // namespace ringblas::algorithms
