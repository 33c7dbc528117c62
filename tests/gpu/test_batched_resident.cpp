// GPU tests of mxm_batched's device-resident path (issue 9: per-call host cost): every operand
// already on the device with 32-bit indices and the semiring's type, so the call writes the
// batch metadata straight into the per-stream buffer and uploads it only when it changed. The
// results are checked against the cpu executor on repeated, changed and alternating batches on
// one stream (stale metadata would compute the previous batch), in both the stacked and the
// per-item forms, with semirings that skip A's or B's values; a repeated identical call makes no
// host-to-device copy; a batch with one host item still runs (the general path).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

struct Batch {
  std::vector<Matrix> host, dev;
  Index rows = 0, cols = 0;
};

Batch make_batch(std::size_t count, std::uint64_t seed, const Context& ctx) {
  Batch b;
  Rng rng(seed);
  for (std::size_t k = 0; k < count; ++k) {
    const Index m = rng.between(0, 30), n = rng.between(0, 30);
    b.host.push_back(random_matrix(m, n, 0.25, Type::fp32, seed + k, Pattern::random,
                                   ValueKind::integral, IndexType::i32));
    b.dev.push_back(b.host.back().to(Location::device, ctx));
    b.rows += m;
    b.cols += n;
  }
  return b;
}

/// The stacked product on the cpu executor.
DenseMatrix expected(const Semiring& s, const Batch& b, const DenseMatrix& B) {
  Context cpu(Backend::cpu);
  DenseMatrix C(b.rows, B.ncols(), s.type);
  mxm_batched(C, s, b.host, B, Epilogue::none(), {}, cpu);
  return C;
}

/// "" when got (device) equals want (host) entry by entry, else the first difference.
std::string differs(const DenseMatrix& got_dev, const DenseMatrix& want, const Context& ctx) {
  const DenseMatrix got = got_dev.to(Location::host, ctx);
  for (Index i = 0; i < want.nrows(); ++i)
    for (Index j = 0; j < want.ncols(); ++j)
      if (got.at<float>(i, j) != want.at<float>(i, j))
        return "(" + std::to_string(i) + ", " + std::to_string(j) +
               "): " + std::to_string(got.at<float>(i, j)) + " vs " +
               std::to_string(want.at<float>(i, j));
  return "";
}

class BatchedResident : public GpuTest {};

TEST_F(BatchedResident, RepeatedChangedAndAlternatingBatchesOnOneStream) {
  Context cuda(Backend::cuda);
  for (const char* name : {"plus_times", "plus_pair", "min_plus"}) {
    const Semiring s = semiring(name, Type::fp32);
    const Batch x = make_batch(300, 11, cuda), y = make_batch(300, 5011, cuda);
    const Batch z = make_batch(17, 9011, cuda);  // fewer items: a smaller metadata block
    for (Index n : {Index(3), Index(32)}) {
      auto operand = [&](const Batch& b, std::uint64_t seed) {
        return random_dense(b.cols, n, Type::fp32, seed, Layout::row_major, ValueKind::integral);
      };
      const DenseMatrix bx = operand(x, 1), by = operand(y, 2), bz = operand(z, 3);
      const DenseMatrix wx = expected(s, x, bx), wy = expected(s, y, by), wz = expected(s, z, bz);
      const DenseMatrix bx_dev = bx.to(Location::device, cuda),
                        by_dev = by.to(Location::device, cuda),
                        bz_dev = bz.to(Location::device, cuda);
      poison_device_pool(std::size_t(1) << 22, cuda);
      for (const Batch* b : {&x, &x, &y, &x, &z, &y, &z}) {
        const DenseMatrix& B = b == &x ? bx_dev : b == &y ? by_dev : bz_dev;
        const DenseMatrix& want = b == &x ? wx : b == &y ? wy : wz;
        DenseMatrix C = DenseMatrix(b->rows, n, Type::fp32).to(Location::device, cuda);
        mxm_batched(C, s, b->dev, B, Epilogue::none(), {}, cuda);
        const std::string what = std::string(name) + " n " + std::to_string(n) + " batch " +
                                 (b == &x   ? "x"
                                  : b == &y ? "y"
                                            : "z");
        EXPECT_EQ(differs(C, want, cuda), "") << what;
      }
    }
  }
}

TEST_F(BatchedResident, IdenticalRepeatMakesNoCopy) {
  Context cuda(Backend::cuda);
  const Semiring s = semiring("plus_times", Type::fp32);
  const Batch x = make_batch(500, 77, cuda);
  const DenseMatrix B =
      random_dense(x.cols, 16, Type::fp32, 4, Layout::row_major, ValueKind::integral)
          .to(Location::device, cuda);
  DenseMatrix C = DenseMatrix(x.rows, 16, Type::fp32).to(Location::device, cuda);
  mxm_batched(C, s, x.dev, B, Epilogue::none(), {}, cuda);
  const auto before = cuda.transfers.host_to_device;
  mxm_batched(C, s, x.dev, B, Epilogue::none(), {}, cuda);
  EXPECT_EQ(cuda.transfers.host_to_device, before) << "the unchanged metadata were uploaded again";
  EXPECT_EQ(differs(C, expected(s, x, B.to(Location::host, cuda)), cuda), "");
}

TEST_F(BatchedResident, PerItemFormAndOneHostItem) {
  Context cuda(Backend::cuda), cpu(Backend::cpu);
  const Semiring s = semiring("plus_times", Type::fp32);
  const Batch x = make_batch(120, 333, cuda);
  std::vector<DenseMatrix> B_host, B_dev, C_dev, want;
  for (std::size_t k = 0; k < x.host.size(); ++k) {
    B_host.push_back(random_dense(x.host[k].ncols(), 8, Type::fp32, 50 + k, Layout::row_major,
                                  ValueKind::integral));
    B_dev.push_back(B_host.back().to(Location::device, cuda));
    C_dev.push_back(DenseMatrix(x.host[k].nrows(), 8, Type::fp32).to(Location::device, cuda));
    want.push_back(DenseMatrix(x.host[k].nrows(), 8, Type::fp32));
  }
  mxm_batched(want, s, x.host, B_host, {}, cpu);
  for (int round = 0; round < 2; ++round) {
    std::vector<Matrix> A = x.dev;
    if (round == 1) A[7] = x.host[7];  // one host item: the general path packs it
    poison_device_pool(std::size_t(1) << 20, cuda);
    mxm_batched(C_dev, s, A, B_dev, {}, cuda);
    for (std::size_t k = 0; k < A.size(); ++k)
      ASSERT_EQ(differs(C_dev[k], want[k], cuda), "") << "round " << round << " item " << k;
  }
}

}  // namespace
}  // namespace ringblas::test
