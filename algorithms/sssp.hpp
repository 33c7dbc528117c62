// Single-source shortest paths over min_plus: frontier Bellman-Ford, which also finds negative
// cycles.
//
// Method (LAGraph LAGr_SingleSourceShortestPath's relaxation in min.+; Bellman 1958, Ford 1956,
// with the frontier restricted to the vertices whose distance improved, as in LAGraph's
// Bellman-Ford and Gunrock's SSSP):
//   d = e_s (d(s) = 0),  f = d
//   for k = 1 .. n:
//     t = f min.+ A                                 (vxm: relax the improved vertices' edges)
//     f⟨¬d, struct⟩ = t;  f⟨select(t - d < 0), struct⟩ = t   (new or strictly shorter)
//     d = min(d, t)
//     stop when f is empty
//   a frontier still non-empty after n rounds means a negative cycle reachable from s.
// Edge weights are A's values (fp64); the host reads f's entry count only.
#pragma once
#include "ringblas/ringblas.hpp"

namespace ringblas::algorithms {

struct SsspResult {
  Vector distance;  ///< fp64, reached vertices only; distance(source) = 0
  int rounds = 0;
};

/// Shortest path lengths from `source` in the directed graph A (A(i, j): edge i -> j of weight
/// A(i, j), any sign). Results at A's location. Throws InvalidValue naming the source when a
/// negative cycle is reachable from it, DimensionMismatch unless A is square, InvalidIndex for a
/// source outside 0..n-1.
SsspResult sssp_bellman_ford(const Matrix& A, Index source, Context& ctx = default_context());

}  // namespace ringblas::algorithms
