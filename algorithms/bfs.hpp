// Breadth-first search: levels and (optionally) parents from one source, direction-optimising.
//
// Method (LAGraph LAGr_BreadthFirstSearch; Beamer, Asanović, Patterson, "Direction-Optimizing
// Breadth-First Search", SC 2012):
//   q = e_s,  d = e_s ∪ 0 (level + 1, 0: not visited; a full int64 vector),  parent = e_s ∪ -1
//   for k = 1, 2, ... while q has entries:
//     push:  q⟨¬d, replace⟩ = q ⊕.⊗ A                   (vxm, d a value mask)
//     pull:  q⟨¬d, replace⟩ = Aᵀ ⊕.⊗ q                  (mxv on Aᵀ)
//     d⟨q⟩ = k + 1;  parent⟨q⟩ = q
//   level = d - 1 on the entries d > 0
// As LAGraph assigns level⟨q⟩ = k into a bitmap vector, d and parent are full vectors here: each
// assignment is an element-wise union with a full operand, whose result structure is known (no
// compaction, no host read). d holds level + 1 so that its values are the visited mask.
// ⊕.⊗ = any_pair for levels, any_secondi for parents (the entry's k in q(k)·A(k, j), a
// 0-based vertex id). Push runs while the frontier is small. By default (`edge_counts`) push
// switches to pull as Beamer states it, on edges: when m_f > m_u / alpha, with
// m_f = Σ_{i ∈ q} deg(i) (deg = A +.pair 1, once, or given) and m_u the edges not yet explored
// (nnz(A) minus the m_f of every push step); m_f is computed only while the frontier grows (as
// LAGraph does), so the shrinking tail pays nothing for it. Without `edge_counts`, the frontier's
// vertex count stands in for its edge count: pull when |q| > (n - |visited|) / alpha. Back to
// push when |q| < n / beta (alpha = 14 as Beamer's paper, beta = 18 as his GAP benchmark's
// reference BFS, gapbs: back to push a little earlier).
// The only host reads per level are q's entry count, which the vector carries (and m_f, a
// scalar, on growing push levels with `edge_counts`).
#pragma once
#include <optional>

#include "ringblas/ringblas.hpp"

namespace ringblas::algorithms {

struct BfsOptions {
  bool parents = false;              ///< also compute the BFS tree's parents
  bool direction_optimizing = true;  ///< false: push only
  /// Aᵀ for the pull steps (nullptr: computed once when first needed, or A itself when
  /// `symmetric`).
  const Matrix* transposed = nullptr;
  bool symmetric = false;  ///< A equals Aᵀ (undirected graph): pull uses A
  /// Beamer's push-to-pull test on edge counts (see above), the default: on R-MAT scale 22 it
  /// pulls the second level (162K hub neighbours, most of the edges) that the vertex rule pushes
  /// (2.7 ms of its 5.8). false: the vertex-count rule.
  bool edge_counts = true;
  /// With edge_counts: every vertex's out-degree (int64, A +.pair 1), a graph property computed
  /// once and kept with the graph as LAGraph keeps G->out_degree (nullptr: computed here).
  const Vector* out_degree = nullptr;
  double alpha = 14.0, beta = 18.0;
};

struct BfsResult {
  Vector level;                  ///< int64; reached vertices only, source at 0
  std::optional<Vector> parent;  ///< int64 0-based parent ids; parent(source) = source
  int push_steps = 0, pull_steps = 0;
};

/// BFS of the directed graph A (A(i, j) present: edge i -> j; values ignored) from `source`.
/// Results stay at A's location. Throws DimensionMismatch unless A is square, InvalidIndex for
/// a source outside 0..n-1.
BfsResult bfs(const Matrix& A, Index source, const BfsOptions& opt = {},
              Context& ctx = default_context());

}  // namespace ringblas::algorithms
