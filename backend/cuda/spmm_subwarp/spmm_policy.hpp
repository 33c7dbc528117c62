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
  /// Mean row length from which single SpMM uses the nnz-split mapping (skewed graphs: SNAP
  /// wiki-Vote / soc-Epinions1 in bench_spmm; Gnutella, mean 2.4, stays on rows).
  static constexpr double split_mean_row = 4.0;
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
  /// The automatic choice (spmm_subwarp::relative_cost) takes spmm_rowsplit for a mean row below
  /// this (the nnz-split spmm_subwarp was ahead on wiki-Vote, 12.5, and soc-Epinions1, 10.7) ...
  static constexpr double rowsplit_max_mean_row = 8.0;
  /// ... unless n_B >= 128 and C has more than this many elements (bandwidth bound: spmm_subwarp
  /// ahead on PubMed and p2p-Gnutella31 from n_B = 128; rowsplit ahead on Cora up to n_B = 512).
  static constexpr double rowsplit_max_wide_output = double(1 << 21);
  /// spmm_subwarp's nnz-split kernel (spmm_nnzsplit_impl.cuh): runs of L nonzeros per sub-warp,
  /// L a power of two from nnzsplit_min_run to nnzsplit_max_run, the longest that still launches
  /// nnzsplit_threads_per_sm threads per SM (a few waves: short runs shorten the longest chain of
  /// dependent loads, long runs cut the rows that cross a run boundary and go through atomics).
  static constexpr int nnzsplit_min_run = 16;
  static constexpr int nnzsplit_max_run = 2048;
  static constexpr int nnzsplit_threads_per_sm = 4 * 2048;
  /// Vectors of B columns per lane: 2 covers n_B = 256 (fp32) in one pass over A instead of two
  /// column chunks.
  static constexpr int nnzsplit_max_vectors = 2;
  /// Nonzeros whose B rows are loaded back to back before they are combined.
  static constexpr int nnzsplit_unroll = 4;
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

/// The nnz-split kernel's shape: subwarp_shape's sub-warp, each thread holding up to `max_nv`
/// vectors (columns lane x vec + j x sub-warp x vec), so that one column chunk covers up to
/// 32 x vec x max_nv columns.
inline SubwarpShape nnzsplit_shape(long long n_cols, int vec, int max_nv = SpmmPolicy::nnzsplit_max_vectors) {
  SubwarpShape s = subwarp_shape(n_cols, vec);
  const long long vectors = (n_cols + vec - 1) / vec;
  while (s.nv < max_nv && (1ll << s.log_sw) * s.nv < vectors) s.nv *= 2;
  s.chunk_cols = (1 << s.log_sw) * vec * s.nv;
  s.chunks = static_cast<int>((n_cols + s.chunk_cols - 1) / s.chunk_cols);
  if (s.chunks < 1) s.chunks = 1;
  return s;
}

/// The nnz-split run length (SpmmPolicy::nnzsplit_*): the longest power of two that still
/// launches nnzsplit_threads_per_sm threads per SM for `nnz` nonzeros in `shape`.
inline int nnzsplit_run_length(long long nnz, const SubwarpShape& shape, int sm_count) {
  const double lanes = double(1 << shape.log_sw) * double(shape.chunks);
  const double target = double(sm_count > 0 ? sm_count : 1) * SpmmPolicy::nnzsplit_threads_per_sm;
  int L = SpmmPolicy::nnzsplit_min_run;
  while (L < SpmmPolicy::nnzsplit_max_run && double(nnz) / (2.0 * L) * lanes >= target) L *= 2;
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
