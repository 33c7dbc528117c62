// Triangle counting of an undirected graph by masked plus_pair products of its triangles.
//
// Method (LAGraph LAGr_TriangleCount; Wolf, Deveci, Berry, Hammond, Rajamanickam, "Fast linear
// algebra-based triangle counting with KokkosKernels", HPEC 2017 (Sandia); Azad, Buluç,
// Gilbert, "Parallel triangle counting and enumeration using matrix algebra", IPDPSW 2015
// (Cohen's L·U)): with S = offdiag(A) (self-loops dropped), optionally relabelled as
// S(perm, perm) = P S Pᵀ (extract) with perm sorting the vertices by decreasing degree (hubs
// first, so that their rows of L are short), L = tril(S, -1), U = triu(S, 1):
//   sandia_ll:   C⟨L⟩ = L +.pair L          ntri = Σ C   (saxpy; k < j < i)
//   sandia_lut:  C⟨L⟩ = L +.pair Uᵀ         ntri = Σ C   (dot products; LAGraph SandiaDot)
//   cohen:       C⟨S⟩ = L +.pair U          ntri = Σ C / 2
// A must be symmetric (the caller symmetrises a directed graph); values are ignored.
#pragma once
#include <cstdint>

#include "ringblas/ringblas.hpp"

namespace ringblas::algorithms {

enum class TriangleMethod : std::uint8_t { sandia_ll, sandia_lut, cohen };

struct TriangleOptions {
  /// LAGraph's default (SandiaDot): with Uᵀ given, the masked product needs no transpose and
  /// runs as one dot product per entry of L (spgemm_dot on the GPU).
  TriangleMethod method = TriangleMethod::sandia_lut;
  bool presort = true;  ///< relabel vertices by decreasing degree first
};

/// The number of triangles of the undirected graph A. Throws DimensionMismatch unless A is
/// square. A's symmetry is not checked (that would cost a transpose); a directed A gives the
/// count of its structure's lower and upper triangles as the method states.
std::int64_t triangle_count(const Matrix& A, const TriangleOptions& opt = {},
                            Context& ctx = default_context());

}  // namespace ringblas::algorithms
