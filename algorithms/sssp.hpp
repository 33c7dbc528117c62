// Single-source shortest paths over min_plus: frontier Bellman-Ford (any weights; finds negative
// cycles) and delta-stepping (non-negative weights).
//
// Method (LAGraph LAGr_SingleSourceShortestPath's relaxation in min.+; Bellman 1958, Ford 1956,
// with the frontier restricted to the vertices whose distance improved, as in LAGraph's
// Bellman-Ford and Gunrock's SSSP):
//   d = ∞ ∪ e_s (a full vector, d(s) = 0),  f = e_s
//   for k = 1 .. n:
//     t = f min.+ A                                 (vxm: relax the improved vertices' edges)
//     f = d' ∩ select(t - d < 0)  with d' = min(d, t)  (strictly shorter, new ones included)
//     d = d'
//     stop when f is empty
//   a frontier still non-empty after n rounds means a negative cycle reachable from s;
//   distance = d on its finite entries.
// Delta-stepping (Meyer & Sanders, J. Algorithms 2003; LAGraph LAGr_SingleSourceShortestPath):
//   AL = select(A <= Δ) (light edges),  AH = select(A > Δ) (heavy edges),  d as above,
//   S = 0 (a full vector: ∞ on settled vertices, so that r = d + S hides them)
//   repeat:
//     r = d + S;  stop when min(r) = ∞;  i = ⌊min(r) / Δ⌋           (bucket i: [iΔ, (i+1)Δ))
//     f = select(r < (i+1)Δ)
//     while f has entries:                                           (light phase)
//       relax f over AL as above;  f = select(f < (i+1)Δ)
//     B = select(d + S < (i+1)Δ)    (the bucket after its light phase, with d's values)
//     relax B over AH (heavy edges, once);  S⟨B⟩ = ∞
// B is every unsettled vertex below the bucket's end once the light phase is over: its first
// members and each vertex a light edge brought below the end (Meyer and Sanders' B ∪ f of every
// light round, which took a union over all n positions per round), found by one selection.
// d and S are full vectors, so min(d, t), t - d and S⟨B⟩ = ∞ are element-wise operations whose
// structure is known (no compaction, no host read).
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
/// 16 max(A) / max(1, nnz(A) / n): Meyer and Sanders' Θ(1/degree) for weights up to max(A),
/// with the constant measured: on R-MAT scale 22 (H100) 1x took 101 ms, 4x 76 ms, 16x 43 ms, as
/// fewer, larger buckets cost fewer operations than the extra light relaxations they bring).
/// Throws InvalidValue when A has a negative weight (use sssp_bellman_ford) or delta < 0, and
/// as sssp_bellman_ford otherwise. `rounds` counts light-phase relaxations.
SsspResult sssp_delta_stepping(const Matrix& A, Index source, double delta = 0,
                               Context& ctx = default_context());

}  // namespace ringblas::algorithms
