// Betweenness centrality by batched Brandes: a batch of sources is a matrix whose rows are BFS
// frontiers.
//
// Method (LAGraph LAGr_Betweenness; Brandes, "A faster algorithm for betweenness centrality",
// 2001; the batched form of Buluç & Gilbert's Combinatorial BLAS): for sources s_1..s_b, with
// the batch as n x b matrices (a column per source; LAGraph's b x n ones transposed),
//   P = Σ_r e_{s_r} e_rᵀ  (n x b path counts),  F⟨¬P, struct, replace⟩ = Aᵀ +.first P
//   forward, depth = 0, 1, ...:  S_depth = pattern(F);  P += F;
//                                 F⟨¬P, struct, replace⟩ = Aᵀ +.first F
//   backward, δ = 0 (n x b), for i = depth-1 .. 1:
//     W⟨S_i, struct, replace⟩ = (1 + δ) ./ P        (as 1 ./ P ⊕ δ ./ P, both on S_i)
//     W⟨S_{i-1}, struct, replace⟩ = A +.first W
//     δ += W .* P
//   centrality(v) = Σ_r δ(v, r)
// which is Σ_s δ_s(v), the directed-graph sum over the batch's sources of the dependencies (for
// an undirected graph and every vertex as a source, twice networkx's unnormalised value).
// LAGraph keeps B = 1 + δ as a dense b x n matrix; δ stays sparse here, so that a batch on a
// large graph needs no dense storage. +.first is computed as +.× on A's pattern of ones (the
// same products, on a semiring in the GPU's default kernel set).
#pragma once
#include <vector>

#include "ringblas/ringblas.hpp"

namespace ringblas::algorithms {

/// Σ_{s in sources} δ_s(v) for every vertex v (fp64, dense) of the directed graph A (values
/// ignored), processed in batches of `batch` sources (each an n x b matrix). Results at A's
/// location. Throws DimensionMismatch unless A is square, InvalidIndex for a source outside
/// 0..n-1, InvalidValue for batch < 1.
Vector betweenness(const Matrix& A, const std::vector<Index>& sources, Index batch = 64,
                   Context& ctx = default_context());

}  // namespace ringblas::algorithms
