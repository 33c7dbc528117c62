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
//   forward:     C⟨U⟩ = L +.pair Lᵀ         ntri = Σ C   (the forward algorithm: edge (j, i),
//                                                        j < i, meets L(j,:) ∩ L(i,:): k < j;
//                                                        row j of the mask reuses L(j,:), each
//                                                        entry walks L(i,:): Σ_i |L(i,:)|² work)
//   sandia_llt:  C⟨L⟩ = L +.pair Lᵀ         ntri = Σ C   (the same intersections from row i:
//                                                        Σ_(i,j)∈L |L(j,:)| work)
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

enum class TriangleMethod : std::uint8_t {
  automatic,
  forward,
  sandia_llt,
  sandia_ll,
  sandia_lut,
  cohen
};

struct TriangleOptions {
  /// automatic: forward with the presort (every row of L short: on R-MAT scale 22 half the work
  /// of sandia_llt), sandia_llt without it (hubs' rows of L are long and forward would walk
  /// them once per neighbour). Both need no transpose (spgemm_dot_hash on the GPU: the mask
  /// row's row of L in a hash set, probed by the other row of L).
  TriangleMethod method = TriangleMethod::automatic;
  bool presort = true;  ///< relabel vertices by decreasing degree first
};

/// The number of triangles of the undirected graph A. Throws DimensionMismatch unless A is
/// square. A's symmetry is not checked (that would cost a transpose); a directed A gives the
/// count of its structure's lower and upper triangles as the method states.
std::int64_t triangle_count(const Matrix& A, const TriangleOptions& opt = {},
                            Context& ctx = default_context());

}  // namespace ringblas::algorithms
