// GPU tests of the dispatch tables (backend/core/dispatch_tables_*.cpp): automatic picks the variant
// the table's cost order and can_implement predict for each problem (read from the trace); a
// forced variant that cannot run names can_implement's reason before the output is touched; and
// verify (cpu entry against the chosen cuda entry) passes for every operation with a cuda path.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/spmv/spmv.hpp"
#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

class DispatchGpu : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    ctx.trace = true;
    ctx.trace_out = &trace;
  }
  /// The trace so far, and cleared.
  std::string take() {
    std::string t = trace.str();
    trace.str("");
    return t;
  }
  std::ostringstream trace;
  Context ctx{Backend::automatic};
  const Semiring s = semiring("plus_times", Type::fp64);
};

TEST_F(DispatchGpu, AutomaticPicksTheProductsVariants) {
  const Matrix A = random_matrix(300, 300, 0.02, Type::fp64, 1);
  const Matrix B = random_matrix(300, 300, 0.02, Type::fp64, 2);
  Matrix C(300, 300);
  mxm(C, nullptr, no_accum, s, A, B, {}, ctx);
  EXPECT_NE(take().find("[ringblas] mxm: spgemm_hash (cuda)"), std::string::npos);

  const DenseMatrix Bd = random_dense(300, 16, Type::fp64, 3);
  DenseMatrix Cd(300, 16);
  mxm(Cd, s, A, Bd, {}, ctx);
  EXPECT_NE(take().find("[ringblas] mxm (dense): spmm_rowsplit (cuda); skipped spmm_subwarp_coo: "
                        "runs only when forced"),
            std::string::npos);

  std::vector<Matrix> As{A, B};
  std::vector<DenseMatrix> Bs{Bd, Bd}, Cs{DenseMatrix(300, 16), DenseMatrix(300, 16)};
  mxm_batched(Cs, s, As, Bs, {}, ctx);
  EXPECT_NE(take().find("[ringblas] mxm_batched: spmm_batched (cuda)"), std::string::npos);

  // A dense B given transposed: no cuda SpMM takes it, so automatic is the cpu, and says why.
  Descriptor tb;
  tb.transpose_b = true;
  mxm(Cd, s, A, random_dense(16, 300, Type::fp64, 4), tb, ctx);
  const std::string t = take();
  EXPECT_NE(t.find("mxm (dense): suitesparse (cpu); skipped "), std::string::npos) << t;
  EXPECT_NE(t.find("spmm_subwarp: B must not be transposed"), std::string::npos) << t;
}

TEST_F(DispatchGpu, AutomaticSpmvFollowsTheCostModel) {
  const Matrix A = random_matrix(4000, 4000, 0.002, Type::fp64, 5);
  for (double density : {1.0, 0.3, 0.001})
    for (bool vxm_dir : {false, true})
      for (bool transposed : {false, true}) {
        const Vector u = random_vector(4000, density, Type::fp64, 6);
        Vector w(4000);
        Descriptor d;
        (vxm_dir ? d.transpose_b : d.transpose_a) = transposed;
        const bool pull_transposes = vxm_dir ? !transposed : transposed;
        const bool push = cuda::spmv::push_cost(A, u, 4000, pull_transposes) <
                          cuda::spmv::pull_cost(A, u, pull_transposes);
        if (vxm_dir)
          vxm(w, nullptr, no_accum, s, u, A, d, ctx);
        else
          mxv(w, nullptr, no_accum, s, A, u, d, ctx);
        const std::string want = std::string("[ringblas] ") + (vxm_dir ? "vxm" : "mxv") + ": " +
                                 (push ? "spmv_push" : "spmv_pull") + " (cuda)";
        EXPECT_NE(take().find(want), std::string::npos)
            << want << " density " << density << " transposed " << transposed;
      }
}

TEST_F(DispatchGpu, ForcedVariantThatCannotRunNamesCanImplementsReasonAndLeavesOutput) {
  const Matrix A = random_matrix(50, 60, 0.1, Type::fp64, 7);
  DenseMatrix C = random_dense(50, 8, Type::fp64, 8);
  const DenseMatrix before = C.to(Location::host, ctx);
  Descriptor d;
  d.variant = Variant::spmm_subwarp;
  d.transpose_b = true;
  try {
    mxm(C, s, A, random_dense(8, 60, Type::fp64, 9), d, ctx);
    ADD_FAILURE() << "spmm_subwarp ran with a transposed B";
  } catch (const NotImplemented& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "spmm_subwarp cannot run this problem: B must not be transposed"),
              std::string::npos)
        << e.what();
  }
  const DenseMatrix after = C.to(Location::host, ctx);
  for (Index i = 0; i < 50; ++i)
    for (Index j = 0; j < 8; ++j) ASSERT_EQ(after.at<double>(i, j), before.at<double>(i, j));

  d = Descriptor{};
  d.variant = Variant::sparse_layer;
  try {
    mxm(C, s, A, random_dense(60, 8, Type::fp64, 10), d, ctx);
    ADD_FAILURE() << "sparse_layer ran fp64";
  } catch (const NotImplemented& e) {
    EXPECT_NE(std::string(e.what()).find("plus_times over fp32 only"), std::string::npos)
        << e.what();
  }
}

/// One operation under Backend::verify; `pending` marks operations whose cuda kernel may still be
/// missing from this build (then only "no cuda kernel in this build" may refuse it).
struct VerifyCase {
  std::string name;
  bool pending;
  std::function<void(Context&)> run;
};

TEST_F(DispatchGpu, VerifyPassesForEveryOperationWithACudaPath) {
  const Matrix A =
      random_matrix(40, 40, 0.15, Type::fp64, 11, Pattern::random, ValueKind::integral);
  const Matrix B =
      random_matrix(40, 40, 0.15, Type::fp64, 12, Pattern::random, ValueKind::integral);
  const Matrix M = random_mask(40, 40, 0.5, Type::boolean, 13);
  const Vector u = random_vector(40, 0.4, Type::fp64, 14, ValueKind::integral);
  const Vector v = random_vector(40, 0.4, Type::fp64, 15, ValueKind::integral);
  const DenseMatrix Bd =
      random_dense(40, 8, Type::fp64, 16, Layout::row_major, ValueKind::integral);
  const Matrix small =
      random_matrix(5, 4, 0.5, Type::fp64, 17, Pattern::random, ValueKind::integral);
  const std::vector<VerifyCase> cases = {
      {"mxm", false,
       [&](Context& c) {
         Matrix C(40, 40);
         mxm(C, &M, BinaryOpCode::plus, s, A, B, {}, c);
       }},
      {"mxv", false,
       [&](Context& c) {
         Vector w(40);
         mxv(w, nullptr, no_accum, s, A, u, {}, c);
       }},
      {"vxm", false,
       [&](Context& c) {
         Vector w(40);
         vxm(w, nullptr, no_accum, s, u, A, {}, c);
       }},
      {"mxm (dense)", false,
       [&](Context& c) {
         DenseMatrix C(40, 8);
         mxm(C, s, A, Bd, {}, c);
       }},
      {"mxm (dense, epilogue)", false,
       [&](Context& c) {
         DenseMatrix C(40, 8);
         mxm(C, s, A, Bd, Epilogue::relu(), {}, c);
       }},
      {"mxm_batched", false,
       [&](Context& c) {
         std::vector<DenseMatrix> C{DenseMatrix(40, 8), DenseMatrix(40, 8)};
         mxm_batched(C, s, {A, B}, {Bd, Bd}, {}, c);
       }},
      {"ewise_add", true,
       [&](Context& c) {
         Matrix C(40, 40);
         ewise_add(C, &M, no_accum, BinaryOpCode::plus, A, B, {}, c);
       }},
      {"ewise_add (vector)", true,
       [&](Context& c) {
         Vector w(40);
         ewise_add(w, nullptr, no_accum, BinaryOpCode::max, u, v, {}, c);
       }},
      {"ewise_mult", true,
       [&](Context& c) {
         Matrix C(40, 40);
         ewise_mult(C, nullptr, BinaryOpCode::plus, BinaryOpCode::times, A, B, {}, c);
       }},
      {"ewise_mult (vector)", true,
       [&](Context& c) {
         Vector w(40);
         ewise_mult(w, nullptr, no_accum, BinaryOpCode::min, u, v, {}, c);
       }},
      {"apply", true,
       [&](Context& c) {
         Matrix C(40, 40);
         apply(C, nullptr, no_accum, UnaryOpCode::ainv, A, {}, c);
       }},
      {"apply (vector)", true,
       [&](Context& c) {
         Vector w(40);
         apply(w, nullptr, no_accum, UnaryOpCode::abs, u, {}, c);
       }},
      {"apply (bound)", true,
       [&](Context& c) {
         Matrix C(40, 40);
         apply(C, nullptr, no_accum, BinaryOpCode::plus, BindSide::second, Scalar(2.0), A, {}, c);
       }},
      {"apply (index)", true,
       [&](Context& c) {
         Matrix C(40, 40, Type::int64);
         apply(C, nullptr, no_accum, IndexUnaryOpCode::rowindex, Index(0), A, {}, c);
       }},
      {"select", true,
       [&](Context& c) {
         Matrix C(40, 40);
         select(C, nullptr, no_accum, SelectOpCode::row_topk, Scalar(Index(3)), A, {}, c);
       }},
      {"reduce", true,
       [&](Context& c) {
         Vector w(40);
         reduce(w, nullptr, no_accum, MonoidCode::plus, A, ReduceDim::rows, {}, c);
       }},
      {"reduce (scalar)", true, [&](Context& c) { (void)reduce(MonoidCode::max, A, c); }},
      {"reduce (scalar, vector)", true, [&](Context& c) { (void)reduce(MonoidCode::plus, u, c); }},
      {"transpose", true,
       [&](Context& c) {
         Matrix C(40, 40);
         transpose(C, nullptr, no_accum, A, {}, c);
       }},
      {"extract", true,
       [&](Context& c) {
         Matrix C(3, 40);
         extract(C, nullptr, no_accum, A, Indices{{5, 1, 30}}, Indices::all(), {}, c);
       }},
      {"assign", true,
       [&](Context& c) {
         Matrix C = B;
         assign(C, nullptr, BinaryOpCode::plus, small, Indices{{0, 7, 9, 39, 20}},
                Indices{{3, 2, 1, 0}}, {}, c);
       }},
      {"kronecker", true,
       [&](Context& c) {
         Matrix C(200, 160);
         kronecker(C, nullptr, no_accum, BinaryOpCode::times, small, A, {}, c);
       }},
  };
  std::string without_kernel;
  for (const VerifyCase& vc : cases) {
    Context verify(Backend::verify);
    try {
      vc.run(verify);
    } catch (const NotImplemented& e) {
      const bool missing =
          std::string(e.what()).find("no cuda kernel in this build") != std::string::npos;
      if (vc.pending && missing) {
        without_kernel += " " + vc.name;
        continue;
      }
      ADD_FAILURE() << vc.name << ": " << e.what();
    } catch (const Error& e) {
      ADD_FAILURE() << vc.name << ": " << e.what();
    }
  }
  if (!without_kernel.empty())
    std::cout << "[ note ] no cuda kernel in this build for:" << without_kernel << '\n';
}

}  // namespace
}  // namespace ringblas::test
