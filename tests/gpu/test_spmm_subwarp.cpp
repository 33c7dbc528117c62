// GPU tests of the dense-output mxm (SpMM) on the spmm_subwarp / spmm_subwarp_coo / spmm_rowsplit
// kernels and the batched kernels forced on a single product: every variant x n_B in {1 .. 1024} x layouts,
// every manifest semiring, 1x1 to 1e5 rows, empty rows, index widths, device residency,
// transposed A, epilogues, unsorted COO with duplicates, and Cora's normalized adjacency times
// its features; all against the cpu backend (Backend::verify) or a host loop for COO.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "ringblas_generated/cuda_manifest/spmm_subwarp.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"
#if defined(RINGBLAS_HAS_CUDA)
#include "backend/cuda/spmm_subwarp/spmm_coo_entry.hpp"
#endif

namespace ringblas::test {
namespace {

constexpr Variant kSpmmVariants[] = {Variant::spmm_subwarp, Variant::spmm_subwarp_coo,
                                     Variant::spmm_rowsplit, Variant::spmm_batched,
                                     Variant::spmm_batched_coo};
constexpr Index kWidths[] = {1, 2, 3, 7, 16, 17, 32, 33, 64, 256, 1024};

/// The semirings compiled for spmm_subwarp (backend/cuda/manifest.def as built).
std::vector<Semiring> spmm_semirings() {
  return cuda::manifest::semirings<cuda::manifest::spmm_subwarp>();
}

/// C = A ⊕.⊗ B on the GPU with `v` forced, checked against the cpu backend; "" when they agree.
std::string verify_spmm(const Semiring& s, const Matrix& A, const DenseMatrix& B, Variant v,
                        Layout c_layout = Layout::row_major, const Descriptor* base = nullptr,
                        const Epilogue* ep = nullptr) {
  Descriptor d = base ? *base : Descriptor{};
  d.variant = v;
  Context ctx(Backend::verify);
  const Index m = d.transpose_a ? A.ncols() : A.nrows();
  DenseMatrix C(m, B.ncols(), s.type, c_layout);
  try {
    if (ep) mxm(C, s, A, B, *ep, d, ctx);
    else mxm(C, s, A, B, d, ctx);
  } catch (const Error& e) {
    return std::string(variant_name(v)) + " " + s.name() + ": " + e.what();
  }
  return "";
}

class SpmmSubwarp : public GpuTest {};

TEST_F(SpmmSubwarp, EveryVariantEveryWidthBothLayouts) {
  const Semiring s = semiring("plus_times", Type::fp32);
  const Matrix A = random_matrix(97, 83, 0.05, Type::fp32, 11, Pattern::empty_rows, ValueKind::integral,
                                 IndexType::i32);
  for (Variant v : kSpmmVariants)
    for (Index n : kWidths) {
      const Layout lb = n % 2 ? Layout::col_major : Layout::row_major;
      const DenseMatrix B = random_dense(83, n, Type::fp32, 100 + n, lb, ValueKind::integral);
      EXPECT_EQ(verify_spmm(s, A, B, v), "") << "n_B " << n;
      EXPECT_EQ(verify_spmm(s, A, B, v, Layout::col_major), "") << "n_B " << n << ", col-major C";
    }
}

TEST_F(SpmmSubwarp, EveryManifestSemiring) {
  for (const Semiring& s : spmm_semirings())
    for (Variant v : kSpmmVariants)
      for (Index n : {5, 32, 68}) {
        const Matrix A = random_matrix(61, 47, 0.08, s.type, 7, Pattern::dense_row, ValueKind::integral);
        const DenseMatrix B = random_dense(47, n, s.type, 3 + n, Layout::row_major, ValueKind::integral);
        EXPECT_EQ(verify_spmm(s, A, B, v), "") << "n_B " << n;
      }
}

TEST_F(SpmmSubwarp, DegenerateAndLargeShapes) {
  const Semiring s = semiring("plus_times", Type::fp64);
  struct Shape { Index m, k; double density; };
  for (Shape sh : {Shape{1, 1, 1.0}, Shape{0, 5, 0.5}, Shape{5, 0, 0.5}, Shape{40, 30, 0.0}})
    for (Variant v : kSpmmVariants) {
      const Matrix A = random_matrix(sh.m, sh.k, sh.density, Type::fp64, 5);
      const DenseMatrix B = random_dense(sh.k, 9, Type::fp64, 6);
      EXPECT_EQ(verify_spmm(s, A, B, v), "") << sh.m << "x" << sh.k;
    }
  // 1e5 rows, about 5 entries per row, with empty rows.
  const Matrix big = random_matrix(100000, 20000, 5e-4, Type::fp64, 17, Pattern::empty_rows,
                                   ValueKind::general, IndexType::i32);
  for (Index n : {1, 33, 64}) {
    const DenseMatrix B = random_dense(20000, n, Type::fp64, 18);
    EXPECT_EQ(verify_spmm(s, big, B, Variant::spmm_subwarp), "") << "n_B " << n;
    EXPECT_EQ(verify_spmm(s, big, B, Variant::spmm_subwarp_coo), "") << "n_B " << n;
    EXPECT_EQ(verify_spmm(s, big, B, Variant::spmm_rowsplit), "") << "n_B " << n;
    EXPECT_EQ(verify_spmm(s, big, B, Variant::spmm_batched), "") << "n_B " << n;
  }
  // A 1e5-row output column does not fit the batched COO kernel's shared tile: rejected, not
  // computed some other way.
  const DenseMatrix B = random_dense(20000, 4, Type::fp64, 19);
  DenseMatrix C(100000, 4, Type::fp64);
  Descriptor d;
  d.variant = Variant::spmm_batched_coo;
  Context ctx(Backend::cuda);
  EXPECT_THROW(mxm(C, s, big, B, d, ctx), NotImplemented);
}

TEST_F(SpmmSubwarp, IndexWidthsResidencyTransposeAndTypes) {
  const Semiring s = semiring("plus_times", Type::fp32);
  const Matrix A64 = random_matrix(70, 90, 0.1, Type::fp64, 21, Pattern::random, ValueKind::integral,
                                   IndexType::i64);
  const DenseMatrix B = random_dense(90, 40, Type::fp32, 22, Layout::row_major, ValueKind::integral);
  for (Variant v : kSpmmVariants) EXPECT_EQ(verify_spmm(s, A64, B, v), "") << "i64 fp64 A";
  Descriptor ta;
  ta.transpose_a = true;
  const DenseMatrix Bt = random_dense(70, 24, Type::fp32, 23, Layout::row_major, ValueKind::integral);
  for (Variant v : kSpmmVariants) EXPECT_EQ(verify_spmm(s, A64, Bt, v, Layout::row_major, &ta), "") << "A'";

  // Everything on the device: the result stays there and matches the host run.
  Context cuda(Backend::cuda), cpu(Backend::cpu);
  const Matrix A32 = A64.with_index_type(IndexType::i32).cast(Type::fp32);
  DenseMatrix Cd = DenseMatrix(70, 40, Type::fp32).to(Location::device, cuda);
  mxm(Cd, s, A32.to(Location::device, cuda), B.to(Location::device, cuda), {}, cuda);
  EXPECT_EQ(Cd.location(), Location::device);
  DenseMatrix Ch(70, 40, Type::fp32);
  mxm(Ch, s, A32, B, {}, cpu);
  const DenseMatrix back = Cd.to(Location::host, cuda);
  for (Index i = 0; i < 70; ++i)
    for (Index j = 0; j < 40; ++j) ASSERT_EQ(back.at<float>(i, j), Ch.at<float>(i, j)) << i << "," << j;
}

TEST_F(SpmmSubwarp, Epilogues) {
  const Semiring s = semiring("plus_times", Type::fp32);
  const Matrix A = random_matrix(50, 60, 0.1, Type::fp32, 31, Pattern::empty_rows);
  std::vector<float> bias(36);
  for (std::size_t j = 0; j < bias.size(); ++j) bias[j] = 0.25f * float(int(j % 7) - 3);
  const DenseVector b = DenseVector::from_values(bias);
  const DenseMatrix B = random_dense(60, 36, Type::fp32, 32);
  Epilogue clamp = Epilogue::bias_relu(b);
  clamp.clamp = 0.5;
  for (Variant v : kSpmmVariants)
    for (const Epilogue& ep : {Epilogue::relu(), Epilogue::bias_add(b), Epilogue::bias_relu(b), clamp})
      EXPECT_EQ(verify_spmm(s, A, B, v, Layout::row_major, nullptr, &ep), "")
          << "epilogue kind " << int(ep.kind);
  const DenseVector wrong = DenseVector::from_values(std::vector<float>(5, 1.0f));
  DenseMatrix C(50, 36, Type::fp32);
  Context ctx(Backend::cuda);
  EXPECT_THROW(mxm(C, s, A, B, Epilogue::bias_add(wrong), {}, ctx), InvalidValue);
}

TEST_F(SpmmSubwarp, SkewedRowsNnzSplitMapping) {
  // Mean row length >= 4 with one full row: spmm_subwarp takes runs of nonzeros per sub-warp,
  // so the full row crosses many runs (atomics) and rows of every length meet run boundaries.
  const Matrix A32 = random_matrix(500, 400, 0.012, Type::fp32, 51, Pattern::dense_row, ValueKind::integral);
  std::vector<float> bias(48, 0.5f);
  const DenseVector b = DenseVector::from_values(bias);
  const Epilogue ep = Epilogue::bias_relu(b);
  for (Index n : {1, 17, 48, 256}) {
    const DenseMatrix B = random_dense(400, n, Type::fp32, 52 + n, Layout::row_major, ValueKind::integral);
    EXPECT_EQ(verify_spmm(semiring("plus_times", Type::fp32), A32, B, Variant::spmm_subwarp), "") << n;
    if (n == 48) {
      EXPECT_EQ(verify_spmm(semiring("plus_times", Type::fp32), A32, B, Variant::spmm_subwarp, Layout::row_major,
                            nullptr, &ep), "");
    }
  }
  // The automatic choice takes the same nnz-split kernel.
  for (const char* name : {"plus_times", "min_plus"})
    for (Layout l : {Layout::row_major, Layout::col_major}) {
      const DenseMatrix B = random_dense(400, 24, Type::fp64, 55, l, ValueKind::integral);
      EXPECT_EQ(verify_spmm(semiring(name, Type::fp64), A32, B, Variant::automatic, l), "") << name;
    }
  for (const Semiring& s : spmm_semirings()) {
    const Matrix A = random_matrix(300, 200, 0.03, s.type, 53, Pattern::dense_row, ValueKind::integral);
    const DenseMatrix B = random_dense(200, 20, s.type, 54, Layout::col_major, ValueKind::integral);
    EXPECT_EQ(verify_spmm(s, A, B, Variant::spmm_subwarp), "");
  }
}

#if defined(RINGBLAS_HAS_CUDA)
TEST_F(SpmmSubwarp, UnsortedCooWithDuplicates) {
  Rng rng(41);
  const Index m = 300, k = 200, n = 33, nnz = 2000;
  std::vector<Index> rows(nnz), cols(nnz);
  std::vector<double> vals(nnz);
  for (Index e = 0; e < nnz; ++e) {
    rows[e] = rng.between(0, m / 2);  // rows above m/2 stay empty; many (i, k) repeat
    cols[e] = rng.between(0, 40);
    vals[e] = double(rng.between(-3, 6));
  }
  const CooMatrix A = CooMatrix::from_triplets(m, k, rows, cols, vals);
  const DenseMatrix B = random_dense(k, n, Type::fp64, 42, Layout::row_major, ValueKind::integral);
  for (const char* name : {"plus_times", "min_plus"}) {
    const Semiring s = semiring(name, Type::fp64);
    const bool plus = std::string(name) == "plus_times";
    std::vector<double> want(m * n, plus ? 0.0 : INFINITY);
    for (Index e = 0; e < nnz; ++e)
      for (Index j = 0; j < n; ++j) {
        const double b = B.at<double>(cols[e], j);
        double& c = want[rows[e] * n + j];
        c = plus ? c + vals[e] * b : std::min(c, vals[e] + b);
      }
    DenseMatrix C(m, n, Type::fp64);
    Context ctx(Backend::cuda);
    cuda::mxm_coo(C, s, A, B, ctx);
    for (Index i = 0; i < m; ++i)
      for (Index j = 0; j < n; ++j) ASSERT_EQ(C.at<double>(i, j), want[i * n + j]) << name << " " << i << "," << j;
  }
}
#endif

TEST_F(SpmmSubwarp, CoraNormalizedAdjacencyTimesFeatures) {
  const std::string dir = std::string(RINGBLAS_DATA_DIR) + "/gcn/planetoid/cora/";
  if (!std::filesystem::exists(dir + "cora_adj.mtx")) GTEST_SKIP() << "no Cora data in " << dir;
  const Matrix adj = io::read_matrix_market(dir + "cora_adj.mtx");
  const Index n = adj.nrows();
  // Â = D^-1/2 (A + I) D^-1/2 (Kipf & Welling), built on the host.
  std::vector<Index> r, c;
  std::vector<float> v;
  const auto rp = adj.row_ptr_vector(), ci = adj.col_idx_vector();
  std::vector<double> deg(n, 1.0);
  for (Index i = 0; i < n; ++i) deg[i] += double(rp[i + 1] - rp[i]);
  for (Index i = 0; i < n; ++i) {
    r.push_back(i), c.push_back(i), v.push_back(float(1.0 / deg[i]));
    for (Index p = rp[i]; p < rp[i + 1]; ++p)
      r.push_back(i), c.push_back(ci[p]), v.push_back(float(1.0 / std::sqrt(deg[i] * deg[ci[p]])));
  }
  const Matrix A = Matrix::from_triplets(n, n, r, c, v, Dup::error, IndexType::i32);
  const DenseMatrix raw = io::read_dense_matrix_market(dir + "cora_features.mtx.gz");
  std::vector<float> x(static_cast<std::size_t>(raw.nrows() * raw.ncols()));
  for (Index i = 0; i < raw.nrows(); ++i)
    for (Index j = 0; j < raw.ncols(); ++j) x[i * raw.ncols() + j] = raw.at<float>(i, j);
  const DenseMatrix X = DenseMatrix::from_values(raw.nrows(), raw.ncols(), x);
  const Semiring s = semiring("plus_times", Type::fp32);
  for (Variant v : kSpmmVariants) EXPECT_EQ(verify_spmm(s, A, X, v), "");
}

}  // namespace
}  // namespace ringblas::test
