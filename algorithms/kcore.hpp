// Core number of every vertex of an undirected graph (k-core decomposition) by peeling.
//
// Method (LAGraph LAGraph_KCore_All / LAGr_KCoreDecompose; Matula and Beck's peeling,
// bulk-synchronous as in Mattson et al., "An Introduction to the k-core in GraphBLAS"):
//   S = offdiag(A);  deg = S +.pair 1 (every vertex, 0 for isolated ones);  k = 0;  core = 0
//   while vertices remain:
//     k = max(k, min(deg))
//     q = select(deg <= k)                vertices peeled at level k
//     while q has entries:
//       core⟨q⟩ = k
//       l = q +.pair S;  deg⟨q⟩ = ∞         removed (a value no k reaches)
//       deg = deg - l                      neighbours lose one degree per peeled edge
//       q = select((deg ∩ l) <= k)         only a vertex that lost degree can reach k now
// deg and core are full vectors, so each update is an element-wise operation whose structure is
// known (no compaction, no host read); a removed vertex's degree stays above any k.
// Host reads: min(deg) once per level, the entry counts of q.
#pragma once
#include "ringblas/ringblas.hpp"

namespace ringblas::algorithms {

/// Core number (int64) of every vertex of the undirected graph A (symmetric; self-loops and
/// values ignored, as networkx.core_number requires none). Results at A's location. Throws
/// DimensionMismatch unless A is square.
Vector core_numbers(const Matrix& A, Context& ctx = default_context());

}  // namespace ringblas::algorithms
