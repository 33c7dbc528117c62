// GPU tests of mxm_batched in the stacked layout (spmm_batched with row offsets into one B and one
// C) against the cpu executor (Backend::verify), with the output pool poisoned first: mixed item
// sizes with empty and 0 x 0 items, epilogues, transposed items, host and device operands, n_B
// with and without vector loads, and the Tox21 molecules as mini-batches of 128. The MatrixBatch
// form: its device-built block-diagonal against the host-built one, its products against the
// stacked form and the cpu (every single-SpMM variant), and no host copy per call.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "algorithms/tu_dataset_io.hpp"
#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

struct Stacked {
  std::vector<Matrix> A;
  Index rows = 0, cols = 0;
};

Stacked random_items(std::size_t count, bool transpose, std::uint64_t seed) {
  Stacked s;
  Rng rng(seed);
  for (std::size_t k = 0; k < count; ++k) {
    Index m = rng.between(1, 40), n = rng.between(1, 40);
    if (k % 11 == 10) m = n = 0;
    const Pattern p = k % 7 == 6 ? Pattern::empty : Pattern::random;
    s.A.push_back(random_matrix(m, n, 0.2, Type::fp32, seed + k, p, ValueKind::integral,
                                k % 2 ? IndexType::i32 : IndexType::i64));
    s.rows += transpose ? n : m;
    s.cols += transpose ? m : n;
  }
  return s;
}

class StackedBatchedSpmm : public GpuTest {};

TEST_F(StackedBatchedSpmm, MatchesCpu) {
  const Semiring s = semiring("plus_times", Type::fp32);
  for (bool transpose : {false, true})
    for (Index n : {1, 3, 16, 64}) {
      const Stacked st = random_items(60, transpose, 7 + n);
      Context ctx(Backend::verify);
      poison_device_pool(std::size_t(1) << 22, ctx);
      const DenseMatrix B =
          random_dense(st.cols, n, Type::fp32, 5, Layout::row_major, ValueKind::integral);
      std::vector<float> bias_v(static_cast<std::size_t>(n));
      for (Index j = 0; j < n; ++j) bias_v[j] = float(j % 3) - 1.0f;
      const DenseVector bias = DenseVector::from_values(bias_v);
      Descriptor d;
      d.transpose_a = transpose;
      for (const Epilogue& ep :
           {Epilogue::none(), Epilogue::bias_relu(bias), Epilogue::bias_add(bias)}) {
        DenseMatrix C(st.rows, n, Type::fp32);
        EXPECT_NO_THROW(mxm_batched(C, s, st.A, B, ep, d, ctx))
            << "transpose " << transpose << ", n " << n;
      }
    }
}

TEST_F(StackedBatchedSpmm, SemiringsThatSkipB) {
  // plus_pair reads neither A's nor B's values; min_plus reads both.
  for (const char* name : {"plus_pair", "min_plus", "max_times"}) {
    const Semiring s = semiring(name, Type::fp32);
    const Stacked st = random_items(40, false, 21);
    Context ctx(Backend::verify);
    const DenseMatrix B =
        random_dense(st.cols, 8, Type::fp32, 2, Layout::row_major, ValueKind::integral);
    DenseMatrix C(st.rows, 8, Type::fp32);
    EXPECT_NO_THROW(mxm_batched(C, s, st.A, B, Epilogue::none(), {}, ctx)) << name;
  }
}

TEST_F(StackedBatchedSpmm, DeviceOperandsWriteInPlace) {
  const Semiring s = semiring("plus_times", Type::fp32);
  const Stacked st = random_items(200, false, 3);
  Context cuda(Backend::cuda), cpu(Backend::cpu);
  const DenseMatrix B =
      random_dense(st.cols, 32, Type::fp32, 9, Layout::row_major, ValueKind::integral);
  DenseMatrix expect(st.rows, 32, Type::fp32);
  mxm_batched(expect, s, st.A, B, Epilogue::none(), {}, cpu);
  poison_device_pool(std::size_t(1) << 22, cuda);
  const DenseMatrix b_dev = B.to(Location::device, cuda);
  DenseMatrix c_dev = DenseMatrix(st.rows, 32, Type::fp32).to(Location::device, cuda);
  std::vector<Matrix> a_dev;
  for (const Matrix& a : st.A)
    a_dev.push_back(a.with_index_type(IndexType::i32).to(Location::device, cuda));
  Descriptor d;
  d.variant = Variant::spmm_batched;
  mxm_batched(c_dev, s, a_dev, b_dev, Epilogue::none(), d, cuda);
  EXPECT_EQ(c_dev.location(), Location::device);
  const DenseMatrix got = c_dev.to(Location::host, cuda);
  for (Index i = 0; i < st.rows; ++i)
    for (Index j = 0; j < 32; ++j)
      ASSERT_EQ(got.at<float>(i, j), expect.at<float>(i, j)) << i << ", " << j;
}

/// st.A on the device, items alternating 32- and 64-bit indices, every third item fp64 (cast to
/// item 0's fp32 by the block-diagonal build).
std::vector<Matrix> device_items(const Stacked& st, const Context& ctx) {
  std::vector<Matrix> out;
  for (std::size_t k = 0; k < st.A.size(); ++k)
    out.push_back((k % 3 == 2 ? st.A[k].cast(Type::fp64) : st.A[k]).to(Location::device, ctx));
  return out;
}

TEST_F(StackedBatchedSpmm, MatrixBatchDeviceBuildEqualsHost) {
  for (std::size_t count : {1, 7, 300}) {
    const Stacked st = random_items(count, false, 40 + count);
    Context cuda(Backend::cuda);
    poison_device_pool(std::size_t(1) << 22, cuda);
    std::vector<Matrix> host = device_items(st, cuda);
    for (Matrix& m : host) m = m.to(Location::host, cuda);
    const MatrixBatch on_host(host, cuda), on_device(device_items(st, cuda), cuda);
    ASSERT_EQ(on_device.location(), Location::device);
    const Matrix& h = on_host.block_diagonal();
    const Matrix d = on_device.block_diagonal().to(Location::host, cuda);
    EXPECT_EQ(d.type(), Type::fp32);
    EXPECT_EQ(d.type(), h.type());
    EXPECT_EQ(d.index_type(), h.index_type());
    EXPECT_EQ(d.nrows(), h.nrows());
    EXPECT_EQ(d.ncols(), h.ncols());
    ASSERT_EQ(d.nnz(), h.nnz());
    EXPECT_NO_THROW(d.check_invariants());
    EXPECT_EQ(d.row_ptr_vector(), h.row_ptr_vector()) << count << " items";
    EXPECT_EQ(d.col_idx_vector(), h.col_idx_vector()) << count << " items";
    EXPECT_EQ(d.values_vector<float>(), h.values_vector<float>()) << count << " items";
    for (std::size_t b = 0; b <= count; ++b) {
      EXPECT_EQ(on_device.row_offset(b), on_host.row_offset(b));
      EXPECT_EQ(on_device.col_offset(b), on_host.col_offset(b));
    }
  }
}

TEST_F(StackedBatchedSpmm, MatrixBatchMixedLocations) {
  const Stacked st = random_items(3, false, 2);
  Context cuda(Backend::cuda);
  std::vector<Matrix> items = st.A;
  items[2] = items[2].to(Location::device, cuda);
  EXPECT_THROW(MatrixBatch(items, cuda), InvalidValue);
}

/// The MatrixBatch form on device operands equals the stacked form (exactly: integral values)
/// and the cpu (verify), under automatic and every single-SpMM variant forced.
TEST_F(StackedBatchedSpmm, MatrixBatchMatchesStacked) {
  const Semiring s = semiring("plus_times", Type::fp32);
  for (bool transpose : {false, true})
    for (Index n : {3, 16, 64, 128}) {
      const Stacked st = random_items(300, transpose, 60 + n);
      Context cuda(Backend::cuda), verify(Backend::verify);
      const std::vector<Matrix> a_dev = device_items(st, cuda);
      const MatrixBatch batch(a_dev, cuda);
      const DenseMatrix B =
          random_dense(st.cols, n, Type::fp32, 5, Layout::row_major, ValueKind::integral)
              .to(Location::device, cuda);
      std::vector<float> bias_v(static_cast<std::size_t>(n));
      for (Index j = 0; j < n; ++j) bias_v[j] = float(j % 3) - 1.0f;
      const DenseVector bias = DenseVector::from_values(bias_v).to(Location::device, cuda);
      Descriptor d;
      d.transpose_a = transpose;
      for (const Epilogue& ep : {Epilogue::none(), Epilogue::bias_relu(bias)}) {
        SCOPED_TRACE("transpose " + std::to_string(transpose) + ", n " + std::to_string(n) +
                     ", epilogue " + std::to_string(int(ep.kind)));
        DenseMatrix stacked = DenseMatrix(st.rows, n, Type::fp32).to(Location::device, cuda);
        DenseMatrix got = DenseMatrix(st.rows, n, Type::fp32).to(Location::device, cuda);
        mxm_batched(stacked, s, a_dev, B, ep, d, cuda);
        mxm_batched(got, s, batch, B, ep, d, cuda);
        const DenseMatrix x = stacked.to(Location::host, cuda), y = got.to(Location::host, cuda);
        for (Index i = 0; i < st.rows; ++i)
          for (Index j = 0; j < n; ++j)
            ASSERT_EQ(y.at<float>(i, j), x.at<float>(i, j)) << i << ", " << j;
        for (Variant v : {Variant::automatic, Variant::spmm_subwarp, Variant::spmm_rowsplit,
                          Variant::spmm_subwarp_coo, Variant::spmm_batched}) {
          if (transpose && v != Variant::automatic) continue;
          Descriptor dv = d;
          dv.variant = v;
          DenseMatrix c = DenseMatrix(st.rows, n, Type::fp32).to(Location::device, verify);
          EXPECT_NO_THROW(mxm_batched(c, s, batch, B, ep, dv, verify)) << variant_name(v);
        }
      }
    }
}

/// Issue 9: on device operands a call copies nothing between host and device.
TEST_F(StackedBatchedSpmm, MatrixBatchNoHostCopiesPerCall) {
  const Semiring s = semiring("plus_times", Type::fp32);
  const Stacked st = random_items(500, false, 8);
  Context cuda(Backend::cuda);
  std::vector<Matrix> a_dev;
  for (const Matrix& a : st.A)
    a_dev.push_back(a.with_index_type(IndexType::i32).to(Location::device, cuda));
  const MatrixBatch batch(a_dev, cuda);
  const DenseMatrix B =
      random_dense(st.cols, 64, Type::fp32, 3, Layout::row_major, ValueKind::integral)
          .to(Location::device, cuda);
  const DenseVector bias =
      DenseVector::from_values(std::vector<float>(64, 0.5f)).to(Location::device, cuda);
  DenseMatrix C = DenseMatrix(st.rows, 64, Type::fp32).to(Location::device, cuda);
  const TransferCounters before = cuda.transfers;
  for (int k = 0; k < 5; ++k) {
    mxm_batched(C, s, batch, B, Epilogue::bias_relu(bias), {}, cuda);
    mxm_batched(C, s, batch, B, Epilogue::none(), {}, cuda);
  }
  EXPECT_EQ(cuda.transfers.host_to_device, before.host_to_device);
  EXPECT_EQ(cuda.transfers.device_to_host, before.device_to_host);
  EXPECT_EQ(C.location(), Location::device);
}

TEST_F(StackedBatchedSpmm, Tox21MiniBatches) {
  const std::string dir = std::string(RINGBLAS_DATA_DIR) + "/molecules/tox21_graphs";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no Tox21 data at " << dir;
  const tu::Dataset ds = tu::read_dataset(dir);
  const std::vector<Matrix> blocks = tu::graph_blocks(ds.adjacency, ds.graph_ptr);
  const Semiring s = semiring("plus_times", Type::fp32);
  Context ctx(Backend::verify);
  for (std::size_t begin = 0; begin < 1024; begin += 128) {
    std::vector<Matrix> items(blocks.begin() + begin, blocks.begin() + begin + 128);
    Index rows = 0;
    for (const Matrix& a : items) rows += a.nrows();
    const DenseMatrix B =
        random_dense(rows, 64, Type::fp32, begin, Layout::row_major, ValueKind::integral);
    DenseMatrix C(rows, 64, Type::fp32);
    EXPECT_NO_THROW(mxm_batched(C, s, items, B, Epilogue::none(), {}, ctx)) << "batch at " << begin;
    std::vector<Matrix> on_device;
    for (const Matrix& a : items) on_device.push_back(a.to(Location::device, ctx));
    DenseMatrix C_batch(rows, 64, Type::fp32);
    EXPECT_NO_THROW(
        mxm_batched(C_batch, s, MatrixBatch(on_device, ctx), B, Epilogue::none(), {}, ctx))
        << "MatrixBatch, batch at " << begin;
  }
}

}  // namespace
}  // namespace ringblas::test
