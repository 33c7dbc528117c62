// Launcher of the spgemm_hash family (hash-table SpGEMM after Nagasaka et al., ICPP'17):
// can_implement -> workspace_bytes -> run, the manifest of compiled semirings, and a test hook
// that shrinks the workspace budget (plain C++ interface).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "backend/cuda/spgemm_hash/policy.hpp"
#include "ringblas/ops.hpp"

namespace ringblas::cuda::spgemm_hash {

/// Why spgemm_hash cannot run C<M> = C accum A ⊕.⊗ B, or nullopt when it can (the dispatch table
/// asks it; the variant and the accumulator have been checked by then).
std::optional<std::string> can_implement(const Semiring& s, const Matrix& A, const Matrix& B,
                                         const Matrix& C, Accum accum, const Descriptor& desc);

/// Device bytes the per-row workspace takes besides C (global-memory hash tables excluded: they
/// are sized to the budget and processed in chunks).
std::size_t workspace_bytes(const Matrix& A, const Descriptor& desc);

/// C<M> = C accum (A ⊕.⊗ B) on the device (A, B transposed first per desc). Inputs on the host
/// are copied (counted in ctx.transfers); C ends on the device. When C or the workspace exceeds
/// the device budget (9/10 of the free memory) the rows of A go in chunks, each two-phase,
/// concatenated on the host; C then returns to the device if it fits, else stays on the host
/// (only without mask or accumulator). Throws NotImplemented (before C is touched) for
/// combinations can_implement rejects, OutOfMemory with the sizes when a single row's table
/// cannot fit or a host-sized T needs a write-back.
void run(Matrix& C, const Matrix* M, Accum accum, const Semiring& s, const Matrix& A,
         const Matrix& B, const Descriptor& desc, Context& ctx);

/// One compiled semiring x type (backend/cuda/manifest.def as built).
struct manifest_entry {
  std::string name;
  Type type;
};
std::vector<manifest_entry> manifest();

/// Run-time switches of the issue-14 paths (defaults from policy). Setting all off gives the
/// previous pipeline, so that bench_spgemm compares both in one run and the tests reach both.
struct tuning {
  bool bitmap_symbolic;  ///< policy::bitmap_symbolic
  int dense_windows;     ///< policy::dense_windows; 0 turns windowed dense accumulation off
  int dense_min_nnz;     ///< policy::dense_min_nnz
  bool concurrent_bins;  ///< bins on policy::bin_streams streams (false: all on ctx's stream)
  int concurrent_min_kernels = 0;  ///< policy::concurrent_min_kernels (0: streams whenever on)
  bool lean_host = false;          ///< policy::lean_host
  int wide_pwarp = 0;              ///< policy::wide_pwarp (0: rows over 32 products in blocks)
  bool wide_pwarp_alone = false;   ///< policy::wide_pwarp_alone
  int bucket_sort_min = 0;         ///< policy::bucket_sort_min (0: bitonic sort only)
  int bucket_entries = policy::bucket_entries;  ///< policy::bucket_entries
  int bucket_limit = policy::bucket_limit;      ///< policy::bucket_limit
  int fused_scan_rows = policy::fused_scan_rows;  ///< policy::fused_scan_rows (0: off)
  double bucket_max_ratio = policy::bucket_max_ratio;  ///< policy::bucket_max_ratio (0: any)
  int pwarp_split = policy::pwarp_split;  ///< policy::pwarp_split (0: off, 1: lanes, 2: flat)
  int sync_free_rows = policy::sync_free_rows;  ///< policy::sync_free_rows (0: off)
  int sync_free_bins = policy::sync_free_bins;  ///< policy::sync_free_bins (1-5)
  int sync_free_big_grid = policy::sync_free_big_grid;  ///< policy::sync_free_big_grid (0: off)
  bool one_workspace = policy::one_workspace;   ///< policy::one_workspace
  int pwarp_threads = policy::pwarp_threads;    ///< policy::pwarp_threads (0: by the grid)
  int pwarp_spread = policy::pwarp_spread;      ///< policy::pwarp_spread (rows per SM; 0: off)
  int pwarp_spread_group = policy::pwarp_spread_group;  ///< policy::pwarp_spread_group (8, 16)
  int sync_free_threads = policy::sync_free_threads;    ///< policy::sync_free_threads (256, 512)
  static tuning defaults();
  static tuning previous();  ///< every issue-14 path off
  static tuning session4();  ///< the defaults of the previous session (streams always, no lean
                             ///< host path, no wide pwarp)
};
/// The switches every later call uses (process-wide), and the current ones.
void set_tuning(const tuning& t);
tuning current_tuning();

namespace detail {
/// Caps the device budget of a call (bytes; 0 restores the default of 9/10 of the free device
/// memory), so that tests reach the row-chunked and chunked global-table paths on small inputs.
void set_workspace_budget_for_testing(std::size_t bytes);
}  // namespace detail

}  // namespace ringblas::cuda::spgemm_hash
