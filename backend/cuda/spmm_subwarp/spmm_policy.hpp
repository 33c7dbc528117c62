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
  /// spmm_rowsplit: a column chunk is narrowed until the slice of B it gathers (k rows x chunk
  /// columns) fits in this fraction of L2, so that B rows read for one output row are still in L2
  /// for the next (soc-Epinions1 at n_B >= 128: 128 columns = 39 MB, 64 = 19 MB of a 50 MB L2).
  static constexpr double rowsplit_l2_fraction = 0.5;
  /// ... but never below this many lanes per sub-warp.
  static constexpr int rowsplit_min_log_sw = 3;
  /// spmm_rowsplit's code knobs: __launch_bounds__ minimum blocks per SM (caps registers) and
  /// B-row loads in flight per thread (bench_spmm: kernel_rowsplit_L64_minblocks<n>, _unroll<n>).
  static constexpr int rowsplit_min_blocks = 1;
  static constexpr int rowsplit_unroll = 8;
};

/// How one CSR launch maps threads: a sub-warp of 2^log_sw threads per (row, column chunk);
/// each thread owns `vec` consecutive columns (vectorized 16-byte loads when vec > 1).
struct SubwarpShape {
  int log_sw = 0;
  int vec = 1;
  int chunk_cols = 1;  ///< sub-warp width times vec
  int chunks = 1;      ///< column chunks (grid y)
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

/// spmm_rowsplit's block size: the largest of 256, 128, 64 threads that still gives every SM two
/// blocks (small graphs at small n_B: Cora at n_B = 16 has 43 blocks of 256 for 132 SMs).
inline int rowsplit_block_threads(long long m, int log_sw, int sm_count) {
  int threads = SpmmPolicy::block_threads;
  while (threads > 64 && ((m << log_sw) + threads - 1) / threads < 2ll * sm_count) threads /= 2;
  return threads;
}

/// spmm_rowsplit's shape: subwarp_shape(n_cols, vec), with fewer lanes (and so more column
/// chunks, grid y, which run one after the other) while k x chunk_cols values of `value_bytes`
/// exceed `l2_share` bytes.
inline SubwarpShape rowsplit_shape(long long n_cols, int vec, long long k, int value_bytes,
                                   double l2_share) {
  SubwarpShape s = subwarp_shape(n_cols, vec);
  while (s.log_sw > SpmmPolicy::rowsplit_min_log_sw &&
         double(k) * double(s.chunk_cols) * value_bytes > l2_share) {
    --s.log_sw;
    s.chunk_cols = (1 << s.log_sw) * vec;
    s.chunks = static_cast<int>((n_cols + s.chunk_cols - 1) / s.chunk_cols);
  }
  return s;
}

}  // namespace ringblas::cuda::detail
