// GPU tests of the spmv kernels on a graph large enough for their launch shapes: the pull
// kernel's grid-stride rounds (more rows than its block cap covers in one round) with and
// without a complemented mask, and the push kernel's groups wider than a warp (a frontier of a
// few vertices, one of them the highest-degree one); against the cpu backend (Backend::verify).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"
#include "support/rmat.hpp"

namespace ringblas::test {
namespace {

class SpmvLarge : public GpuTest {
 protected:
  /// w<mask> = A ⊕.⊗ u (mxv) or u ⊕.⊗ A (vxm) with `v` forced, checked against the cpu.
  static std::string verify(bool vxm_dir, const Semiring& s, const Matrix& A, const Vector& u,
                            const Vector* mask, Descriptor d, Variant v) {
    d.variant = v;
    Context ctx(Backend::verify);
    Vector w(A.nrows(), s.type);
    try {
      if (vxm_dir)
        vxm(w, mask, no_accum, s, u, A, d, ctx);
      else
        mxv(w, mask, no_accum, s, A, u, d, ctx);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(SpmvLarge, PullRoundsAndWidePushGroupsOnRmat17) {
  // 2^17 vertices, ~4M entries: the pull launch (a sub-warp of 32 per row) needs about twice the
  // threads its block cap gives, so every warp takes two or more rounds.
  const Matrix A = rmat(17).adjacency;
  const Index n = A.nrows();
  Context gpu(Backend::cuda);
  poison_device_pool(std::size_t(A.nnz()) * 16, gpu);
  const Vector half = random_vector(n, 0.5, Type::boolean, 3);
  const Vector dense = random_vector(n, 1.0, Type::fp64, 4, ValueKind::integral);
  Descriptor unvisited;
  unvisited.mask_structure = unvisited.mask_complement = unvisited.replace = true;
  for (const char* name : {"any_pair", "lor_land"}) {
    const Semiring s = semiring(name, Type::boolean);
    EXPECT_EQ(verify(false, s, A, half, &half, unvisited, Variant::spmv_pull), "") << name;
    EXPECT_EQ(verify(false, s, A, half, nullptr, {}, Variant::spmv_pull), "") << name;
  }
  EXPECT_EQ(
      verify(false, semiring("plus_times", Type::fp64), A, dense, nullptr, {}, Variant::spmv_pull),
      "");
  // Push from a few vertices, the highest-degree one among them (its row is one wide group).
  const std::vector<Index> rp = A.row_ptr_vector();
  Index hub = 0;
  for (Index i = 1; i < n; ++i)
    if (rp[i + 1] - rp[i] > rp[hub + 1] - rp[hub]) hub = i;
  for (std::vector<Index> src : {std::vector<Index>{hub}, std::vector<Index>{0, hub, n - 1}}) {
    std::sort(src.begin(), src.end());
    const Vector u =
        Vector::from_entries<std::int64_t>(n, src, std::vector<std::int64_t>(src.size(), 1));
    EXPECT_EQ(
        verify(true, semiring("any_secondi", Type::int64), A, u, &u, unvisited, Variant::spmv_push),
        "")
        << src.size() << " sources";
    EXPECT_EQ(
        verify(true, semiring("plus_times", Type::int64), A, u, nullptr, {}, Variant::spmv_push),
        "")
        << src.size() << " sources";
  }
}

}  // namespace
}  // namespace ringblas::test
