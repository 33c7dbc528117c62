// Tuning constants of the spmm_subwarp and spmm_batched families and the shapes they launch with.
// Defaults checked (not swept) with tests/bench/bench_spmm on an H100 and an H200 (the paper's
// batched configurations, Tox21, Cora/PubMed/SNAP single SpMM); each constant says what it trades.
#pragma once
#include <cstdint>

namespace ringblas::cuda::detail {

struct SpmmPolicy {
  /// Threads per block of the row-per-sub-warp kernels: 256 keeps 8 blocks per SM resident with
  /// room for the register accumulators.
  static constexpr int block_threads = 256;
  /// Widest sub-warp: a full warp covers 32 vectors of columns.
  static constexpr int max_subwarp = 32;
  /// Shared memory a batched COO block may use for its output tile (default limit, no opt-in).
  static constexpr int coo_shared_bytes = 48 * 1024;
  /// Mean row length from which spmm_subwarp uses the nnz-split mapping: H100 2026-11-23 (s4
  /// round 1) the nnz-split kernel was ahead of the row mapping on Cora (mean 3.9: 9.6 vs 18.7 us
  /// at n_B = 64) and every larger mean; p2p-Gnutella31 (2.4) stays on rows.
  static constexpr double split_mean_row = 3.0;
  /// spmm_rowsplit: rows longer than this are shared by every sub-warp of their block (issue
  /// 14; bench_spmm sweeps it as ringblas_rowsplit_kernel_L<n>).
  static constexpr int long_row = 64;
  /// spmm_rowsplit's code knobs: __launch_bounds__ minimum blocks per SM (caps registers) and
  /// B-row loads in flight per thread (bench_spmm: kernel_rowsplit_L64_minblocks<n>, _unroll<n>).
  /// H100 2026-11-23: <4, 4> was ahead of <1, 8> (80 registers, 3 blocks per SM) on every graph
  /// at n_B >= 64 (PubMed n_B = 512: 88 / 92 vs 101 us) and at n_B = 16 (wiki-Vote 46 vs 69 us).
  static constexpr int rowsplit_min_blocks = 4;
  static constexpr int rowsplit_unroll = 4;
  /// spmm_rowsplit's largest block: 128 threads was ahead of 256 on the larger graphs (PubMed
  /// n_B = 512: 81 vs 101 us, soc-Epinions1: 484 vs 661 us).
  static constexpr int rowsplit_max_block = 128;
  /// spmm_rowsplit loads B one column per lane (no 16-byte vectors) up to this n_B (0: never).
  static constexpr int rowsplit_scalar_max_cols = 0;
  /// The automatic choice (spmm_subwarp::relative_cost) takes spmm_rowsplit only for a mean row
  /// below this and n_B up to rowsplit_max_cols (not yet measured against the s4 nnz-split
  /// kernel there); from n_B = 64 the nnz-split spmm_subwarp was ahead on every graph of
  /// bench_spmm (H100 2026-11-23, s4 round 1: Cora 9.6 vs 12.6 us at n_B = 64, PubMed 16.2 vs
  /// 23.4, soc-Epinions1 61 vs 206).
  static constexpr double rowsplit_max_mean_row = 8.0;
  static constexpr long long rowsplit_max_cols = 16;
  /// spmm_subwarp's nnz-split kernel (spmm_nnzsplit_impl.cuh): runs of L nonzeros per sub-warp,
  /// L a power of two from nnzsplit_min_run to nnzsplit_max_run, the longest that still launches
  /// nnzsplit_threads_per_sm threads per SM (about one wave). H100 s4 round 1: runs that gave
  /// 4 x 2048 threads per SM were 10-25% slower than ones giving about one wave (soc-Epinions1
  /// n_B = 128: L 16 115 us, L 64 96 us; R-MAT 20 n_B = 16: L 64 600 us, L 256 554 us): short
  /// runs mean more rows crossing a run boundary (atomics) and more searches.
  static constexpr int nnzsplit_min_run = 16;
  static constexpr int nnzsplit_max_run = 2048;
  static constexpr int nnzsplit_threads_per_sm = 2048;
  /// Tiny products (under this many threads per SM with the shortest run) take runs of 8: more
  /// sub-warps for a latency-bound call (Cora n_B = 64: L 8 9.6 us, L 16 11.5 us).
  static constexpr int nnzsplit_tiny_threads_per_sm = 512;
  /// Small products (nnzsplit_run_length's `one_wave_small`; s8 model, not yet the default):
  /// where even the shortest run gives under nnzsplit_threads_per_sm threads per SM and chunk
  /// (the latency-bound calls: Cora, PubMed), the shortest run from 8 whose launch, all column
  /// chunks together, stays within this fraction of one resident wave (nnzsplit_min_blocks
  /// blocks of block_threads per SM: 135k threads on an H100). From the s4 round-3 sweep (H100
  /// us): a launch of 1.3 resident waves lost to one of 0.65 every time it was measured (PubMed
  /// n_B = 64 L 8 / 16: 19.4 / 16.6; n_B = 128 L 16 / 32: 22.3 / 20.4; n_B = 512 L 64 / 128:
  /// 59.8 / 56.3 (L 16, today's choice, 61.4); Cora n_B = 256 L 4 / 8: 14.4 / 12.2, n_B = 512
  /// L 8 / 16: 16.1 / 14.2), and Cora at n_B <= 128 was flat from 0.15 to 0.6 waves. The one
  /// measurement against it: PubMed n_B = 256 L 64 34.9 vs L 16 33.8 (2.6 waves).
  static constexpr bool nnzsplit_one_wave_small = false;
  static constexpr double nnzsplit_small_wave_fill = 0.7;
  /// Vectors of B columns per lane: 1 (s4 round 1: two vectors, n_B = 256 in one pass, was
  /// 10-40% slower than column chunks of 128 on every graph: 93 registers, 2 blocks per SM, and
  /// twice the B row bytes per nonzero for L1 to hold; R-MAT 20 n_B = 256: 7113 vs 5752 us).
  static constexpr int nnzsplit_max_vectors = 1;
  /// Widest sub-warp of the nnz-split kernel (columns per chunk = this x 4 in fp32).
  static constexpr int nnzsplit_max_lanes = 32;
  /// Nonzeros whose B rows are loaded back to back before they are combined (s4 round 3: 2 was
  /// 5-10% slower at n_B >= 128 on soc-Epinions1 and R-MAT 20).
  static constexpr int nnzsplit_unroll = 4;
  /// Two s11 options were removed in s12 after losing wherever they were launched as the library
  /// would (H100; only pipelining with other register limits came within noise, 1-7%, of the
  /// default on Cora n_B = 64 / 128, and lost 2-14% on PubMed and soc-Epinions1;
  /// spmm_single_s11_h100.md, spmm_single_s12_h100.md, tests/bench/results/spmm_notes.md):
  /// software-pipelined B loads through the read-only path (s11 soc-Epinions1 n_B = 512 317.8
  /// us against 265.2, PubMed 64 16.1 against 14.6) and a one-pass kernel without row pass that
  /// handed crossing rows on by a flag handshake (PubMed 64 23.8 us against 14.6, Cora 64 15.7
  /// against 8.7: the per-run search and the handshake cost more than the row pass). Both are
  /// in git history (s11).
  /// Fewer instructions per nonzero (s11, on: H100 s11, faster on 11 of 12 configurations, 5-10%
  /// on PubMed and soc-Epinions1, Cora 64 8.9 against 8.7 us; bench rows ..._lean): ncu s11
  /// (soc-Epinions1 n_B = 64) has the kernel issuing on 58% of cycles, ALU the busiest pipe,
  /// about 30 warp instructions per nonzero. Plus-monoid sums start from -0 (the same sums: see
  /// RowAgent::neutral_start), so a product is one FFMA instead of FMUL + FADD + select per
  /// column, B's row offset is a 32 x 32 -> 64-bit multiply, and whole rounds of loads skip
  /// the bound test per nonzero.
  static constexpr bool nnzsplit_lean = true;
  /// __launch_bounds__ minimum blocks per SM of the nnz-split kernel (caps registers): 4 gives
  /// 64 registers without spills (fp32; left to itself ptxas took 75), 5 gives 48 with a few
  /// spills, 6 gives 40: both slower in s4 round 3 (R-MAT 20 n_B = 16: 540 / 681 / 713 us).
  static constexpr int nnzsplit_min_blocks = 4;
  /// The nnz-split launch's two knobs that change no code (NnzsplitOptions; bench_spmm rows
  /// kernel_nnzsplit_L<L>_overlap / _runrows / _overlap_runrows). On since s9: on an H100 the
  /// two together were the fastest launch at 11 of the 12 target configs (spmm_single_s9_h100.md:
  /// PubMed n_B = 64 18.1 -> 15.0 us, 512 65.7 -> 54.4; soc-Epinions1 n_B = 512 290.8 -> 265.0;
  /// Cora n_B = 64 within noise, 11.6 -> 11.9, overlap alone 10.4).
  static constexpr bool nnzsplit_overlap = true;
  static constexpr bool nnzsplit_run_rows = true;
};

/// How the nnz-split kernel meets its row pass (nnzsplit_rows_kernel, which runs before it):
/// - `overlap`: the kernel is launched as the row pass's programmatic dependent (sm_90,
///   common/dependent_launch.cuh): its run's row search and first index loads overlap the row
///   pass, and it waits for that pass before its first store to C (the pass sets crossing rows
///   to the identity, which the kernel's atomics need).
/// - `run_rows`: device scratch of (nnz + L - 1) / L ints; the row pass writes there the row of
///   each run's first nonzero (it reads every row's bounds anyway) and the kernel reads it
///   instead of its (sub-warp + 1)-ary search (about log_17(m) dependent loads: 4 on PubMed).
///   With `overlap` the kernel waits for the pass before reading it. nullptr: search.
struct NnzsplitOptions {
  bool overlap = false;
  std::int32_t* run_rows = nullptr;
};

/// How one CSR launch maps threads: a sub-warp of 2^log_sw threads per (row, column chunk);
/// each thread owns `vec` consecutive columns (vectorized 16-byte loads when vec > 1).
struct SubwarpShape {
  int log_sw = 0;
  int vec = 1;
  int chunk_cols = 1;  ///< sub-warp width times vec
  int chunks = 1;      ///< column chunks (grid y)
  int nv = 1;          ///< vectors per thread, sub-warp width x vec apart (nnz-split kernel)
};

/// Sub-warp shape of the paper: the smallest power of two >= n_B columns (in vectors), at most
/// 32; wider B is split into column chunks.
inline SubwarpShape subwarp_shape(long long n_cols, int vec) {
  SubwarpShape s;
  s.vec = vec;
  const long long vectors = (n_cols + vec - 1) / vec;
  while ((1ll << s.log_sw) < vectors && (1 << s.log_sw) < SpmmPolicy::max_subwarp) ++s.log_sw;
  s.chunk_cols = (1 << s.log_sw) * vec;
  s.chunks = static_cast<int>((n_cols + s.chunk_cols - 1) / s.chunk_cols);
  if (s.chunks < 1) s.chunks = 1;
  return s;
}

/// The nnz-split kernel's shape: a sub-warp of the smallest power of two lanes covering n_B in
/// vectors, at most `max_lanes`; each thread holding up to `max_nv` vectors (columns lane x vec +
/// j x sub-warp x vec), so that one column chunk covers up to max_lanes x vec x max_nv columns.
inline SubwarpShape nnzsplit_shape(long long n_cols, int vec, int max_nv = SpmmPolicy::nnzsplit_max_vectors,
                                   int max_lanes = SpmmPolicy::nnzsplit_max_lanes) {
  SubwarpShape s;
  s.vec = vec;
  const long long vectors = (n_cols + vec - 1) / vec;
  while ((1ll << s.log_sw) < vectors && (1 << s.log_sw) < max_lanes) ++s.log_sw;
  while (s.nv < max_nv && (1ll << s.log_sw) * s.nv < vectors) s.nv *= 2;
  s.chunk_cols = (1 << s.log_sw) * vec * s.nv;
  s.chunks = static_cast<int>((n_cols + s.chunk_cols - 1) / s.chunk_cols);
  if (s.chunks < 1) s.chunks = 1;
  return s;
}

/// The nnz-split run length (SpmmPolicy::nnzsplit_*): the longest power of two that still
/// launches nnzsplit_threads_per_sm threads per SM for each column chunk of `shape` (H100 s4
/// round 3: counting all chunks together gave runs twice too long at n_B = 256 / 512, e.g.
/// soc-Epinions1 n_B = 256 L 128 170 us vs L 64 159 us, n_B = 512 L 256 317 vs L 128 286; R-MAT
/// 20 n_B = 256 L 2048 5613 vs L 1024 5568); half the shortest for a tiny product (all chunks
/// counted).
/// `one_wave_small`: SpmmPolicy::nnzsplit_one_wave_small's rule for the products that the
/// shortest run does not fill (what bench_spmm's kernel_nnzsplit_wave_L<n> rows launch).
inline int nnzsplit_run_length(long long nnz, const SubwarpShape& shape, int sm_count,
                               bool one_wave_small = SpmmPolicy::nnzsplit_one_wave_small) {
  const double lanes = double(1 << shape.log_sw);
  const double sms = double(sm_count > 0 ? sm_count : 1);
  int L = SpmmPolicy::nnzsplit_min_run;
  if (one_wave_small &&
      double(nnz) / (2.0 * L) * lanes < sms * SpmmPolicy::nnzsplit_threads_per_sm) {
    const double wave = sms * SpmmPolicy::nnzsplit_min_blocks * SpmmPolicy::block_threads;
    const auto threads = [&](int run) {
      return double((nnz + run - 1) / run) * lanes * shape.chunks;
    };
    int run = L / 2;
    while (run < SpmmPolicy::nnzsplit_max_run &&
           threads(run) > SpmmPolicy::nnzsplit_small_wave_fill * wave)
      run *= 2;
    return run;
  }
  if (double(nnz) / L * lanes * shape.chunks < sms * SpmmPolicy::nnzsplit_tiny_threads_per_sm) return L / 2;
  while (L < SpmmPolicy::nnzsplit_max_run &&
         double(nnz) / (2.0 * L) * lanes >= sms * SpmmPolicy::nnzsplit_threads_per_sm)
    L *= 2;
  return L;
}

/// spmm_rowsplit's block size: the largest of 128 and 64 threads that still gives every SM two
/// blocks (small graphs at small n_B: Cora at n_B = 16 has 85 blocks of 128 for 132 SMs).
inline int rowsplit_block_threads(long long m, int log_sw, int sm_count) {
  int threads = SpmmPolicy::rowsplit_max_block;
  while (threads > 64 && ((m << log_sw) + threads - 1) / threads < 2ll * sm_count) threads /= 2;
  return threads;
}

}  // namespace ringblas::cuda::detail
