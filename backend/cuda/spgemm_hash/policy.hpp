// Tuning constants of the spgemm_hash family: row bins, threads and hash-table sizes per bin.
// Values follow Nagasaka et al. (ICPP'17, nsparse) and were checked with tests/bench/bench_spgemm
// on an H100 (see tests/bench/results/); change them only with a new benchmark run.
#pragma once
#include <cstddef>
#include <cstdint>

#include "semirings/macros.hpp"

namespace ringblas::cuda::spgemm_hash {

struct policy {
  /// Partial warp: `pwarp_group` threads per row, `pwarp_rows` rows per block, a table of
  /// `pwarp_table` slots per row; rows with at most `pwarp_table` products.
  static constexpr int pwarp_group = 4;
  static constexpr int pwarp_table = 32;
  static constexpr int pwarp_block = 256;
  static constexpr int pwarp_rows = pwarp_block / pwarp_group;
  /// Wide partial warps (issue 14, tuning::wide_pwarp): `pwarp2_group` threads per row with
  /// tables of `pwarp2_table` slots for rows with pwarp_table < products <= pwarp2_table, and
  /// `pwarp3_group` x `pwarp3_table` for rows up to pwarp3_table products. Mesh matrices have
  /// almost every row there (crack, fe_4elt2, whitaker3: 33-67 products per row; data, cage8:
  /// up to 170-290); a 64-thread block per row with a 512-slot table, barriers and a bitonic
  /// sort cost more than the products.
  static constexpr int pwarp2_group = 8;
  static constexpr int pwarp2_table = 64;
  static constexpr int pwarp3_group = 16;
  static constexpr int pwarp3_table = 128;

  /// Block per row: bins 1..num_block_bins. A row goes to the first bin whose `max_products`
  /// bounds its products; rows with more products go to the last bin whose table holds them.
  static constexpr int num_block_bins = 6;
  /// Bin b uses 64 << b threads (capped at 1024) and takes rows of at most 512 << b products
  /// (the last bin: any number); tables: symbolic 512 << b keys (last bin 32768 = 128 KiB),
  /// numeric 512 << b key + value slots (last bin 16384 = up to 192 KiB).
  RINGBLAS_HD static constexpr int block_threads(int b) { return b < 4 ? 64 << b : 1024; }
  RINGBLAS_HD static constexpr std::int64_t max_products(int b) {
    return b < num_block_bins - 1 ? std::int64_t(512) << b : INT64_MAX;
  }
  RINGBLAS_HD static constexpr int symbolic_table(int b) {
    return b < num_block_bins - 1 ? 512 << b : 32768;
  }
  RINGBLAS_HD static constexpr int numeric_table(int b) { return 512 << b; }
  /// A row whose columns span a range that a larger block bin's table covers moves there to use a
  /// direct table (slot = column - first column: no probing, no sort; spECK's dense
  /// accumulator), when that table has at most this many times the slots of its own bin.
  static constexpr int direct_promote = 4;
  /// Numeric rows with more products than the first five bins take go by output size: at most
  /// this fraction of the table filled (linear probing stays short).
  static constexpr double numeric_fill = 0.75;

  /// Rows too large for shared memory: one block of `global_threads` per row at a time, tables
  /// in global memory of 2x the row's bound rounded to a power of two.
  static constexpr int global_threads = 1024;
  /// Rows of the global bin use a direct table (a slot per column, sorted for free) when C has at
  /// most this many columns or when it is no larger than the largest row's hash table.
  static constexpr std::int64_t direct_global_slots = std::int64_t(1) << 18;
  /// Persistent blocks for global rows per SM (their tables are allocated per block).
  static constexpr int global_blocks_per_sm = 2;

  /// Bins: 0 = no products, 1 = pwarp, 2-3 = wide pwarps, 4..9 = block bins, 10 = global.
  static constexpr int bin_empty = 0;
  static constexpr int bin_pwarp = 1;
  static constexpr int bin_pwarp2 = 2;
  static constexpr int bin_pwarp3 = 3;
  static constexpr int bin_block0 = 4;
  static constexpr int bin_global = bin_block0 + num_block_bins;
  static constexpr int num_bins = bin_global + 1;

  /// Multiplicative hash of a column into a power-of-two table (nsparse's HASH_SCAL).
  static constexpr unsigned hash_scale = 107u;

  // Issue 14 paths (defaults of spgemm_hash::tuning; bench_spgemm measures them against the
  // previous pipeline in the same run, tests/bench/results/spgemm_notes.md).
  /// Symbolic rows whose span exceeds their bin's table count columns in a bitmap of span bits
  /// over the same shared memory (32 columns per table slot): no probing, and rows with spans up
  /// to 32 x 32768 columns stay out of the global bin.
  static constexpr bool bitmap_symbolic = true;
  /// Numeric rows with at least `dense_min_nnz` outputs whose span needs at most `dense_windows`
  /// windows of their table accumulate directly (slot = column - window start) window by window,
  /// each B row entered at its window by binary search (spECK's dense accumulator): no probing
  /// and no sort of 4K-16K keys. Such rows move to the last block bin (16384 slots).
  static constexpr int dense_windows = 8;
  static constexpr int dense_min_nnz = 4096;
  /// Row bins of one phase run concurrently on `bin_streams` streams (spECK uses 6).
  static constexpr int bin_streams = 4;
  /// ... but only when the phase launches at least this many kernels: with two (mesh matrices:
  /// the pwarp bin and block bin 0) the fork and join cost 20-30 us of a 0.13 ms call
  /// (spgemm_vs_speck_h100.md: 3elt, crack, fe_4elt2, whitaker3 slower with streams).
  static constexpr int concurrent_min_kernels = 3;
  /// Host work of a small call: counters read back through pinned memory, one memset instead of
  /// three, the free-memory query only when C's bound or global tables could approach it.
  static constexpr bool lean_host = true;
  /// The budget is taken as `assumed_budget` without asking the driver when a call's bound on C
  /// and workspace stays below `small_need` and no row needs a global-memory table.
  static constexpr std::size_t small_need = std::size_t(64) << 20;
  static constexpr std::size_t assumed_budget = std::size_t(1) << 30;
  /// Rows up to this many products go to the partial-warp bins (0 or 32: pwarp only; 64: and
  /// pwarp2; 128: and pwarp3). Off by default: on an H100 (session 5, round 1,
  /// spgemm_s5_round1_h100.md) the wide bins made mesh matrices faster (fe_4elt2 0.194 -> 0.134
  /// ms, whitaker3 0.170 -> 0.136, 3elt 0.153 -> 0.130) but every matrix that also has block
  /// rows slower (G51 0.108 -> 0.223, hep-th 0.143 -> 0.190, fidapex6 0.129 -> 0.170): geomean
  /// time / spECK 1.102 off against 1.226 with 128 and 1.125 with 64.
  /// Session 10: 128 with wide_pwarp_alone (round 7, new-both-r3: geomean time / spECK 0.967
  /// against 1.006 for the session-9 defaults, spgemm_vs_speck_s9r7_h100.md).
  static constexpr int wide_pwarp = 128;
  /// ... and only when no row needs a block or the global bin (tuning::wide_pwarp_alone): the
  /// meshes keep the wide bins' gains, matrices with block rows run as without them (session 8;
  /// off until measured).
  static constexpr bool wide_pwarp_alone = true;
  /// Hash rows of the block bins with at least this many outputs are ordered by bucket rank
  /// (bucket_sort_table) instead of compaction and a bitonic sort; 0: off (session 8, until
  /// measured). A bucket holds about `bucket_entries` entries (nnz / bucket_entries buckets of
  /// equal width over the row's column span, at most `bucket_hist` per thread); a row with a
  /// bucket of more than `bucket_limit` entries (clustered columns) takes the bitonic sort after
  /// all. Row statistics of C = A·A (session 8, host program over the SNAP files): in
  /// soc-Epinions1's hash rows of bins 0-4 (33M outputs) a bucket averages 43.6 entries per
  /// entry (sum of squares / outputs) with nnz/4 buckets and 14.7 with nnz buckets, and with nnz
  /// buckets 22064 / 6561 / 626 of its 48635 rows have one of more than 32 / 64 / 128 entries;
  /// wiki-Vote 2.8 and none over 32, p2p-Gnutella31 4.0, CA-HepTh 2.1. Used where the table has
  /// at most `bucket_slots` slots per thread (bins 0-4), which each thread holds in registers.
  static constexpr int bucket_sort_min = 1;  // session 10: on (new-both-r3)
  static constexpr int bucket_entries = 1;
  static constexpr int bucket_limit = 64;
  static constexpr int bucket_slots = 8;
  static constexpr int bucket_hist = 4;
  /// ... and only for rows of at most this many products per output (0: any), and a bin's
  /// launch takes the bucket kernel only when at least half its rows do (the others sort in it
  /// as without buckets, but the kernel is heavier: more registers and shared memory). Session 9:
  /// bench rows new-bucket-r2/-r3/-r4, off until measured (the gains and losses by ratio are in
  /// takes_buckets, agent.cuh).
  static constexpr double bucket_max_ratio = 3;  // session 10: new-both-r3
  /// Calls of 1 .. fused_scan_rows rows scan C's row counts and classify the numeric rows in one
  /// single-block kernel (k_scan_classify) instead of cub's two scan kernels plus
  /// k_classify_numeric: 2 launches fewer for small inputs (round 5's traces: scan +
  /// classification ~15 us of a 72-200 us call). 0: off (session 8, until measured).
  static constexpr int fused_scan_rows = 4096;  // session 10 (new-lean10)
  /// Partial-warp rows of few A entries: 1 spreads each entry's B row over several of the
  /// group's threads (pwarp_lanes, agent.cuh) instead of one thread per A entry; 2 also walks
  /// rows of at most a group of entries flat (for_each_pwarp_product). 0: off until
  /// measured (session 9: bench rows new-split, new-flat, new-alone128-flat,
  /// new-wide128-flat).
  static constexpr int pwarp_split = 0;
  /// Calls of 1 .. sync_free_rows rows launch the symbolic phase without reading the analysis'
  /// counters first (host sync 1 of the two a call takes; notes, "Round 8"): one persistent kernel
  /// (k_symbolic_small) takes the rows of the partial-warp bins and block bins up to
  /// `small_block_bins` - 1 in 256-thread blocks, reading the bins' counts on the device; a call
  /// with a row in a larger bin or the global bin redoes the plan with the sync (rare below a few
  /// thousand rows). 0: off (session 10, until measured).
  /// Session 10: 16384 with one_workspace and fused_scan_rows 4096 (new-lean10: geomean time /
  /// spECK 0.815, slower on 3 of 23, against 0.934 and 8 synced; wiki-Vote and facebook_combined,
  /// with many rows in block bins 3-4, lose ~35% to the synced path: sync_free_big_grid is the
  /// measured alternative, 0.849).
  static constexpr int sync_free_rows = 16384;
  static constexpr int small_block_bins = 5;  // tables up to 8192 keys = 32 KiB of shared memory
  /// ... of which it takes block bins 0 .. sync_free_bins - 1 (1-5; tuning::sync_free_bins):
  /// rows of bins 3-4 get 256 threads in it instead of 512-1024 (bcsstk13/16, rajat01, wiki-Vote,
  /// facebook have 100s to 1000s of them), rows past it rerun the symbolic phase with the sync.
  static constexpr int sync_free_bins = small_block_bins;
  /// ... and with sync_free_big_grid > 0 the block bins from sync_free_bins up to the one before
  /// the last run right after it on the same stream in their own kernels (k_symbolic_block: 512 /
  /// 1024 threads for bins 3 / 4 instead of k_symbolic_small's 256), with a fixed grid of SMs x
  /// min(sync_free_big_grid, resident blocks) walking the bin's rows grid-stride, their count read
  /// on the device: no rerun for them (session 10: sync_free_bins 5 cost wiki-Vote 0.82 -> 1.09
  /// ms, facebook 0.44 -> 0.61; 3 made G51, fidapex6, bcsstk13 pay the rerun). 0: off (until
  /// measured: bench rows new-nosync2, new-lean11).
  static constexpr int sync_free_big_grid = 0;
  /// The plan's counters, row products, row ranges and bin lists in one pool allocation instead
  /// of four (C's row pointers stay apart: they become C's). false: off (session 10).
  static constexpr bool one_workspace = true;  // session 10 (new-lean10)

  // Session 11 (issue 14: bayer10, wiki-Vote, facebook; notes, "Round 9"): new-lean12g16, the
  // defaults since its H100 call (geomean time / spECK 0.700 against 0.777 for session 10's
  // defaults in the same call; bayer10 0.86, wiki-Vote 0.78; spgemm_vs_speck_s11_h100.md).
  /// Threads per block of the partial-warp launches (k_numeric_pwarp, synced k_symbolic_pwarp;
  /// tuning::pwarp_threads): 64, 128 or 256; 0: per launch the largest of 256 / 128 / 64 whose
  /// grid still gives every SM `pwarp_min_waves` blocks (else 64). Session 10's ncu of bayer10:
  /// k_numeric_pwarp 57-63 us and k_symbolic_pwarp 35-37 us, each 121 blocks of 256 threads for
  /// 132 SMs (7711 rows: one partial wave, 11 SMs idle, one block per SM); with 64 threads 482
  /// blocks spread over every SM. The kernels' shared memory stays sized for 256 threads (24 /
  /// 8 KiB), which caps a 64-thread block at 9 per SM: enough for the grids 0 picks them for.
  static constexpr int pwarp_threads = 0;
  static constexpr int pwarp_min_waves = 2;
  /// The pwarp bin's rows (at most pwarp_table products) take a wide bin's shape
  /// (`pwarp_spread_group` threads per row: pwarp2's 8 with 64 slots, or pwarp3's 16 with 128; B
  /// rows spread over lanes as pwarp_split 1) in the numeric phase and the synced symbolic phase
  /// when the bin has at most this many rows per SM (tuning::pwarp_spread; 0: never). Session 11's
  /// ncu of bayer10 (main eb861e0): k_numeric_pwarp 56 us for 7711 rows of <= 32 products, 5 warps
  /// per SM, 0.44 instructions per cycle, ~2.8K instructions per warp each ~19 cycles apart: the
  /// rows' serial chains (products and the ranking loop, entries x entries / group per thread),
  /// not the SMs left idle. A wider group cuts each thread's share of both by 2 / 4. Same kernels
  /// as the wide bins. Not in k_symbolic_small (its pwarp items share the persistent grid;
  /// symbolic_small_item).
  static constexpr int pwarp_spread = 128;
  static constexpr int pwarp_spread_group = pwarp3_group;
  /// Threads per block of k_symbolic_small (tuning::sync_free_threads): 256, or for 32-bit indices
  /// 512 (32 registers either way under ptxas, so 4 resident blocks = 2048 threads per SM against
  /// 256's 6 = 1536 at 36 registers; 64-bit indices keep 256: 55 registers at 512). Rows of block
  /// bins 1-4 then get 512 threads each (as the synced bin 3), block bin 0 and the pwarp bins
  /// twice the rows per item. Session 10: the sync-free path cost wiki-Vote 0.82 -> 1.09 ms and
  /// facebook 0.44 -> 0.61, whose many rows of bins 3-4 ran at 256 threads per row instead of 512
  /// / 1024 and at 3/4 of the synced k_symbolic_block's 2048 threads per SM (32 registers).
  static constexpr int sync_free_threads = 512;
};

}  // namespace ringblas::cuda::spgemm_hash
