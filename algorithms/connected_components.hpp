// Connected components of an undirected graph by FastSV; label = smallest vertex id of the
// component.
//
// Method (Zhang, Azad, Hu, "FastSV: A Distributed-Memory Connected Component Algorithm with Fast
// Convergence", SIAM PP 2020; LAGraph LG_CC_FastSV5 / LAGr_ConnectedComponents). With the
// parent vector f (f(i) = i at first), the grandparents gp = f[f] and F the matrix of f
// (F(i, f(i)) = 1, so F ⊕.⊗ x gathers x[f] and Fᵀ ⊕.⊗ x scatters onto f with ⊕):
//   repeat:
//     mngp = min(mngp, A min.2nd gp)           minimum grandparent among the neighbours
//     f    = min(f, Fᵀ min.2nd mngp)           stochastic hooking: f[f[u]] min= mngp[u]
//     f    = min(f, mngp, gp)                  aggressive hooking and shortcutting
//     gp'  = F' min.2nd f   (F' the matrix of the new f)     gp' = f[f]
//   until gp' = gp   (one scalar per iteration: max |gp' - gp|)
// Every update takes a minimum and f(i) <= i throughout, so each tree's root, which every vertex
// of the component finally points to, is the component's smallest id.
#pragma once
#include "ringblas/ringblas.hpp"

namespace ringblas::algorithms {

struct ComponentsResult {
  Vector label;  ///< int64, every vertex: the smallest vertex id of its component
  int iterations = 0;
};

/// Components of the undirected graph A (A must be symmetric: the caller symmetrises a directed
/// one; values and self-loops are ignored). Results at A's location. Throws DimensionMismatch
/// unless A is square.
ComponentsResult connected_components(const Matrix& A, Context& ctx = default_context());

}  // namespace ringblas::algorithms
