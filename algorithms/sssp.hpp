// Single-source shortest paths over min_plus: frontier Bellman-Ford (any weights; finds negative
// cycles) and delta-stepping (non-negative weights).
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
// Delta-stepping (Meyer & Sanders, J. Algorithms 2003; LAGraph LAGr_SingleSourceShortestPath):
//   AL = select(A <= Δ) (light edges),  AH = select(A > Δ) (heavy edges),  d = e_s,  S = ∅
//   repeat:
//     r = d⟨¬S⟩;  stop when r is empty;  i = ⌊min(r) / Δ⌋         (bucket i: [iΔ, (i+1)Δ))
//     f = B = select(r < (i+1)Δ)
//     while f has entries:                                           (light phase)
//       t = f min.+ AL;  improved = as above;  d = min(d, t)
//       f = select(improved < (i+1)Δ);  B = B ∪ f
//     d = min(d, (d .* B) min.+ AH);  S = S ∪ B                      (heavy edges, once)
// Edge weights are A's values (fp64); the host reads entry counts and, for delta-stepping, one
// minimum per bucket.
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

/// The same distances by delta-stepping with bucket width `delta` (> 0; 0 picks
/// max(A) / max(1, nnz(A) / n), Meyer and Sanders' Θ(1/degree) for weights up to max(A)).
/// Throws InvalidValue when A has a negative weight (use sssp_bellman_ford) or delta < 0, and
/// as sssp_bellman_ford otherwise. `rounds` counts light-phase relaxations.
SsspResult sssp_delta_stepping(const Matrix& A, Index source, double delta = 0,
                               Context& ctx = default_context());

}  // namespace ringblas::algorithms
