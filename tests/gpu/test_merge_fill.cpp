// GPU tests of the element-wise merge's two fill methods (backend/cuda/elementwise/merge.cu):
// MergeFill::merge_path must give exactly the matrix of MergeFill::search (which Elementwise.*
// checks against the cpu executor) and of a naive host union / intersection: row pointers,
// columns and value bytes. Shapes: the degenerate catalog, rows of 8-lane groups and of warps,
// rows longer than a group stages (searched in global memory), one dense row, empty rows, A and
// B disjoint, nested and partly overlapping; union and intersection; plus, minus, first, second,
// secondi (positional); fp32, fp64, int32, bool; 32- and 64-bit indices.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backend/cuda/elementwise/elementwise.hpp"
#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"

// The launcher exists only in a build with CUDA.
#if defined(RINGBLAS_HAS_CUDA)
namespace ringblas::test {
namespace {

using cuda::elementwise::Merge;
using cuda::elementwise::MergeFill;

struct Arrays {
  std::vector<std::int64_t> rp, ci;
  std::vector<unsigned char> v;
};

Arrays arrays(const Matrix& dev, const Context& ctx) {
  const Matrix m = dev.to(Location::host, ctx);
  Arrays a;
  const std::size_t nnz = std::size_t(m.nnz()), w = type_size(m.type());
  auto idx = [&](const Buffer& b, std::size_t k) -> std::int64_t {
    return m.index_type() == IndexType::i32 ? b.as<std::int32_t>()[k] : b.as<std::int64_t>()[k];
  };
  for (std::size_t k = 0; k <= std::size_t(m.nrows()); ++k) a.rp.push_back(idx(m.row_ptr(), k));
  for (std::size_t k = 0; k < nnz; ++k) a.ci.push_back(idx(m.col_idx(), k));
  a.v.resize(nnz * w);
  if (nnz) std::memcpy(a.v.data(), m.values().data(), nnz * w);
  return a;
}

/// The naive structure of A ∪ B / A ∩ B (row pointers and columns), from host arrays.
Arrays naive_structure(const Arrays& a, const Arrays& b, bool union_of) {
  Arrays t;
  t.rp.push_back(0);
  for (std::size_t r = 0; r + 1 < a.rp.size(); ++r) {
    std::int64_t i = a.rp[r], j = b.rp[r];
    while (i < a.rp[r + 1] || j < b.rp[r + 1]) {
      const bool ha = i < a.rp[r + 1], hb = j < b.rp[r + 1];
      if (ha && hb && a.ci[std::size_t(i)] == b.ci[std::size_t(j)]) {
        t.ci.push_back(a.ci[std::size_t(i)]);
        ++i, ++j;
      } else if (ha && (!hb || a.ci[std::size_t(i)] < b.ci[std::size_t(j)])) {
        if (union_of) t.ci.push_back(a.ci[std::size_t(i)]);
        ++i;
      } else {
        if (union_of) t.ci.push_back(b.ci[std::size_t(j)]);
        ++j;
      }
    }
    t.rp.push_back(std::int64_t(t.ci.size()));
  }
  return t;
}

struct Pair {
  std::string name;
  Matrix a, b;
};

/// B from A: keep each entry of A with probability `keep`, plus random entries of density `add`.
Matrix overlapping(const Matrix& a, double keep, double add, std::uint64_t seed) {
  const Matrix extra = random_matrix(a.nrows(), a.ncols(), add, a.type(), seed, Pattern::random,
                                     ValueKind::integral, a.index_type());
  Rng rng(seed + 5);
  std::vector<Index> r, c;
  std::vector<double> v;
  for (const Matrix* m : {&a, &extra}) {
    const Matrix h = m->with_index_type(IndexType::i64);
    const auto* rp = h.row_ptr().as<std::int64_t>();
    const auto* ci = h.col_idx().as<std::int64_t>();
    for (Index i = 0; i < h.nrows(); ++i)
      for (std::int64_t p = rp[i]; p < rp[i + 1]; ++p)
        if (m == &extra || rng.chance(keep)) {
          r.push_back(i);
          c.push_back(ci[p]);
          v.push_back(random_value(rng, a.type(), ValueKind::integral));
        }
  }
  return Matrix::from_triplets(a.nrows(), a.ncols(), r, c, v, Dup::first, a.index_type())
      .cast(a.type());
}

std::vector<Pair> pairs(Type t, IndexType it, std::uint64_t seed) {
  std::vector<Pair> out;
  for (const MatrixCase& c : matrix_catalog()) {
    const Matrix a = random_matrix(c.m, c.n, c.density, t, ++seed, c.p, ValueKind::integral, it);
    const Matrix b = random_matrix(c.m, c.n, c.density, t, ++seed, c.p, ValueKind::integral, it);
    out.push_back({c.name, a, b});
  }
  // Rows of ~10 (8-lane groups), ~60 and ~300 (warps; 300 > the 256 a warp stages), a dense row
  // (global-memory rows), empty rows; B overlapping A by half, nested in A, disjoint.
  struct Big {
    const char* name;
    Index m, n;
    Pattern p;
    double density;
  };
  for (const Big& g : {Big{"short_rows", 3000, 1000, Pattern::random, 0.01},
                       Big{"warp_rows", 800, 1000, Pattern::random, 0.06},
                       Big{"long_rows", 60, 1200, Pattern::random, 0.25},
                       Big{"dense_row", 500, 3000, Pattern::dense_row, 0.004},
                       Big{"empty_rows", 2000, 600, Pattern::empty_rows, 0.03}}) {
    const Matrix a = random_matrix(g.m, g.n, g.density, t, ++seed, g.p, ValueKind::integral, it);
    out.push_back({std::string(g.name) + " half", a, overlapping(a, 0.5, g.density / 2, ++seed)});
    out.push_back({std::string(g.name) + " nested", a, overlapping(a, 0.7, 0.0, ++seed)});
    out.push_back({std::string(g.name) + " disjoint", a,
                   random_matrix(g.m, g.n, g.density, t, ++seed, g.p, ValueKind::integral, it)});
  }
  return out;
}

class MergeFillGpu : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    Context ctx(Backend::cuda);
    poison_device_pool(std::size_t(64) << 20, ctx);
  }
};

TEST_F(MergeFillGpu, MergePathEqualsSearchAndNaiveStructure) {
  Context gpu(Backend::cuda);
  std::uint64_t seed = 300;
  for (Type t : {Type::fp32, Type::fp64, Type::int32, Type::boolean})
    for (IndexType it : {IndexType::i32, IndexType::i64})
      for (const Pair& p : pairs(t, it, seed += 100)) {
        const Matrix a = p.a.to(Location::device, gpu), b = p.b.to(Location::device, gpu);
        const Arrays ha = arrays(a, gpu), hb = arrays(b, gpu);
        for (Merge how : {Merge::union_of, Merge::intersection})
          for (BinaryOpCode op : {BinaryOpCode::plus, BinaryOpCode::minus, BinaryOpCode::first,
                                  BinaryOpCode::second, BinaryOpCode::secondi}) {
            if (t == Type::boolean && op == BinaryOpCode::minus) continue;
            const std::string what = p.name + " " + std::string(type_name(t)) +
                                     (it == IndexType::i32 ? " i32 " : " i64 ") +
                                     (how == Merge::union_of ? "union op " : "intersection op ") +
                                     std::to_string(int(op));
            const Arrays want =
                arrays(cuda::elementwise::merge(a, b, op, how, gpu, MergeFill::search), gpu);
            const Arrays got =
                arrays(cuda::elementwise::merge(a, b, op, how, gpu, MergeFill::merge_path), gpu);
            const Arrays naive = naive_structure(ha, hb, how == Merge::union_of);
            EXPECT_EQ(want.rp, naive.rp) << what << " (search)";
            EXPECT_EQ(want.ci, naive.ci) << what << " (search)";
            EXPECT_EQ(got.rp, want.rp) << what;
            EXPECT_EQ(got.ci, want.ci) << what;
            EXPECT_TRUE(got.v == want.v) << what << ": values differ";
          }
      }
}

// Small enough for compute-sanitizer memcheck/racecheck: short, warp and global-memory rows.
TEST_F(MergeFillGpu, SanitizerSubset) {
  Context gpu(Backend::cuda);
  const Matrix a = random_matrix(300, 400, 0.05, Type::fp32, 1, Pattern::dense_row,
                                 ValueKind::integral, IndexType::i32);
  const Matrix b = overlapping(a, 0.5, 0.02, 2);
  const Matrix da = a.to(Location::device, gpu), db = b.to(Location::device, gpu);
  for (Merge how : {Merge::union_of, Merge::intersection}) {
    const Arrays want = arrays(
        cuda::elementwise::merge(da, db, BinaryOpCode::plus, how, gpu, MergeFill::search), gpu);
    const Arrays got = arrays(
        cuda::elementwise::merge(da, db, BinaryOpCode::plus, how, gpu, MergeFill::merge_path), gpu);
    EXPECT_EQ(got.ci, want.ci);
    EXPECT_TRUE(got.v == want.v);
  }
}

}  // namespace
}  // namespace ringblas::test
#endif  // RINGBLAS_HAS_CUDA
