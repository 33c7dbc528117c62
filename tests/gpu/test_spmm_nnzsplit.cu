// GPU tests of spmm_subwarp's nnz-split kernel (backend/cuda/spmm_subwarp/spmm_nnzsplit_impl.cuh,
// issue 14): the launcher called directly with run lengths from 1 to past nnz and 1, 2 or 4
// vectors per lane, on rows of lengths around the run boundaries (empty rows, one row spanning
// many runs, rows ending exactly at a boundary) and on an R-MAT power-law graph, n_B from 1 to
// 520 (scalar and 16-byte paths, lanes and vectors past n_B), plus_times and min_plus (monoid
// atomics on crossing rows), epilogues (last pass on crossing rows), the ways the kernel meets
// its row pass (NnzsplitOptions: dependent launch, run rows from the pass) also with B's rows
// unaligned; the Lean code knob (the library's default, forced: launch_and_compare's is off);
// and the public mxm with spmm_subwarp forced or chosen. C is poisoned before every launch; every
// result is compared with the cpu backend exactly (small integer values: every summation order
// gives the same float).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "backend/cuda/spmm_subwarp/spmm_subwarp_impl.cuh"  // the launcher with its code knobs
#include "ringblas/ringblas.hpp"
#include "ringblas_generated/cuda_manifest/spmm_subwarp.hpp"
#include "semirings/semiring.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"
#include "support/rmat.hpp"
#include "support/spmm_problem_of.hpp"

namespace ringblas::test {
namespace {

using PlusTimes = sr::semiring<sr::plus_monoid<float>, sr::times_op<float>>;
using MinPlus = sr::semiring<sr::min_monoid<float>, sr::plus_op<float>>;

Matrix integral_fp32(const Matrix& g, std::uint64_t seed) {
  return integral_values(g, Type::fp32, seed);
}

/// Lengths around multiples of 16 (the smallest run of the policy) and of the run lengths the
/// test uses, zeros between, one row of 1500 (many runs), then a stretch of rows of 1.
std::vector<Index> boundary_lengths() {
  std::vector<Index> len;
  const Index pick[] = {0, 1, 15, 16, 17, 0, 0, 31, 32, 33, 2, 63, 64, 65, 7, 1500, 3, 0, 128, 5};
  for (Index i = 0; i < 400; ++i) len.push_back(pick[i % 20]);
  for (Index i = 0; i < 300; ++i) len.push_back(1);
  return len;
}

/// How the launch meets its row pass (NnzsplitOptions), and B read through rows that are not
/// 16-byte aligned (one column into a matrix of n_B + 1 columns: the scalar path, as the entry
/// point picks it for such a B).
struct RowPass {
  bool overlap = false, run_rows = false, unaligned_b = false;
};

/// B with a junk column in front: row i of B at element 1 of row i of the result.
DenseMatrix with_front_column(const DenseMatrix& B) {
  std::vector<float> v(static_cast<std::size_t>(B.nrows() * (B.ncols() + 1)), -7.0f);
  for (Index i = 0; i < B.nrows(); ++i)
    for (Index j = 0; j < B.ncols(); ++j)
      v[static_cast<std::size_t>(i * (B.ncols() + 1) + j + 1)] = B.at<float>(i, j);
  return DenseMatrix::from_values(B.nrows(), B.ncols() + 1, v);
}

/// ReLU, a bias of n_B values (-3 .. 3) and bias + ReLU + clamp at 4: the epilogues the tests
/// run (the bias kept here, since an Epilogue points at it).
struct Epilogues {
  DenseVector bias;
  explicit Epilogues(Index n) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::size_t j = 0; j < v.size(); ++j) v[j] = float(int(j % 7) - 3);
    bias = DenseVector::from_values(v);
  }
  std::vector<Epilogue> all() const {
    Epilogue clamp = Epilogue::bias_relu(bias);
    clamp.clamp = 4.0;
    return {Epilogue::relu(), Epilogue::bias_add(bias), clamp};
  }
};

/// Rectangular and degenerate shapes (one row, fewer rows than a warp with every other row
/// empty, more rows than columns with one full row over many runs) at n_B 3, 64 and 200 (a
/// multiple of 4 or not): f(A, B, "m x k"), A seeded from `seed`, B from seed + 1.
template <class F>
void for_random_shapes(std::uint64_t seed, F&& f) {
  struct Shape {
    Index m, k;
    double density;
    Pattern pattern;
  };
  for (const Shape& sh :
       {Shape{1, 50, 0.5, Pattern::random}, Shape{37, 2000, 0.01, Pattern::empty_rows},
        Shape{3000, 300, 0.03, Pattern::dense_row}})
    for (Index n : {Index(3), Index(64), Index(200)}) {
      const Matrix A = random_matrix(sh.m, sh.k, sh.density, Type::fp32, seed + sh.m, sh.pattern,
                                     ValueKind::integral, IndexType::i32);
      const DenseMatrix B =
          random_dense(sh.k, n, Type::fp32, seed + 1 + n, Layout::row_major, ValueKind::integral);
      f(A, B, std::to_string(sh.m) + "x" + std::to_string(sh.k));
    }
}

class SpmmNnzsplit : public GpuTest {
 protected:
  /// C = epilogue(A ⊕.⊗ B) by the nnz-split launcher (run length L, at most MaxNV vectors per
  /// lane, nv of them when the width allows; Lean: the launcher's knob of that name), compared
  /// with the cpu; "" when equal.
  template <class S, int MaxNV = 4, bool Lean = false>
  std::string launch_and_compare(const Semiring& s, const Matrix& A, const DenseMatrix& B, int L,
                                 int nv, const Epilogue& ep = Epilogue::none(), RowPass how = {}) {
    using namespace ringblas::cuda::detail;
    Context cuda(Backend::cuda), cpu(Backend::cpu);
    const Matrix a = A.to(Location::device, cuda);
    const DenseMatrix b = (how.unaligned_b ? with_front_column(B) : B).to(Location::device, cuda);
    const Index m = A.nrows(), n = B.ncols();
    DenseMatrix c = DenseMatrix(m, n, Type::fp32).to(Location::device, cuda);
    if (m * n > 0 && cudaMemset(c.values().data(), 0xAB, std::size_t(m * n) * 4) != cudaSuccess)
      return "memset";
    DenseVector bias;
    SpmmProblem p = spmm_problem_of(a, b, c);
    if (how.unaligned_b) {
      p.n = static_cast<int>(n);
      p.b = static_cast<const float*>(p.b) + 1;  // 4 bytes past a 16-byte boundary
    }
    // Run rows poisoned (-1): a run the row pass missed reads row_ptr[-1] and fails the compare.
    Buffer run_rows(how.run_rows ? std::size_t((A.nnz() + L - 1) / L + 1) * 4 : 0, Location::device,
                    &cuda);
    if (how.run_rows && cudaMemset(run_rows.data(), 0xFF, run_rows.size()) != cudaSuccess)
      return "memset";
    NnzsplitOptions opt;
    opt.overlap = how.overlap;
    opt.run_rows = how.run_rows ? run_rows.as<std::int32_t>() : nullptr;
    const int vec = n % 4 == 0 && !how.unaligned_b ? 4 : 1;
    const SubwarpShape shape = nnzsplit_shape(n, vec, nv);
    if (ep.has_bias()) {
      bias = ep.bias->to(Location::device, cuda);
      p.epilogue.bias = true;
      p.epilogue.bias_values = bias.values().data();
    }
    p.epilogue.relu = ep.has_relu();
    p.epilogue.clamp = ep.clamp.has_value();
    p.epilogue.clamp_value = ep.clamp.value_or(0);
    if (cudaDeviceSynchronize() != cudaSuccess)
      return "before the launch";  // copies on ctx's stream
    // A stream of its own: the dependent launch may be ignored on the legacy default stream.
    cudaStream_t own = nullptr;
    if (cudaStreamCreate(&own) != cudaSuccess) return "stream";
    std::string launched;
    try {
      // No synchronisation between the launches when they may overlap (debug sync would wait
      // for the row pass before the dependent launch).
      spmm_nnzsplit_launch_tuned<S, MaxNV, SpmmPolicy::nnzsplit_unroll,
                                 SpmmPolicy::nnzsplit_min_blocks, Lean>(p, shape, L, false, own,
                                                                        !how.overlap, opt);
    } catch (const Error& e) {
      launched = e.what();
    }
    const bool ok = cudaStreamSynchronize(own) == cudaSuccess;
    cudaStreamDestroy(own);
    if (!launched.empty()) return launched;
    if (!ok || cudaDeviceSynchronize() != cudaSuccess) return "kernel failed";
    DenseMatrix want(m, n, Type::fp32);
    mxm(want, s, A, B, ep, {}, cpu);
    const DenseMatrix got = c.to(Location::host, cuda);
    for (Index i = 0; i < m; ++i)
      for (Index j = 0; j < n; ++j) {
        const float g = got.at<float>(i, j), w = want.at<float>(i, j);
        if (!(g == w || (std::isinf(g) && std::isinf(w) && (g > 0) == (w > 0))))
          return "L " + std::to_string(L) + ", nv " + std::to_string(shape.nv) + ", n_B " +
                 std::to_string(n) + ": C(" + std::to_string(i) + ", " + std::to_string(j) +
                 ") = " + std::to_string(g) + ", cpu " + std::to_string(w);
      }
    return "";
  }
};

TEST_F(SpmmNnzsplit, RunLengthsAroundRowBoundaries) {
  const Matrix A = rows_of_lengths(boundary_lengths(), 1700, Type::fp32, 201);
  const Semiring s = semiring("plus_times", Type::fp32);
  for (Index n : {Index(1), Index(5), Index(16), Index(64), Index(132), Index(256)}) {
    const DenseMatrix B =
        random_dense(1700, n, Type::fp32, 202 + n, Layout::row_major, ValueKind::integral);
    for (int L : {1, 2, 7, 16, 33, 64, 1000, 1 << 20})
      EXPECT_EQ(launch_and_compare<PlusTimes>(s, A, B, L, 2), "");
  }
}

TEST_F(SpmmNnzsplit, VectorsPerLaneAndWidthsPastTheLanes) {
  // n_B = 192 / 260 / 520 leave whole vectors of a lane past n_B; 136 one lane's second vector.
  const Matrix A = integral_fp32(rmat(11, 8, 203).adjacency, 204);
  const Semiring s = semiring("plus_times", Type::fp32);
  for (Index n : {Index(3), Index(16), Index(128), Index(136), Index(192), Index(256), Index(260),
                  Index(512), Index(520)})
    for (int nv : {1, 2, 4}) {
      const DenseMatrix B =
          random_dense(A.ncols(), n, Type::fp32, 205 + n, Layout::row_major, ValueKind::integral);
      for (int L : {16, 128}) EXPECT_EQ(launch_and_compare<PlusTimes>(s, A, B, L, nv), "");
    }
}

TEST_F(SpmmNnzsplit, MinPlusAtomicsAndEpilogues) {
  const Matrix A = rows_of_lengths(boundary_lengths(), 1700, Type::fp32, 206);
  const Matrix G = integral_fp32(rmat(10, 8, 207).adjacency, 208);
  for (Index n : {Index(4), Index(17), Index(256)}) {
    const DenseMatrix B =
        random_dense(1700, n, Type::fp32, 209 + n, Layout::row_major, ValueKind::integral);
    EXPECT_EQ((launch_and_compare<MinPlus, 2>(semiring("min_plus", Type::fp32), A, B, 16, 2)), "");
    const Epilogues eps(n);
    for (const Epilogue& ep : eps.all()) {
      EXPECT_EQ(launch_and_compare<PlusTimes>(semiring("plus_times", Type::fp32), A, B, 16, 2, ep),
                "")
          << "epilogue kind " << int(ep.kind);
      const DenseMatrix Bg =
          random_dense(G.ncols(), n, Type::fp32, 210 + n, Layout::row_major, ValueKind::integral);
      EXPECT_EQ(launch_and_compare<PlusTimes>(semiring("plus_times", Type::fp32), G, Bg, 64, 2, ep),
                "")
          << "epilogue kind " << int(ep.kind);
    }
  }
}

TEST_F(SpmmNnzsplit, RowPassOptionsAndUnalignedB) {
  // Every NnzsplitOptions combination (and B's rows off 16-byte boundaries) on rows around run
  // boundaries (empty rows, one row over many runs) and on R-MAT, run lengths from 1 (a run
  // per nonzero) to past nnz, n_B a multiple of 4 or not, plus_times and min_plus.
  const Matrix A = rows_of_lengths(boundary_lengths(), 1700, Type::fp32, 214);
  const Matrix G = integral_fp32(rmat(11, 8, 215).adjacency, 216);
  const Semiring pt = semiring("plus_times", Type::fp32), mp = semiring("min_plus", Type::fp32);
  const RowPass hows[] = {{true, false, false},
                          {false, true, false},
                          {true, true, false},
                          {false, false, true},
                          {true, true, true}};
  for (const RowPass& how : hows) {
    const std::string label = std::string("overlap ") + (how.overlap ? "on" : "off") +
                              ", run rows " + (how.run_rows ? "on" : "off") + ", unaligned B " +
                              (how.unaligned_b ? "on" : "off");
    for (Index n : {Index(5), Index(16), Index(64), Index(130), Index(256)}) {
      const DenseMatrix B =
          random_dense(1700, n, Type::fp32, 217 + n, Layout::row_major, ValueKind::integral);
      for (int L : {1, 8, 16, 33, 1 << 20})
        EXPECT_EQ(launch_and_compare<PlusTimes>(pt, A, B, L, 1, Epilogue::none(), how), "")
            << label;
      EXPECT_EQ((launch_and_compare<MinPlus, 2>(mp, A, B, 16, 1, Epilogue::none(), how)), "")
          << label;
      const DenseMatrix Bg =
          random_dense(G.ncols(), n, Type::fp32, 218 + n, Layout::row_major, ValueKind::integral);
      for (int L : {16, 64})
        EXPECT_EQ(launch_and_compare<PlusTimes>(pt, G, Bg, L, 1, Epilogue::relu(), how), "")
            << label;
    }
  }
}

TEST_F(SpmmNnzsplit, RowPassOptionsOnRandomShapes) {
  // Rectangular and degenerate shapes (one row, fewer rows than a warp with every other row
  // empty, more rows than columns with one full row over many runs), each option combination,
  // n_B a multiple of 4 or not.
  const Semiring pt = semiring("plus_times", Type::fp32);
  const RowPass hows[] = {{true, false, false}, {false, true, false}, {true, true, true}};
  for_random_shapes(219, [&](const Matrix& A, const DenseMatrix& B, const std::string& shape) {
    for (const RowPass& how : hows)
      for (int L : {4, 16, 128})
        EXPECT_EQ(launch_and_compare<PlusTimes>(pt, A, B, L, 1, Epilogue::none(), how), "")
            << shape << " overlap " << how.overlap << " run rows " << how.run_rows
            << " unaligned B " << how.unaligned_b;
  });
}

TEST_F(SpmmNnzsplit, LeanSumsWithAndWithoutTheRowPass) {
  // Lean: plus sums from -0 (one multiply-add per product), B's row offset in 32 bits; min_plus
  // keeps its first-product start (only the offset changes). Rows around run boundaries and
  // R-MAT, with the library's row-pass options and without them, an epilogue, B unaligned
  // (scalar path).
  const Matrix A = rows_of_lengths(boundary_lengths(), 1700, Type::fp32, 246);
  const Matrix G = integral_fp32(rmat(11, 8, 247).adjacency, 248);
  const Semiring pt = semiring("plus_times", Type::fp32), mp = semiring("min_plus", Type::fp32);
  RowPass lib, unaligned;
  lib.overlap = lib.run_rows = true;
  unaligned.unaligned_b = true;
  for (Index n : {Index(5), Index(64), Index(256)}) {
    const DenseMatrix B =
        random_dense(1700, n, Type::fp32, 249 + n, Layout::row_major, ValueKind::integral);
    const DenseMatrix Bg =
        random_dense(G.ncols(), n, Type::fp32, 250 + n, Layout::row_major, ValueKind::integral);
    for (int L : {1, 16, 33}) {
      EXPECT_EQ((launch_and_compare<PlusTimes, 4, true>(pt, A, B, L, 1, Epilogue::none(), lib)),
                "");
      EXPECT_EQ((launch_and_compare<PlusTimes, 4, true>(pt, A, B, L, 1)), "");
      EXPECT_EQ((launch_and_compare<MinPlus, 2, true>(mp, A, B, L, 1, Epilogue::none(), lib)), "");
    }
    EXPECT_EQ(
        (launch_and_compare<PlusTimes, 4, true>(pt, A, B, 16, 1, Epilogue::none(), unaligned)), "");
    EXPECT_EQ((launch_and_compare<PlusTimes, 4, true>(pt, G, Bg, 64, 1, Epilogue::relu(), lib)),
              "");
  }
}

TEST_F(SpmmNnzsplit, PublicMxmForcedAndChosenOnPowerLawGraphs) {
  // Through mxm: R-MAT (mean row about 14, so spmm_subwarp takes the nnz-split mapping) with
  // every manifest semiring at a vector width and a scalar one, checked by Backend::verify.
  const std::vector<Semiring> all = cuda::manifest::semirings<cuda::manifest::spmm_subwarp>();
  const Matrix g = rmat(10, 8, 211).adjacency;
  for (const Semiring& s : all)
    for (Index n : {Index(7), Index(64), Index(256)}) {
      Matrix A = g.cast(s.type);
      if (s.type == Type::fp32) A = integral_fp32(g, 212);
      const DenseMatrix B =
          random_dense(A.ncols(), n, s.type, 213 + n, Layout::row_major, ValueKind::integral);
      for (Variant v : {Variant::spmm_subwarp, Variant::automatic}) {
        Context ctx(Backend::verify);
        poison_device_pool(std::size_t(A.nrows() * n) * 8 + 4096, ctx);
        Descriptor d;
        d.variant = v;
        DenseMatrix C(A.nrows(), n, s.type);
        EXPECT_NO_THROW(mxm(C, s, A, B, d, ctx))
            << s.name() << " n_B " << n << " " << variant_name(v);
      }
    }
}

}  // namespace
}  // namespace ringblas::test
