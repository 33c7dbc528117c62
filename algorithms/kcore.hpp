// Core number of every vertex of an undirected graph (k-core decomposition) by peeling.
//
// Method (LAGraph LAGraph_KCore_All / LAGr_KCoreDecompose; Matula and Beck's peeling,
// bulk-synchronous as in Mattson et al., "An Introduction to the k-core in GraphBLAS"):
//   S = offdiag(A);  deg = S +.pair 1 (every vertex, 0 for isolated ones);  k = 0
//   while vertices remain:
//     k = max(k, min(deg))
//     q = select(deg <= k)                vertices peeled at level k (values: their degrees)
//     while q has entries:
//       l = q +.pair S                     edges each vertex loses to the peeled ones
//       deg -= l;  deg -= q - mark_k       a peeled vertex's degree becomes mark_k - l,
//                                          mark_k = B (k + 1) + B / 2
//       q = select((deg ∩ l) <= k)         only a vertex that lost degree can reach k now
//   core = deg / B - 1                     (integer division)
// B = 4 (n + 1) exceeds twice every degree loss, so a peeled vertex keeps its level in its
// degree: mark_k minus less than B / 2 lost later, above every live degree (no k reaches it),
// divided back to k at the end. deg is the only full vector, updated twice per round (unions
// with a full operand, structure known); the rest of a round works on the peeled vertices and
// their neighbours only. LAGraph keeps core and deg apart and assigns core⟨q⟩ = k each round;
// on R-MAT scale 22 the peel takes ~800 rounds, so the operations per round are its cost.
// Host reads: min(deg) once per level, the entry counts of l and q (two per round).
// KCoreUpdate::in_place rounds instead (the same cores: every live vertex at most k is in q at a
// round's start, so deg <= k after it only where deg just fell):
//       deg -= q +.pair S                  one product accumulated into the full deg (GrB_vxm
//                                          with GrB_MINUS_INT64: no sparse l to size, no read)
//       deg -= q - mark_k
//       q = select(deg <= k)               over every vertex: one host read per round
#pragma once
#include "ringblas/ringblas.hpp"

namespace ringblas::algorithms {

/// Core number (int64) of every vertex of the undirected graph A (symmetric; self-loops and
/// values ignored, as networkx.core_number requires none). Results at A's location. Throws
/// DimensionMismatch unless A is square, NotImplemented for 2^30 or more vertices (the levels
/// kept in the degrees, about 4 n^2, must fit int64).
Vector core_numbers(const Matrix& A, Context& ctx = default_context());

/// How a peel round updates the degrees (see the method above).
enum class KCoreUpdate {
  sparse_loss,  ///< l = q +.pair S, deg -= l, q from deg ∩ l (the default)
  in_place,     ///< deg -= q +.pair S in place, q from all of deg: one host read less per round
};
/// core_numbers with the round's update chosen (the bench compares them on the GPU).
Vector core_numbers(const Matrix& A, KCoreUpdate update, Context& ctx = default_context());

}  // namespace ringblas::algorithms
