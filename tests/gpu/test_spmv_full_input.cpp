// GPU tests of spmv_pull reading a full input vector in place (issue 9, per-call cost): u with an
// entry at every position and of the semiring's type is not copied or scattered; a full u of
// another type, or a sparse one, still is. Each case against the cpu executor (Backend::verify),
// mxv and vxm, u on the device.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ringblas::test
