// The launch-shape rules of spmm_rowsplit and of spmm_subwarp's nnz-split kernel
// (backend/cuda/spmm_subwarp/spmm_policy.hpp), checked on the host with the sizes of the graphs
// bench_spmm measures (issue 14).
#include <gtest/gtest.h>

#include "backend/cuda/spmm_subwarp/spmm_policy.hpp"

namespace ringblas::cuda::detail {
namespace {

TEST(SpmmRowsplitPolicy, BlockSizeKeepsTwoBlocksPerSm) {
  // Cora at n_B = 16 (4 lanes per row): 2708 rows x 4 lanes = 85 blocks of 128, 170 of 64 for
  // 132 SMs.
  EXPECT_EQ(rowsplit_block_threads(2708, 2, 132), 64);
  // Cora at n_B = 64 (16 lanes): 339 blocks of 128 are two per SM.
  EXPECT_EQ(rowsplit_block_threads(2708, 4, 132), 128);
  // soc-Epinions1: plenty of rows, the largest block.
  EXPECT_EQ(rowsplit_block_threads(75879, 4, 132), SpmmPolicy::rowsplit_max_block);
  // Nothing smaller than 64 threads, even for one row.
  EXPECT_EQ(rowsplit_block_threads(1, 0, 132), 64);
}

}  // namespace
}  // namespace ringblas::cuda::detail

namespace ringblas::cuda::detail {
namespace {

TEST(SpmmNnzsplitPolicy, VectorsPerLaneCoverWideB) {
  // The library's shape: one vector of 4 columns per lane, column chunks of 128 (fp32).
  const SubwarpShape lib = nnzsplit_shape(256, 4);
  EXPECT_EQ(1 << lib.log_sw, 32);
  EXPECT_EQ(lib.nv, SpmmPolicy::nnzsplit_max_vectors);
  EXPECT_EQ(lib.chunks, 256 / lib.chunk_cols);
  // Two vectors per lane: n_B = 256 in one pass over A.
  const SubwarpShape w256 = nnzsplit_shape(256, 4, 2);
  EXPECT_EQ(1 << w256.log_sw, 32);
  EXPECT_EQ(w256.nv, 2);
  EXPECT_EQ(w256.chunk_cols, 256);
  EXPECT_EQ(w256.chunks, 1);
  // n_B = 512: two chunks of 256 with two vectors, four with one, one with four.
  EXPECT_EQ(nnzsplit_shape(512, 4, 2).chunks, 2);
  EXPECT_EQ(nnzsplit_shape(512, 4, 1).chunks, 4);
  EXPECT_EQ(nnzsplit_shape(512, 4, 4).chunks, 1);
  // Narrow B: one vector per lane, sub-warp of n_B / 4 lanes.
  const SubwarpShape w16 = nnzsplit_shape(16, 4, 2);
  EXPECT_EQ(1 << w16.log_sw, 4);
  EXPECT_EQ(w16.nv, 1);
  // 136 columns (34 vectors): 32 lanes, the second vector of two lanes in use.
  const SubwarpShape w136 = nnzsplit_shape(136, 4, 2);
  EXPECT_EQ(w136.nv, 2);
  EXPECT_EQ(w136.chunks, 1);
  // Sub-warps of at most 16 lanes: 64-column chunks.
  const SubwarpShape narrow = nnzsplit_shape(256, 4, 1, 16);
  EXPECT_EQ(1 << narrow.log_sw, 16);
  EXPECT_EQ(narrow.chunk_cols, 64);
  EXPECT_EQ(narrow.chunks, 4);
  // Scalar path, 7 columns: 8 lanes of one column.
  const SubwarpShape w7 = nnzsplit_shape(7, 1);
  EXPECT_EQ(1 << w7.log_sw, 8);
  EXPECT_EQ(w7.nv, 1);
  EXPECT_EQ(w7.chunk_cols, 8);
}

TEST(SpmmNnzsplitPolicy, RunLengthFillsTheGpuAboutOncePerChunk) {
  // The GCN's R-MAT scale-20 propagation (32.45M nonzeros) on 132 SMs: n_B = 16 (4 lanes)
  // runs of 256, launching >= 2048 threads per SM and chunk; n_B = 256 (32 lanes, 2 chunks)
  // the longest run (H100 sweep: both within 2% of the fastest run, 1024 at both widths).
  const long long rmat20 = 32451678;
  EXPECT_EQ(nnzsplit_run_length(rmat20, nnzsplit_shape(16, 4), 132), 256);
  EXPECT_EQ(nnzsplit_run_length(rmat20, nnzsplit_shape(256, 4), 132), SpmmPolicy::nnzsplit_max_run);
  for (int n : {16, 64, 256})
    for (int sms : {114, 132}) {
      const SubwarpShape s = nnzsplit_shape(n, 4);
      const int L = nnzsplit_run_length(rmat20, s, sms);
      EXPECT_GE(double(rmat20) / L * double(1 << s.log_sw), double(sms) * SpmmPolicy::nnzsplit_threads_per_sm);
      if (L < SpmmPolicy::nnzsplit_max_run)
        EXPECT_LT(double(rmat20) / (2.0 * L) * double(1 << s.log_sw),
                  double(sms) * SpmmPolicy::nnzsplit_threads_per_sm);
    }
  // soc-Epinions1 (811k nonzeros): runs of 32 at n_B = 64 and of 64 at n_B = 128 and 256 (the
  // fastest of the sweep), 64 at n_B = 512 (the sweep: 128 ahead of 256, 512, 1024).
  EXPECT_EQ(nnzsplit_run_length(811480, nnzsplit_shape(64, 4), 132), 32);
  EXPECT_EQ(nnzsplit_run_length(811480, nnzsplit_shape(128, 4), 132), 64);
  EXPECT_EQ(nnzsplit_run_length(811480, nnzsplit_shape(256, 4), 132), 64);
  EXPECT_EQ(nnzsplit_run_length(811480, nnzsplit_shape(512, 4), 132), 64);
  // Tiny products (Cora, 10.6k nonzeros, at n_B = 64): runs of 8.
  EXPECT_EQ(nnzsplit_run_length(10556, nnzsplit_shape(64, 4), 132), SpmmPolicy::nnzsplit_min_run / 2);
  // PubMed (88.6k nonzeros) at n_B = 64 is not tiny: the shortest run.
  EXPECT_EQ(nnzsplit_run_length(88648, nnzsplit_shape(64, 4), 132), SpmmPolicy::nnzsplit_min_run);
  // Never past the longest run, even for a huge matrix.
  EXPECT_EQ(nnzsplit_run_length(1ll << 40, nnzsplit_shape(512, 4), 132, true),
            SpmmPolicy::nnzsplit_max_run);
  EXPECT_EQ(nnzsplit_run_length(1ll << 40, nnzsplit_shape(512, 4), 132), SpmmPolicy::nnzsplit_max_run);
}

TEST(SpmmNnzsplitPolicy, OneWaveRuleForSmallProducts) {
  // SpmmPolicy::nnzsplit_one_wave_small's rule (forced here): the products the shortest run
  // does not fill take the shortest run from 8 whose launch stays within 0.7 of one resident
  // wave (132 SMs x 4 blocks x 256 = 135k threads), all column chunks counted.
  const auto L = [](long long nnz, int n) {
    return nnzsplit_run_length(nnz, nnzsplit_shape(n, 4), 132, true);
  };
  // PubMed (88.6k nonzeros): 16 lanes at n_B = 64, 32 lanes and 1 / 2 / 4 chunks above; each
  // launch is 88.7k threads, where the H100 sweep had its fastest (or within 3%) run.
  EXPECT_EQ(L(88648, 64), 16);
  EXPECT_EQ(L(88648, 128), 32);
  EXPECT_EQ(L(88648, 256), 64);
  EXPECT_EQ(L(88648, 512), 128);
  // Cora (10.6k nonzeros): 8 up to n_B = 256, 16 at 512 (4 chunks), as the default gives.
  for (int n : {64, 128, 256}) EXPECT_EQ(L(10556, n), 8) << n;
  EXPECT_EQ(L(10556, 512), 16);
  // soc-Epinions1 and R-MAT 20 fill the GPU with the shortest run: the default rule's runs.
  for (int n : {64, 128, 256, 512}) {
    EXPECT_EQ(L(811480, n), nnzsplit_run_length(811480, nnzsplit_shape(n, 4), 132, false)) << n;
    EXPECT_EQ(L(32451678, n), nnzsplit_run_length(32451678, nnzsplit_shape(n, 4), 132, false)) << n;
  }
  // Every small launch within the bound, and the next shorter run (from 8) above it.
  for (long long nnz : {1ll, 100ll, 10556ll, 50000ll, 88648ll, 103689ll})
    for (int n : {4, 16, 64, 128, 256, 512}) {
      const SubwarpShape s = nnzsplit_shape(n, 4);
      const int run = L(nnz, n);
      const double wave = 132.0 * SpmmPolicy::nnzsplit_min_blocks * SpmmPolicy::block_threads;
      const auto threads = [&](int r) {
        return double((nnz + r - 1) / r) * double(1 << s.log_sw) * s.chunks;
      };
      EXPECT_LE(threads(run), SpmmPolicy::nnzsplit_small_wave_fill * wave) << nnz << " " << n;
      if (run > SpmmPolicy::nnzsplit_min_run / 2)
        EXPECT_GT(threads(run / 2), SpmmPolicy::nnzsplit_small_wave_fill * wave) << nnz << " " << n;
    }
}

}  // namespace
}  // namespace ringblas::cuda::detail
