// Markov clustering (MCL), reproducing the mcl program (22-282) on the public API.
//
// Method (van Dongen, "Graph Clustering by Flow Simulation", PhD thesis, Utrecht 2000; the
// pruning, convergence and interpretation rules are those of mcl's manual page and of its
// sources mcl/expand.c, mcl/proc.c, mcl/interpret.c, clew/cat.c, read, not copied). mcl works
// on columns; here row i of A holds mcl's column i, A = Mᵀ, so every per-column rule of mcl is a
// per-row rule below and the expansion Mᵀ Mᵀ = (M M)ᵀ is A ⊕.⊗ A.
//   loops     G(i,i) = max_j G(i,j) over i's other entries (1 for a row without any; times -c f
//             when given), zero weights dropped;  A = diag(1 / G 1) G (rows stochastic)
//   repeat    F = prune(A ⊕.⊗ A) per row (below), each expanded row pruned as it is computed
//             (mxm_prune_rows, include/ringblas/row_prune.hpp: E = A ⊕.⊗ A is never stored;
//             in row phases when a memory budget is set)
//             chaos_i = (max_j E(i,j) - Σ_j E(i,j)²) · |F(i,:)|, chaos = max_i chaos_i
//             A = diag(1 / F^∘I 1) F^∘I  (inflation: apply pow)
//             until chaos < 1e-4; after 40 iterations I grows by 0.1% per iteration.
//   prune     P = {E(i,j) >= 0.99999 / P};  if |P_i| < R and ΣP_i < pct: keep the R largest of
//             E_i (ties at the R-th value kept); else if |P_i| > S: keep the S largest of P_i
//             (ties kept), and if that leaves fewer than R entries with mass < pct keep the R
//             largest of P_i instead; with R = 0 an emptied row gets a loop of weight 1.
//   interpret for the limit L: per row keep L(i,j) >= 0.999 L(i,i) + 0.001 max_j L(i,j) (or
//             >= L(i,i)/1.01 when L(i,i) is the maximum), normalise, keep entries >= 1/(k+1)
//             of a row of k; attractors are rows with a diagonal entry; connected attractors
//             form one cluster each (numbered by their smallest node); every other node joins
//             the clusters of the attractors it reaches, keeping the lowest-numbered one
//             (mcl's default overlap mode "cut"); nodes reaching none form one last cluster.
//   output    clusters by decreasing size, ties by their sorted members, lexicographically;
//             members in increasing order.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"
#include "ringblas/ops.hpp"

namespace ringblas::mcl {

/// mcl's options, with its names and defaults (mcl -z).
struct Options {
  double inflation = 2.0;        ///< -I
  double prune = 10000;          ///< -P: entries below 0.99999 / P are removed (0: none)
  Index select = 1100;           ///< -S: keep at most the S largest of a row (0: no selection)
  Index recover = 1400;          ///< -R: recover up to R entries when pruning lost too much
  double recover_pct = 90;       ///< -pct: ... i.e. when the kept mass is below pct percent
  double loop_factor = -1;       ///< -c: loop weights multiplied by this (negative: not applied)
  Index max_iterations = 10000;  ///< -L
  double chaos_limit = 1e-4;     ///< convergence: chaos below this
  Type type = Type::fp64;        ///< value type of the iterands (mcl stores floats)
  /// Bytes the expansion may use (0: no limit, one phase). The pruned product of an iteration
  /// is computed in row phases sized from a bound on each row's kept entries (its products,
  /// capped by max(S, R) when selecting, else by max(P, R)); OutOfMemory, with the numbers,
  /// when even one row cannot fit.
  std::size_t memory_budget_bytes = 0;
};

/// What one iteration did, for progress lines (mcl prints chaos and timing per iteration).
struct IterationInfo {
  int iteration = 0;
  double inflation = 0;
  double chaos = 0;
  Index expanded_nnz = 0;  ///< entries of E before pruning
  Index nnz = 0;           ///< entries of A after pruning and inflation
  int phases = 1;
  Index rows_recovered = 0, rows_selected = 0;
};
using IterationCallback = std::function<void(const IterationInfo&)>;

struct Result {
  std::vector<std::vector<Index>> clusters;  ///< in mcl's order, members increasing
  int iterations = 0;
  double chaos = 0;  ///< of the last iteration
};

/// Clusters the graph G (n x n, mcl's orientation: column j holds j's edges; symmetric graphs
/// either way). Values are weights (fp of any type; negative weights throw InvalidValue).
/// Runs on ctx's backend, on the data where G lives. Throws DimensionMismatch when G is not
/// square, InvalidValue for bad options, OutOfMemory as above.
Result cluster(const Matrix& graph, const Options& opt = {}, Context& ctx = default_context(),
               const IterationCallback& on_iteration = {});

/// mcl's interpretation of a limit (row i = mcl's column i, any location): the clusters in
/// mcl's order, as in cluster().
std::vector<std::vector<Index>> interpret(const Matrix& limit, Context& ctx = default_context());

}  // namespace ringblas::mcl
