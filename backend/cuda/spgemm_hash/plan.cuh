// The semiring-independent half of spgemm_hash: row analysis, symbolic phase (exact nnz per output
// row) and the numeric row groups. Instantiated for 32- and 64-bit indices in symbolic.cu.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/spgemm_hash/agent.cuh"

namespace ringblas::cuda::spgemm_hash {

/// The budget argument of make_plan when the caller has not asked the driver yet (lean host path):
/// make_plan resolves it (resolve_budget) and returns the value in plan::budget.
constexpr std::size_t budget_unknown = ~std::size_t(0);

/// `budget` itself when known; else policy::assumed_budget when `need` (bytes of C's bound and
/// the per-row workspace) stays below policy::small_need and no global-memory table is needed
/// (an allocation that still fails throws OutOfMemory), else 9/10 of the free device memory.
std::size_t resolve_budget(std::size_t budget, std::size_t need, bool global_tables);

/// Per-bin row counts and offsets into the grouped row list (passed to kernels by value).
struct bin_table {
  std::int64_t count[policy::num_bins] = {};
  std::int64_t offset[policy::num_bins] = {};
};

/// Small per-call counters written by the classification kernels and read back once.
struct counters {
  unsigned long long bin_count[policy::num_bins];
  unsigned long long total_products;
  unsigned long long total_cap;   ///< sum over rows of min(products, ncols): bounds nnz(C)
  unsigned long long overflow;    ///< numeric: nnz(C) does not fit the index type
  unsigned long long max_global;  ///< largest bound among rows of the global bin
  unsigned long long global_nnz;  ///< numeric: output entries in rows of the global bin
  unsigned long long nnz;         ///< numeric: nnz(C)
  /// numeric, with paths::bucket_max_ratio: hash rows per bin that takes_buckets
  unsigned long long bucket_rows[policy::num_bins];
};

template <class I> struct plan {
  bool need_wide = false;  ///< nnz(C) overflows 32-bit indices: rerun with 64-bit ones
  bool too_large = false;  ///< C's bound exceeds the budget: rerun on chunks of rows
  std::size_t budget = 0;  ///< the budget the plan used (resolved when it came as unknown)
  std::int64_t nrows = 0, ncols = 0;
  std::int64_t products = 0, products_cap = 0, nnz = 0;
  /// Storage of the four arrays below: one pool allocation each, or all in store[0]
  /// (paths::one_workspace).
  device_array<unsigned char> store[4];
  counters* cnt = nullptr;  ///< the analysis' [0] and (lean path) the classification's [1]
  std::int64_t* row_products = nullptr;  ///< per row of A
  int2* row_range = nullptr;             ///< per row: first and last column it can reach
  I* rows = nullptr;  ///< row ids per numeric bin: bin b at (b - 1) nrows (bin_table offsets)
  void* scan_temp = nullptr;   ///< cub's scan storage in store[0] (paths::one_workspace), or none
  std::size_t scan_bytes = 0;  ///< ... and its size
  device_array<I> row_ptr;  ///< C's row pointers (nrows + 1): their own allocation, they become C's
  bin_table numeric_bins;
  std::int64_t bucket_rows[policy::num_bins] = {};  ///< counters::bucket_rows
  std::int64_t global_max_nnz = 0, global_nnz = 0;
  int symbolic_groups = 0, numeric_groups = 0;  ///< non-empty bins, for the trace
  std::string symbolic_note;                    ///< e.g. global rows processed in rounds
};

/// Runs the analysis and the symbolic phase for C = A B under mask M (all on the device, index
/// type I). `budget_bytes` bounds what the call holds on the device: when the bound on C
/// (sum of min(products, ncols) x `entry_bytes`) plus `row_bytes` per row exceeds it, only the
/// analysis runs and the plan says too_large; otherwise it also bounds the global-memory hash
/// tables of the symbolic phase (budget_unknown: resolved here, see resolve_budget). `pa` selects
/// the issue-14 paths; the bins run on `streams` side streams (0: all on ctx's stream) when the
/// phase has at least `min_kernels` kernels; `lean` reads the counters through pinned memory and
/// zeroes C's row pointers in the analysis kernel instead of a memset.
template <class I>
plan<I> make_plan(const csr_ref<I>& A, const csr_ref<I>& B, const mask_ref<I>& M,
                  std::size_t budget_bytes, std::size_t entry_bytes, std::size_t row_bytes,
                  const paths& pa, int streams, int min_kernels, bool lean,
                  const Context& ctx);

/// Side streams for a phase of `kernels` kernels (plus one on the caller's stream when
/// `global_rows`): none below `min_kernels`.
int phase_streams(int streams, int kernels, bool global_rows, int min_kernels);

/// Number of persistent blocks for rows of the global bin: bounded by the SMs and by the bytes
/// their tables take (`slot_bytes` per slot, `max_slots` per block). 0 when not even one fits.
unsigned global_blocks(std::int64_t rows, std::int64_t max_slots, std::size_t slot_bytes,
                       std::size_t budget_bytes, const Context& ctx);

/// Threads per block of a partial-warp launch of `m` rows at `group` threads per row:
/// paths::pwarp_threads, or for 0 the largest of policy::pwarp_block, / 2, / 4 whose grid gives
/// every SM of ctx's device policy::pwarp_min_waves blocks (else the smallest).
int pwarp_launch_threads(std::int64_t m, int group, const paths& pa, const Context& ctx);

/// paths::pwarp_spread_rows for tuning::pwarp_spread = `per_sm` rows per SM of ctx's device.
std::int64_t pwarp_spread_rows(int per_sm, const Context& ctx);

/// Phase-log note of one partial-warp launch ("<phase> pwarp launch: bin <bin>, <rows> rows,
/// <group> threads per row, blocks of <threads>"), when the log is on: tests and traces read which
/// shape ran.
void note_pwarp_launch(const char* phase, int bin, std::int64_t rows, int group, int threads);

/// Calls launch(group, table, bin, split) (group and table as std::integral_constant) for each
/// non-empty partial-warp bin of `t`: pwarp3, pwarp2, then the pwarp bin in its own shape or, when
/// it spreads (pwarp_spreads), in pwarp2's or pwarp3's (paths::pwarp_spread_group) with B rows
/// over lanes (pwarp_split at least 1). The symbolic and the numeric phase launch the same shapes.
template <class F>
void for_each_pwarp_launch(const bin_table& t, const paths& pa, F&& launch) {
  using P = policy;
  using std::integral_constant;
  constexpr integral_constant<int, P::pwarp2_group> g2{};
  constexpr integral_constant<int, P::pwarp2_table> t2{};
  constexpr integral_constant<int, P::pwarp3_group> g3{};
  constexpr integral_constant<int, P::pwarp3_table> t3{};
  if (t.count[P::bin_pwarp3]) launch(g3, t3, P::bin_pwarp3, pa.pwarp_split);
  if (t.count[P::bin_pwarp2]) launch(g2, t2, P::bin_pwarp2, pa.pwarp_split);
  const int spread_split = std::max(pa.pwarp_split, 1);
  if (pwarp_spreads(t.count[P::bin_pwarp], pa) && pa.pwarp_spread_group >= P::pwarp3_group)
    launch(g3, t3, P::bin_pwarp, spread_split);
  else if (pwarp_spreads(t.count[P::bin_pwarp], pa))
    launch(g2, t2, P::bin_pwarp, spread_split);
  else if (t.count[P::bin_pwarp])
    launch(integral_constant<int, P::pwarp_group>{}, integral_constant<int, P::pwarp_table>{},
           P::bin_pwarp, pa.pwarp_split);
}

}  // namespace ringblas::cuda::spgemm_hash
