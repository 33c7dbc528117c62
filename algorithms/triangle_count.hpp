// Triangle counting of an undirected graph by masked plus_pair products of its triangles.
//
// Method (LAGraph LAGr_TriangleCount; Wolf, Deveci, Berry, Hammond, Rajamanickam, "Fast linear
// algebra-based triangle counting with KokkosKernels", HPEC 2017 (Sandia); Azad, Buluç,
// Gilbert, "Parallel triangle counting and enumeration using matrix algebra", IPDPSW 2015
// (Cohen's L·U); Schank, Wagner, "Finding, counting and listing all triangles in large graphs",
// WEA 2005 (the forward algorithm: each edge oriented towards the higher-degree end, triangles
// as intersections of out-neighbourhoods)): with S = A, optionally relabelled as
// S = P A Pᵀ = P (P A)ᵀ (A symmetric: two extracts with the row list perm, the second of the
// transpose) with perm = the permutation sorting the degrees in decreasing order
// (sort_permutation; hubs first, so that every row of L is short: a vertex's row holds only its
// neighbours of higher degree), L = tril(S, -1), U = triu(S, 1) (self-loops dropped by both):
//   sandia_llt:  C⟨L⟩ = L +.pair Lᵀ         ntri = Σ C   (dot products of two rows of L:
//                                                        k < j < i; the forward algorithm)
//   sandia_ll:   C⟨L⟩ = L +.pair L          ntri = Σ C   (saxpy; k < j < i)
//   sandia_lut:  C⟨L⟩ = L +.pair Uᵀ         ntri = Σ C   (dot products; LAGraph SandiaDot)
//   cohen:       C⟨S⟩ = L +.pair U          ntri = Σ C / 2   (S = offdiag(A) here)
// The degree used by the presort counts A's entries of a row (a self-loop included): it only
// orders the vertices, any order gives the same count.
// A must be symmetric (the caller symmetrises a directed graph); values are ignored.
#pragma once
#include <cstdint>

#include "ringblas/ringblas.hpp"

namespace ringblas::algorithms {

enum class TriangleMethod : std::uint8_t { sandia_ll, sandia_lut, cohen, sandia_llt };

struct TriangleOptions {
  /// The forward algorithm: with the presort both rows of every dot product are short, and the
  /// masked product needs no transpose (spgemm_dot_hash on the GPU: row i of L in a hash set,
  /// probed by row j of L for each j < i in L(i, :)).
  TriangleMethod method = TriangleMethod::sandia_llt;
  bool presort = true;  ///< relabel vertices by decreasing degree first
};

/// The number of triangles of the undirected graph A. Throws DimensionMismatch unless A is
/// square. A's symmetry is not checked (that would cost a transpose); a directed A gives the
/// count of its structure's lower and upper triangles as the method states.
std::int64_t triangle_count(const Matrix& A, const TriangleOptions& opt = {},
                            Context& ctx = default_context());

}  // namespace ringblas::algorithms
