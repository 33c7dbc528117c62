// SparseUpload::packed (backend/cuda/sparse_layer/packed_upload.hpp): the CSR arrays the device
// rebuilds equal the host's, for iso and non-iso values, empty rows and empty matrices, 32- and
// 64-bit host indices, 16- and 32-bit packed indices, non-fp32 values, and matrices that span
// many staging slots and segments (several packing threads); iso is reported only when true.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"
#if defined(RINGBLAS_HAS_CUDA)
#include <cuda_runtime.h>

#include "backend/cuda/sparse_layer/packed_upload.hpp"
#endif

namespace {

using namespace ringblas;

class SparseUploadGpu : public test::GpuTest {};

#if defined(RINGBLAS_HAS_CUDA)
/// `m` with every value replaced by `x` (the same pattern): an iso matrix.
Matrix iso_of(const Matrix& m, float x, IndexType itype) {
  return Matrix::from_csr(m.nrows(), m.ncols(), m.row_ptr_vector(), m.col_idx_vector(),
                          std::vector<float>(std::size_t(m.nnz()), x))
      .with_index_type(itype);
}

/// `m` with every 7th row (and the last) emptied.
Matrix with_empty_rows(const Matrix& m) {
  const auto rp = m.row_ptr_vector(), ci = m.col_idx_vector();
  const auto v = m.cast(Type::fp32).values_vector<float>();
  std::vector<Index> r{0}, c;
  std::vector<float> x;
  for (Index i = 0; i < m.nrows(); ++i) {
    if (i % 7 != 0 && i + 1 < m.nrows())
      for (Index p = rp[std::size_t(i)]; p < rp[std::size_t(i + 1)]; ++p) {
        c.push_back(ci[std::size_t(p)]);
        x.push_back(v[std::size_t(p)]);
      }
    r.push_back(Index(c.size()));
  }
  return Matrix::from_csr(m.nrows(), m.ncols(), r, c, x);
}

template <class T>
std::vector<T> device_to_host(const void* p, std::size_t n) {
  std::vector<T> out(n);
  if (n) EXPECT_EQ(cudaMemcpy(out.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return out;
}

namespace sl = ringblas::cuda::sparse_layer;

std::vector<const Matrix*> pointers(const std::vector<Matrix>& mats) {
  std::vector<const Matrix*> ptrs;
  for (const Matrix& m : mats) ptrs.push_back(&m);
  return ptrs;
}

/// The device arrays of an upload of `mats` (complete) equal every matrix's host arrays (values as
/// fp32).
void expect_arrays_equal(const sl::PackedDevice& p, const std::vector<Matrix>& mats,
                         const std::string& what) {
  const bool wide = p.index_type == IndexType::i64;
  const std::size_t isz = wide ? 8 : 4;
  for (std::size_t k = 0; k < mats.size(); ++k) {
    const Matrix& m = mats[k];
    const std::size_t rows = std::size_t(m.nrows()) + 1, nnz = std::size_t(m.nnz());
    const char* rp = p.row_ptr.as<char>() + p.row_base[k] * isz;
    const char* ci = p.col_idx.as<char>() + p.entry_base[k] * isz;
    std::vector<Index> got_rp, got_ci;
    if (wide) {
      for (auto x : device_to_host<std::int64_t>(rp, rows)) got_rp.push_back(x);
      for (auto x : device_to_host<std::int64_t>(ci, nnz)) got_ci.push_back(x);
    } else {
      for (auto x : device_to_host<std::int32_t>(rp, rows)) got_rp.push_back(x);
      for (auto x : device_to_host<std::int32_t>(ci, nnz)) got_ci.push_back(x);
    }
    ASSERT_EQ(got_rp, m.row_ptr_vector()) << what << " matrix " << k;
    ASSERT_EQ(got_ci, m.col_idx_vector()) << what << " matrix " << k;
    const std::vector<float> got_v =
        device_to_host<float>(p.values.as<float>() + p.entry_base[k], nnz);
    const std::vector<float> want_v = m.cast(Type::fp32).values_vector<float>();
    ASSERT_EQ(got_v.size(), want_v.size()) << what << " matrix " << k;
    for (std::size_t x = 0; x < nnz; ++x)  // bit for bit (the iso test compares bits)
      ASSERT_EQ(std::memcmp(&got_v[x], &want_v[x], 4), 0)
          << what << " matrix " << k << " entry " << x;
  }
}

/// upload_packed(mats) rebuilt on the device equals every matrix's host arrays.
void expect_packed_equal(const std::vector<Matrix>& mats, bool want_iso, const std::string& what,
                         sl::PackThreads threads = sl::PackThreads::spawn) {
  Context gpu(Backend::cuda);
  ASSERT_EQ(sl::packed_unavailable(pointers(mats)), "") << what;
  const sl::PackedDevice p = sl::upload_packed(pointers(mats), gpu, threads);
  ASSERT_EQ(cudaStreamSynchronize(static_cast<cudaStream_t>(gpu.stream)), cudaSuccess) << what;
  EXPECT_EQ(p.iso, want_iso) << what;
  expect_arrays_equal(p, mats, what);
  // A crew allocates on its own stream; the arrays are handed to the caller's, which they may
  // outlive the crew's on (buffer.hpp).
  for (const Buffer* b : {&p.row_ptr, &p.col_idx, &p.values})
    EXPECT_EQ(b->stream(), gpu.stream) << what;
}

/// Every case of PackedArraysEqualTheHostArrays, the packing threads run `threads`.
void expect_packed_cases(sl::PackThreads threads) {
  test::Rng rng(71);
  // Iso features (Graph Challenge images are all 1.0) with empty rows, 32- and 64-bit indices.
  const Matrix sparse = with_empty_rows(test::random_steps(rng, 500, 1024, 0.05, 1, 8, 8.0f));
  expect_packed_equal({iso_of(sparse, 1.0f, IndexType::i32)}, true, "iso, int32", threads);
  expect_packed_equal({iso_of(sparse, 1.0f, IndexType::i64)}, true, "iso, int64", threads);
  // Non-iso values, and fp64 values (cast on the host).
  expect_packed_equal({sparse}, false, "steps", threads);
  expect_packed_equal({sparse.cast(Type::fp64)}, false, "fp64", threads);
  // 0.0 and -0.0 differ in bits: not iso.
  {
    std::vector<float> v(std::size_t(sparse.nnz()), 0.0f);
    v.back() = -0.0f;
    expect_packed_equal({Matrix::from_csr(sparse.nrows(), sparse.ncols(), sparse.row_ptr_vector(),
                                          sparse.col_idx_vector(), v)},
                        false, "0 and -0", threads);
  }
  // More than 65536 columns: 32-bit packed indices.
  expect_packed_equal(
      {iso_of(test::random_steps(rng, 300, 100000, 0.002, 1, 2, 1.0f), 0.5f, IndexType::i32)}, true,
      "100000 columns", threads);
  // Several matrices in one upload (weights): empty ones, one without rows, mixed iso.
  expect_packed_equal({sparse, Matrix(0, 1024, Type::fp32), Matrix(40, 1024, Type::fp32),
                       iso_of(sparse, 0.0625f, IndexType::i32)},
                      false, "four matrices", threads);
  // Many slots and segments (several packing threads): 250,000 rows, ~25 entries each, iso in
  // the first half of the rows only.
  {
    const Matrix big = test::random_steps(rng, 250000, 1024, 0.025, 1, 8, 8.0f, IndexType::i32);
    std::vector<float> v = big.values_vector<float>();
    const std::vector<Index> rp = big.row_ptr_vector();
    for (Index p = 0; p < rp[125000]; ++p) v[std::size_t(p)] = 1.0f;
    expect_packed_equal({Matrix::from_csr(big.nrows(), big.ncols(), rp, big.col_idx_vector(), v)},
                        false, "250000 rows, half iso", threads);
    expect_packed_equal({iso_of(big, 1.0f, IndexType::i32)}, true, "250000 rows, iso", threads);
  }
}

TEST_F(SparseUploadGpu, PackedArraysEqualTheHostArrays) {
  expect_packed_cases(sl::PackThreads::spawn);
}

// PackThreads::crew: the same arrays, twice over (the second time on the kept crew, whose pinned
// slots were last copied from by the first); uploads queued back to back without a sync (a slot's
// next packing waits for its copy); and two host threads uploading at once (one crew each).
TEST_F(SparseUploadGpu, CrewUploadsTheSameArrays) {
  expect_packed_cases(sl::PackThreads::crew);
  expect_packed_cases(sl::PackThreads::crew);
  test::Rng rng(83);
  std::vector<std::vector<Matrix>> sets;
  for (int k = 0; k < 3; ++k)
    sets.push_back({test::random_steps(rng, 120000, 1024, 0.03, 1, 8, 8.0f, IndexType::i32)});
  {
    Context gpu(Backend::cuda);
    std::vector<sl::PackedDevice> got;
    for (const auto& m : sets)
      got.push_back(sl::upload_packed(pointers(m), gpu, sl::PackThreads::crew));
    ASSERT_EQ(cudaStreamSynchronize(static_cast<cudaStream_t>(gpu.stream)), cudaSuccess);
    for (std::size_t k = 0; k < sets.size(); ++k)
      expect_arrays_equal(got[k], sets[k], "back to back, upload " + std::to_string(k));
  }
  std::vector<sl::PackedDevice> got(2);
  std::vector<std::thread> side;
  for (std::size_t k = 0; k < 2; ++k)
    side.emplace_back([&, k] {
      Context own(Backend::cuda);
      for (int rep = 0; rep < 3; ++rep)
        got[k] = sl::upload_packed(pointers(sets[k]), own, sl::PackThreads::crew);
      cudaStreamSynchronize(static_cast<cudaStream_t>(own.stream));
    });
  for (std::thread& t : side) t.join();
  for (std::size_t k = 0; k < 2; ++k)
    expect_arrays_equal(got[k], sets[k], "two threads at once, upload " + std::to_string(k));
}

TEST_F(SparseUploadGpu, PackedSendsLessThanTheStoredArrays) {
  test::Rng rng(73);
  Context gpu(Backend::cuda);
  const Matrix f =
      iso_of(test::random_steps(rng, 2000, 1024, 0.1, 1, 8, 8.0f), 1.0f, IndexType::i32);
  const sl::PackedDevice p = sl::upload_packed({&f}, gpu);
  const std::size_t stored = f.row_ptr().size() + f.col_idx().size() + f.values().size();
  // 16-bit indices and one value per segment: about a quarter of int32 + fp32.
  EXPECT_LT(p.bytes_sent, stored / 3) << p.bytes_sent << " of " << stored;
  EXPECT_TRUE(p.iso);
}

TEST_F(SparseUploadGpu, DeviceMatricesAreNotPacked) {
  test::Rng rng(79);
  Context gpu(Backend::cuda);
  const Matrix d = test::random_steps(rng, 10, 64, 0.3, 1, 8, 8.0f).to(Location::device, gpu);
  EXPECT_NE(sl::packed_unavailable({&d}), "");
  EXPECT_THROW(sl::upload_packed({&d}, gpu), NotImplemented);
}
#endif

}  // namespace
