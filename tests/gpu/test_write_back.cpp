// GPU tests of the shared write-back (backend/cuda/common/write_back.cu) into an EMPTY C, which
// takes its own path (a warp per row filters T by the mask) instead of the three-way merge:
// rows shorter and longer than a warp (up to a full row of 3000), every mask mode, with and
// without accumulator and replace, int32 and int64 indices; each through apply (identity) on
// Backend::verify, i.e. against the cpu executor, with the device pool poisoned first.
//
// compute-sanitizer subset: --gtest_filter='WriteBack.*'
#include <gtest/gtest.h>

#include <string>

#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/op_cases.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

class WriteBack : public GpuTest {
 protected:
  void check_empty_c(Index m, Index n, double density, Pattern p, std::uint64_t seed,
                     IndexType itype);
};

void WriteBack::check_empty_c(Index m, Index n, double density, Pattern p, std::uint64_t seed,
                              IndexType itype) {
  Context ctx(Backend::verify);
  const Matrix A = random_matrix(m, n, density, Type::fp64, seed, p, ValueKind::general, itype)
                       .to(Location::device, ctx);
  const Matrix M = random_mask(m, n, density, Type::fp64, seed + 1).to(Location::device, ctx);
  int k = 0;
  for (MaskMode mode : all_mask_modes) {
    for (bool replace : {false, true}) {
      for (bool accum : {false, true}) {
        poison_device_pool(std::size_t(8) << 20, ctx);
        Matrix C(m, n, Type::fp64);  // empty: the filter path
        Descriptor d = make_desc(mode, replace, false, false);
        d.variant = Variant::elementwise;
        const Accum acc = accum ? Accum(BinaryOpCode::plus) : no_accum;
        SCOPED_TRACE(std::string(mask_mode_name(mode)) + (replace ? " replace" : "") +
                     (accum ? " accum" : "") + " " + pattern_name(p) + " " + std::to_string(m) +
                     "x" + std::to_string(n));
        ASSERT_NO_THROW(apply(C, mode == MaskMode::none ? nullptr : &M, acc,
                              UnaryOpCode::identity, A, d, ctx));
        EXPECT_EQ(C.location(), Location::device);
        ++k;
      }
    }
  }
  EXPECT_EQ(k, 20);
}

TEST_F(WriteBack, EmptyCShortAndLongRowsEveryMaskMode) {
  check_empty_c(50, 3000, 0.3, Pattern::random, 11, IndexType::i32);   // rows of ~900 entries
  check_empty_c(200, 40, 0.2, Pattern::empty_rows, 12, IndexType::i64);  // rows under a warp
  check_empty_c(31, 3000, 0.01, Pattern::dense_row, 13, IndexType::i32);  // one row of 3000
}

TEST_F(WriteBack, EmptyCDegenerateShapes) {
  check_empty_c(0, 0, 0.5, Pattern::random, 21, IndexType::i32);
  check_empty_c(1, 1, 1.0, Pattern::full, 22, IndexType::i64);
  check_empty_c(64, 64, 0.0, Pattern::random, 23, IndexType::i32);
  check_empty_c(33, 65, 1.0, Pattern::full, 24, IndexType::i32);
}

}  // namespace
}  // namespace ringblas::test
