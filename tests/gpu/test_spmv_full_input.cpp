// GPU tests of spmv_pull reading a full input vector in place (issue 9, per-call cost): u with an
// entry at every position and of the semiring's type is not copied or scattered; a full u of
// another type, or a sparse one, still is. Each case against the cpu executor (Backend::verify),
// mxv and vxm, u on the device.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

class SpmvFullInput : public GpuTest {};

TEST_F(SpmvFullInput, InPlaceAndScatteredInputsMatchCpu) {
  Context ctx(Backend::verify);
  const Index m = 150, n = 110;
  struct Case {
    const char* semiring;
    Type s_type, u_type;
    double density;
  };
  const Case cases[] = {{"plus_times", Type::fp32, Type::fp32, 1.0},
                        {"plus_times", Type::fp64, Type::int64, 1.0},
                        {"min_plus", Type::fp64, Type::fp64, 1.0},
                        {"plus_pair", Type::fp64, Type::fp64, 1.0},
                        {"plus_times", Type::fp32, Type::fp32, 0.5}};
  std::uint64_t seed = 40;
  for (const Case& c : cases)
    for (bool vxm_dir : {false, true}) {
      const Semiring s = semiring(c.semiring, c.s_type);
      const Matrix A =
          random_matrix(m, n, 0.08, c.s_type, ++seed, Pattern::dense_row, ValueKind::integral)
              .to(Location::device, ctx);
      const Index in = vxm_dir ? m : n, out = vxm_dir ? n : m;
      const Vector u = random_vector(in, c.density, c.u_type, ++seed, ValueKind::integral)
                           .to(Location::device, ctx);
      ASSERT_EQ(c.density == 1.0, u.nnz() == in);
      for (bool accum : {false, true}) {
        Vector w = random_vector(out, 1.0, c.s_type, ++seed, ValueKind::integral)
                       .to(Location::device, ctx);
        Descriptor d;
        d.variant = Variant::spmv_pull;
        const Accum acc = accum ? Accum(BinaryOpCode::plus) : no_accum;
        const std::string what = std::string(c.semiring) + " " + std::string(type_name(c.s_type)) +
                                 " u " + std::string(type_name(c.u_type)) + " density " +
                                 std::to_string(c.density) + (vxm_dir ? " vxm" : " mxv") +
                                 (accum ? " accum" : "");
        if (vxm_dir)
          EXPECT_NO_THROW(vxm(w, nullptr, acc, s, u, A, d, ctx)) << what;
        else
          EXPECT_NO_THROW(mxv(w, nullptr, acc, s, A, u, d, ctx)) << what;
      }
    }
}

TEST_F(SpmvFullInput, FullOutputAccumulatesInPlace) {
  // w full on the device with an accumulator and no mask: w's values are updated in place,
  // also when w is u (w += A w, PageRank's shape) and when w's type differs from the semiring's.
  Context ctx(Backend::verify);
  const Index n = 130;
  std::uint64_t seed = 90;
  for (Type w_type : {Type::fp32, Type::fp64})
    for (bool alias : {false, true}) {
      const Semiring s = semiring("plus_times", Type::fp32);
      const Matrix A =
          random_matrix(n, n, 0.07, Type::fp32, ++seed, Pattern::dense_row, ValueKind::integral)
              .to(Location::device, ctx);
      Vector w =
          random_vector(n, 1.0, w_type, ++seed, ValueKind::integral).to(Location::device, ctx);
      const Vector u =
          random_vector(n, 1.0, Type::fp32, ++seed, ValueKind::integral).to(Location::device, ctx);
      for (Variant v : {Variant::spmv_pull, Variant::spmv_push}) {
        Descriptor d;
        d.variant = v;
        EXPECT_NO_THROW(mxv(w, nullptr, BinaryOpCode::plus, s, A, alias ? w : u, d, ctx))
            << type_name(w_type) << (alias ? " w += A w " : " w += A u ") << variant_name(v);
        EXPECT_EQ(w.nnz(), n);
        EXPECT_EQ(w.location(), Location::device);
      }
    }
}

/// A cuda context tracing into `trace`, and a descriptor forcing the pull kernel.
struct TracedPull {
  std::ostringstream trace;
  Context ctx{Backend::cuda};
  Descriptor d;
  TracedPull() {
    ctx.trace = true;
    ctx.trace_out = &trace;
    d.variant = Variant::spmv_pull;
  }
  bool in_place() const {
    return trace.str().find("accumulates into w in place") != std::string::npos;
  }
};

TEST_F(SpmvFullInput, AccumulateIntoWIsOneLaunchAndMatchesCpu) {
  // w full on the device, of the semiring's type, no mask, w not u: the pull kernel itself folds
  // each row's result into w (the trace says so) and rows without a product keep w(r). Against
  // the cpu executor for several accumulators, semirings with and without terminals, rows empty
  // and dense, mxv and vxm; then w = u (aliased) takes the ordinary path.
  const Index m = 140, n = 120;
  std::uint64_t seed = 300;
  Context cpu(Backend::cpu);
  for (const char* sname : {"plus_times", "min_plus", "max_times", "plus_pair"})
    for (BinaryOpCode acc : {BinaryOpCode::plus, BinaryOpCode::min, BinaryOpCode::second,
                             BinaryOpCode::times})
      for (bool vxm_dir : {false, true}) {
        const Semiring s = semiring(sname, Type::fp64);
        const Matrix A = random_matrix(m, n, 0.05, Type::fp64, ++seed, Pattern::empty_rows,
                                       ValueKind::integral);
        const Index in = vxm_dir ? m : n, out = vxm_dir ? n : m;
        const Vector u = random_vector(in, 0.6, Type::fp64, ++seed, ValueKind::integral);
        const Vector w0 = random_vector(out, 1.0, Type::fp64, ++seed, ValueKind::integral);
        Vector want = w0;
        if (vxm_dir)
          vxm(want, nullptr, acc, s, u, A, {}, cpu);
        else
          mxv(want, nullptr, acc, s, A, u, {}, cpu);
        TracedPull t;
        const Matrix Ad = A.to(Location::device, t.ctx);
        const Vector ud = u.to(Location::device, t.ctx);
        Vector w = w0.to(Location::device, t.ctx);
        if (vxm_dir)
          vxm(w, nullptr, acc, s, ud, Ad, t.d, t.ctx);
        else
          mxv(w, nullptr, acc, s, Ad, ud, t.d, t.ctx);
        const std::string what = std::string(sname) + " accum " +
                                 std::string(binary_op_name(acc)) + (vxm_dir ? " vxm" : " mxv");
        EXPECT_TRUE(t.in_place()) << what << ": " << t.trace.str();
        const Vector got = w.to(Location::host, t.ctx);
        EXPECT_EQ(got.indices_vector(), want.indices_vector()) << what;
        EXPECT_EQ(got.values_vector<double>(), want.values_vector<double>()) << what;
      }
  // w is u: not in place (each row would read entries other rows already replaced).
  const Semiring s = semiring("plus_times", Type::fp64);
  const Matrix A = random_matrix(n, n, 0.05, Type::fp64, ++seed, Pattern::empty_rows,
                                 ValueKind::integral);
  const Vector w0 = random_vector(n, 1.0, Type::fp64, ++seed, ValueKind::integral);
  Vector want = w0;
  mxv(want, nullptr, BinaryOpCode::plus, s, A, w0, {}, cpu);
  TracedPull t;
  const Matrix Ad = A.to(Location::device, t.ctx);
  Vector w = w0.to(Location::device, t.ctx);
  mxv(w, nullptr, BinaryOpCode::plus, s, Ad, w, t.d, t.ctx);
  EXPECT_FALSE(t.in_place()) << t.trace.str();
  EXPECT_EQ(w.to(Location::host, t.ctx).values_vector<double>(), want.values_vector<double>());
}

}  // namespace
}  // namespace ringblas::test
