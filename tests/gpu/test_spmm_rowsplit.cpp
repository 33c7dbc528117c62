// GPU tests of spmm_rowsplit (issue 14), the single-SpMM kernel that shares long rows among the
// sub-warps of a block: forced, against the cpu backend (Backend::verify) with the device pool
// poisoned first, on power-law (R-MAT) graphs, rows on both sides of the long-row threshold,
// blocks made only of long rows, empty rows, one dense row, n_B in {1, 3, 16, 64, 65, 512},
// plus_times / min_plus / max_times and every manifest semiring, epilogues; and the automatic
// choice between it and spmm_subwarp.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "ringblas_generated/cuda_manifest/spmm_subwarp.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"
#include "support/rmat.hpp"

namespace ringblas::test {
namespace {

class SpmmRowsplit : public GpuTest {
 protected:
  /// C = A ⊕.⊗ B (with `ep` if given) on spmm_rowsplit, checked against the cpu; "" if equal.
  std::string check(const Semiring& s, const Matrix& A, const DenseMatrix& B, const Epilogue* ep = nullptr,
                    Layout c_layout = Layout::row_major, Variant v = Variant::spmm_rowsplit) {
    Context ctx(Backend::verify);
    poison_device_pool(std::size_t(A.nrows() * B.ncols()) * 8 + 4096, ctx);
    Descriptor d;
    d.variant = v;
    DenseMatrix C(A.nrows(), B.ncols(), s.type, c_layout);
    try {
      if (ep) mxm(C, s, A, B, *ep, d, ctx);
      else mxm(C, s, A, B, d, ctx);
    } catch (const Error& e) {
      return std::string(variant_name(v)) + " " + s.name() + " n_B " + std::to_string(B.ncols()) + ": " + e.what();
    }
    return "";
  }
};

constexpr Index kWidths[] = {1, 3, 16, 64, 65, 512};

TEST_F(SpmmRowsplit, PowerLawGraphEveryWidth) {
  const Matrix g = rmat(11, 8).adjacency;  // 2048 vertices, degrees from 0 to several hundred
  for (const char* name : {"plus_times", "min_plus", "max_times"}) {
    const Semiring s = semiring(name, Type::fp32);
    const Matrix A = g.cast(Type::fp32).with_index_type(IndexType::i32);
    for (Index n : kWidths) {
      const DenseMatrix B = random_dense(A.ncols(), n, Type::fp32, 70 + n, Layout::row_major,
                                         ValueKind::integral);
      EXPECT_EQ(check(s, A, B), "");
    }
  }
}

TEST_F(SpmmRowsplit, RowsAroundTheLongRowThreshold) {
  // 63 / 64 / 65 nonzeros (the policy's threshold is 64), a row of 1000, empty rows between,
  // and then a stretch of 300 rows that are all long (whole blocks of long rows, every sub-warp
  // of a block sharing each of them in turn).
  std::vector<Index> len;
  for (Index i = 0; i < 700; ++i) {
    const Index pick[] = {0, 1, 5, 63, 64, 65, 0, 2, 1000, 3};
    len.push_back(pick[i % 10]);
  }
  for (Index i = 0; i < 300; ++i) len.push_back(65 + (i * 37) % 200);
  const Matrix A = rows_of_lengths(len, 1200, Type::fp64, 81);
  for (Index n : kWidths) {
    const DenseMatrix B = random_dense(1200, n, Type::fp64, 82 + n, Layout::row_major, ValueKind::integral);
    EXPECT_EQ(check(semiring("plus_times", Type::fp64), A, B), "");
    EXPECT_EQ(check(semiring("min_plus", Type::fp64), A, B), "");
  }
  // Column-major C and B (scalar path, strided stores).
  const DenseMatrix Bc = random_dense(1200, 40, Type::fp64, 90, Layout::col_major, ValueKind::integral);
  EXPECT_EQ(check(semiring("plus_times", Type::fp64), A, Bc, nullptr, Layout::col_major), "");
}

TEST_F(SpmmRowsplit, EmptyDenseRowAndDegenerateShapes) {
  const Semiring s = semiring("plus_times", Type::fp32);
  for (Pattern p : {Pattern::empty_rows, Pattern::dense_row, Pattern::empty, Pattern::full})
    for (Index n : {Index(1), Index(16), Index(65)}) {
      const Matrix A = random_matrix(150, 700, 0.02, Type::fp32, 91, p, ValueKind::integral, IndexType::i32);
      const DenseMatrix B = random_dense(700, n, Type::fp32, 92 + n, Layout::row_major, ValueKind::integral);
      EXPECT_EQ(check(s, A, B), "") << pattern_name(p);
    }
  for (auto [m, k] : {std::pair<Index, Index>{0, 4}, {4, 0}, {1, 1}}) {
    const Matrix A = random_matrix(m, k, 1.0, Type::fp32, 93);
    EXPECT_EQ(check(s, A, random_dense(k, 8, Type::fp32, 94)), "") << m << "x" << k;
  }
}

TEST_F(SpmmRowsplit, EveryManifestSemiring) {
  const std::vector<Semiring> all = cuda::manifest::semirings<cuda::manifest::spmm_subwarp>();
  const Matrix g = rmat(9, 8, 7).adjacency;
  for (const Semiring& s : all)
    for (Index n : {Index(3), Index(64)}) {
      const Matrix A = g.cast(s.type);
      const DenseMatrix B = random_dense(A.ncols(), n, s.type, 95 + n, Layout::row_major, ValueKind::integral);
      EXPECT_EQ(check(s, A, B), "");
    }
}

TEST_F(SpmmRowsplit, Epilogues) {
  const Matrix A = rmat(10, 8, 3).adjacency.cast(Type::fp32);
  const Semiring s = semiring("plus_times", Type::fp32);
  for (Index n : {Index(16), Index(65)}) {
    std::vector<float> bias(static_cast<std::size_t>(n));
    for (std::size_t j = 0; j < bias.size(); ++j) bias[j] = 0.25f * float(int(j % 7) - 3);
    const DenseVector b = DenseVector::from_values(bias);
    const DenseMatrix B = random_dense(A.ncols(), n, Type::fp32, 96 + n);
    Epilogue clamp = Epilogue::bias_relu(b);
    clamp.clamp = 0.5;
    for (const Epilogue& ep : {Epilogue::relu(), Epilogue::bias_add(b), Epilogue::bias_relu(b), clamp})
      EXPECT_EQ(check(s, A, B, &ep), "") << "epilogue kind " << int(ep.kind) << ", n_B " << n;
  }
}

TEST_F(SpmmRowsplit, DeviceResidentOperandsStayOnTheDevice) {
  Context cuda(Backend::cuda), cpu(Backend::cpu);
  const Matrix A = integral_values(rmat(10, 8, 5).adjacency, Type::fp32, 99);  // exact in any order
  const DenseMatrix B = random_dense(A.ncols(), 128, Type::fp32, 97, Layout::row_major, ValueKind::integral);
  const Semiring s = semiring("plus_times", Type::fp32);
  poison_device_pool(std::size_t(A.nrows() * 128) * 4 + 4096, cuda);
  DenseMatrix Cd = DenseMatrix(A.nrows(), 128, Type::fp32).to(Location::device, cuda);
  Descriptor d;
  d.variant = Variant::spmm_rowsplit;
  mxm(Cd, s, A.to(Location::device, cuda), B.to(Location::device, cuda), d, cuda);
  EXPECT_EQ(Cd.location(), Location::device);
  DenseMatrix Ch(A.nrows(), 128, Type::fp32);
  mxm(Ch, s, A, B, {}, cpu);
  const DenseMatrix back = Cd.to(Location::host, cuda);
  for (Index i = 0; i < A.nrows(); ++i)
    for (Index j = 0; j < 128; ++j) ASSERT_EQ(back.at<float>(i, j), Ch.at<float>(i, j)) << i << "," << j;
}

TEST_F(SpmmRowsplit, AutomaticChoiceFollowsTheCostModel) {
  // spmm_subwarp::relative_cost: short rows (about 4 per row) and a narrow B (16 columns):
  // spmm_rowsplit; the same rows at n_B = 64, and long mean rows (R-MAT, about 14 per row) at
  // any width: the nnz-split spmm_subwarp. Every choice agrees with the cpu.
  const Matrix short_rows = random_matrix(3000, 3000, 4.0 / 3000, Type::fp32, 101, Pattern::random,
                                          ValueKind::integral, IndexType::i32);
  const Matrix long_rows = integral_values(rmat(10, 8, 9).adjacency, Type::fp32, 102);
  ASSERT_GE(double(long_rows.nnz()) / double(long_rows.nrows()), 8.0);
  const Semiring s = semiring("plus_times", Type::fp32);
  struct Case {
    const Matrix* A;
    Index n;
    const char* want;
  };
  for (const Case& c : {Case{&short_rows, 16, "spmm_rowsplit"}, Case{&short_rows, 64, "spmm_subwarp"},
                        Case{&long_rows, 16, "spmm_subwarp"}, Case{&long_rows, 64, "spmm_subwarp"}}) {
    const DenseMatrix B = random_dense(c.A->ncols(), c.n, Type::fp32, 98, Layout::row_major, ValueKind::integral);
    EXPECT_EQ(check(s, *c.A, B, nullptr, Layout::row_major, Variant::automatic), "");
    Context ctx(Backend::cuda);
    std::ostringstream lines;
    ctx.trace = true;
    ctx.trace_out = &lines;
    DenseMatrix C(c.A->nrows(), c.n, Type::fp32);
    mxm(C, s, *c.A, B, {}, ctx);
    EXPECT_NE(lines.str().find(std::string("mxm (dense): ") + c.want + " (cuda)"), std::string::npos)
        << "n_B " << c.n << "\n"
        << lines.str();
  }
}

}  // namespace
}  // namespace ringblas::test
