// cpu tests of the row split of reduce's k_rows_vec (backend/cuda/reduce/row_split.hpp): the
// kernel's lanes read each value of a row exactly once, none outside it, and every 16-byte
// vector they load lies inside the row on a 16-byte boundary. The GPU is not needed: the split
// and the lanes' shares are host/device code that the kernel calls as the test does.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backend/cuda/reduce/row_split.hpp"

namespace ringblas::cuda::reduction {
namespace {

/// How often the W lanes of a group read each position 0 .. e + 2·VW·W (padding past the row's
/// end shows reads outside it), when the group reduces row [b, e).
template <int W, int VW, class I>
std::vector<int> reads(I b, I e) {
  std::vector<int> count(std::size_t(e) + std::size_t(2 * VW * W) + 1, 0);
  for (int lane = 0; lane < W; ++lane)
    visit_lane_share<W, VW>(
        b, e, lane,
        [&](int, I p, bool in) {
          if (in) ++count.at(std::size_t(p));
        },
        [&](I q, bool both) {
          for (I k = 0; k < VW; ++k) ++count.at(std::size_t(q * VW + k));
          if (both)
            for (I k = 0; k < VW; ++k) ++count.at(std::size_t((q + W) * VW + k));
        });
  return count;
}

template <int W, int VW, class I>
void check_every_row_up_to(I max_len) {
  for (I b = 0; b < 3 * VW; ++b)
    for (I len = 0; len <= max_len; ++len) {
      const I e = b + len;
      const std::vector<int> c = reads<W, VW, I>(b, e);
      for (std::size_t p = 0; p < c.size(); ++p) {
        const int want = I(p) >= b && I(p) < e ? 1 : 0;
        ASSERT_EQ(c[p], want) << "W " << W << " VW " << VW << " row [" << b << ", " << e
                              << "): position " << p;
      }
    }
}

TEST(ReduceRowSplit, SplitBoundsAreAlignedAndInsideTheRow) {
  for (int vw : {2, 4, 8, 16})
    for (std::int64_t b = 0; b < 40; ++b)
      for (std::int64_t e = b; e < b + 70; ++e) {
        const row_split<std::int64_t> s = split_row(b, e, vw);
        ASSERT_LE(b, s.body_begin);
        ASSERT_LE(s.body_begin, s.body_end);
        ASSERT_LE(s.body_end, e);
        if (s.body_begin < s.body_end) {
          EXPECT_EQ(s.body_begin % vw, 0);
          EXPECT_EQ(s.body_end % vw, 0);
        }
        EXPECT_LT(s.body_begin - b, vw) << "the head holds fewer than vw values";
        if (s.body_begin != e) EXPECT_LT(e - s.body_end, vw) << "so does the tail";
      }
}

TEST(ReduceRowSplit, SplitNearTheLargestInt32Offset) {
  // b rounded up without overflow: the last rows of a matrix with about 2^31 entries.
  const std::int32_t e = 2147483647, b = e - 5;
  const row_split<std::int32_t> s = split_row(b, e, 4);
  EXPECT_EQ(s.body_begin, e - 3);  // 2147483644 = 4 * 536870911
  EXPECT_EQ(s.body_end, e - 3);
}

// The lane counts (8, 32) and values per 16 bytes (double 2, float/int32 4, bool 16) the kernel
// is built with, both index widths, rows from empty to several rounds of two vectors per lane.
TEST(ReduceRowSplit, LanesReadEachValueOnce) {
  check_every_row_up_to<8, 2, std::int32_t>(100);
  check_every_row_up_to<8, 4, std::int64_t>(150);
  check_every_row_up_to<8, 16, std::int32_t>(300);
  check_every_row_up_to<32, 2, std::int64_t>(300);
  check_every_row_up_to<32, 4, std::int32_t>(300);
  check_every_row_up_to<32, 16, std::int64_t>(600);
}

TEST(ReduceRowSplit, EdgeSlotsCoverAHeadOfVwMinusOne) {
  static_assert(edge_loads<8, 2> == 1 && edge_loads<32, 4> == 1);
  static_assert(edge_loads<8, 16> == 2 && edge_loads<32, 16> == 1);
  static_assert(edge_loads<8, 1> == 0);
}

}  // namespace
}  // namespace ringblas::cuda::reduction
