// The launch-shape rules of spmm_rowsplit (backend/cuda/spmm_subwarp/spmm_policy.hpp), checked on
// the host with the sizes of the graphs bench_spmm measures (issue 14).
#include <gtest/gtest.h>

#include "backend/cuda/spmm_subwarp/spmm_policy.hpp"

namespace ringblas::cuda::detail {
namespace {

constexpr double kHalfL2OfH100 = 0.5 * 50 * 1024 * 1024;

TEST(SpmmRowsplitPolicy, ColumnChunkFitsHalfOfL2) {
  // Cora (2708 columns) at n_B = 512: 32 lanes of 4 floats, 4 chunks, as spmm_subwarp.
  SubwarpShape s = rowsplit_shape(512, 4, 2708, 4, kHalfL2OfH100);
  EXPECT_EQ(s.log_sw, 5);
  EXPECT_EQ(s.chunk_cols, 128);
  EXPECT_EQ(s.chunks, 4);
  // soc-Epinions1 (75879 columns): 128 columns of B are 39 MB, 64 are 19 MB.
  s = rowsplit_shape(512, 4, 75879, 4, kHalfL2OfH100);
  EXPECT_EQ(s.log_sw, 4);
  EXPECT_EQ(s.chunk_cols, 64);
  EXPECT_EQ(s.chunks, 8);
  // Never fewer than 8 lanes, whatever B's height.
  s = rowsplit_shape(512, 4, 100000000, 4, kHalfL2OfH100);
  EXPECT_EQ(s.log_sw, SpmmPolicy::rowsplit_min_log_sw);
  EXPECT_EQ(s.chunks, 512 / (8 * 4));
  // Narrow B keeps its own width: n_B = 16 in vectors of 4 is 4 lanes.
  s = rowsplit_shape(16, 4, 75879, 4, kHalfL2OfH100);
  EXPECT_EQ(s.log_sw, 2);
  EXPECT_EQ(s.chunks, 1);
  // Odd n_B without vectors: 7 columns, 8 lanes, one chunk.
  s = rowsplit_shape(7, 1, 2708, 4, kHalfL2OfH100);
  EXPECT_EQ(s.log_sw, 3);
  EXPECT_EQ(s.chunks, 1);
}

TEST(SpmmRowsplitPolicy, BlockSizeKeepsTwoBlocksPerSm) {
  // Cora at n_B = 16 (4 lanes per row): 2708 rows x 4 lanes = 43 blocks of 256, 85 of 128, 170
  // of 64 for 132 SMs.
  EXPECT_EQ(rowsplit_block_threads(2708, 2, 132), 64);
  // Cora at n_B = 64 (16 lanes): 170 blocks of 256 are not two per SM; 339 blocks of 128 are.
  EXPECT_EQ(rowsplit_block_threads(2708, 4, 132), 128);
  // soc-Epinions1: plenty of rows, full blocks.
  EXPECT_EQ(rowsplit_block_threads(75879, 4, 132), 256);
  // Nothing smaller than 64 threads, even for one row.
  EXPECT_EQ(rowsplit_block_threads(1, 0, 132), 64);
}

}  // namespace
}  // namespace ringblas::cuda::detail
