// The launch-shape rule of spmm_rowsplit (backend/cuda/spmm_subwarp/spmm_policy.hpp), checked on
// the host with the sizes of the graphs bench_spmm measures (issue 14).
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
