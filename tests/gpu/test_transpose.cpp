// GPU tests of cuda::transpose (the shared device transpose: a stable sort by column) against a
// naive host transpose (a stable counting sort written here): row pointers, row indices and value
// bits must be equal exactly, for every TransposeMethod (8- and 10-bit radix digits, the two
// counting passes). Shapes: the degenerate catalog, and generated CSRs of 100k-1M entries:
// uniform columns (3,000: both partition passes), power-law columns (a few columns of thousands
// of entries), one dense column (500: partition's single pass), one dense row, empty rows and
// columns, 1.5M columns (21-bit keys: a last 10-bit radix pass of one bit, 11-bit partition
// buckets); every value width (bool, 4 and 8 bytes: the packed-payload and the gather paths), 32-
// and 64-bit indices; repeated runs equal; column top-k through each method's transposes against
// the cpu executor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/elementwise/elementwise.hpp"
#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"

// cuda::transpose exists only in a build with CUDA (the stub has no backend-level entry points).
#if defined(RINGBLAS_HAS_CUDA)
namespace ringblas::test {
namespace {

/// A host CSR as plain arrays (indices widened to 64 bits, values as their bytes).
struct HostCsr {
  Index nrows = 0, ncols = 0;
  std::vector<std::int64_t> rp, ci;
  std::vector<unsigned char> v;
};

HostCsr host_csr(const Matrix& m) {
  HostCsr h;
  h.nrows = m.nrows();
  h.ncols = m.ncols();
  const std::size_t nnz = std::size_t(m.nnz()), w = type_size(m.type());
  auto widen = [&](const Buffer& b, std::size_t n) {
    std::vector<std::int64_t> out(n);
    for (std::size_t k = 0; k < n; ++k)
      out[k] = m.index_type() == IndexType::i32 ? b.as<std::int32_t>()[k] : b.as<std::int64_t>()[k];
    return out;
  };
  h.rp = widen(m.row_ptr(), std::size_t(m.nrows()) + 1);
  h.ci = widen(m.col_idx(), nnz);
  h.v.resize(nnz * w);
  if (nnz) std::memcpy(h.v.data(), m.values().data(), nnz * w);
  return h;
}

/// The naive transpose: count per column, scan, place rows in order (stable).
HostCsr naive_transpose(const HostCsr& a, std::size_t w) {
  HostCsr t;
  t.nrows = a.ncols;
  t.ncols = a.nrows;
  t.rp.assign(std::size_t(a.ncols) + 1, 0);
  for (std::int64_t c : a.ci) ++t.rp[std::size_t(c) + 1];
  for (std::size_t c = 0; c < std::size_t(a.ncols); ++c) t.rp[c + 1] += t.rp[c];
  std::vector<std::int64_t> at(t.rp.begin(), t.rp.end() - 1);
  t.ci.resize(a.ci.size());
  t.v.resize(a.v.size());
  for (Index r = 0; r < a.nrows; ++r)
    for (std::int64_t p = a.rp[std::size_t(r)]; p < a.rp[std::size_t(r) + 1]; ++p) {
      const std::int64_t q = at[std::size_t(a.ci[std::size_t(p)])]++;
      t.ci[std::size_t(q)] = r;
      std::memcpy(&t.v[std::size_t(q) * w], &a.v[std::size_t(p) * w], w);
    }
  return t;
}

/// First difference between two CSRs, or "" when equal.
std::string first_difference(const HostCsr& want, const HostCsr& got) {
  if (want.nrows != got.nrows || want.ncols != got.ncols) return "shape";
  if (want.rp != got.rp) return "row pointers";
  for (std::size_t k = 0; k < want.ci.size(); ++k)
    if (k >= got.ci.size() || want.ci[k] != got.ci[k])
      return "index at " + std::to_string(k) + ": want " + std::to_string(want.ci[k]) + " got " +
             (k < got.ci.size() ? std::to_string(got.ci[k]) : std::string("none"));
  if (want.v != got.v) return "values";
  return "";
}

/// A generated CSR: row r has `len(r)` entries at columns drawn by `col(u)` (u uniform in
/// [0, 1)), duplicates dropped, small integer values.
template <class Len, class Col>
Matrix generated(Index nrows, Index ncols, Type t, IndexType it, std::uint64_t seed, Len len,
                 Col col) {
  Rng rng(seed);
  std::vector<Index> r, c;
  std::vector<double> v;
  std::vector<Index> row;
  for (Index i = 0; i < nrows; ++i) {
    row.clear();
    const Index n = len(i, rng);
    for (Index k = 0; k < n; ++k) row.push_back(std::min<Index>(ncols - 1, col(rng.uniform())));
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (Index j : row) {
      r.push_back(i);
      c.push_back(j);
      v.push_back(random_value(rng, t, ValueKind::integral));
    }
  }
  return Matrix::from_triplets(nrows, ncols, r, c, v, Dup::error, it).cast(t);
}

struct Shape {
  std::string name;
  Matrix (*make)(Type, IndexType, std::uint64_t);
};

std::vector<Shape> large_shapes() {
  return {
      {"uniform_60000x3000_d24",
       [](Type t, IndexType it, std::uint64_t s) {
         return generated(
             60000, 3000, t, it, s, [](Index, Rng&) { return Index(24); },
             [](double u) { return Index(u * 3000); });
       }},
      {"powerlaw_cols_40000x40000",
       [](Type t, IndexType it, std::uint64_t s) {
         return generated(
             40000, 40000, t, it, s, [](Index, Rng& g) { return Index(g.between(1, 31)); },
             [](double u) { return Index(40000 * u * u * u); });
       }},
      {"dense_column_30000x500",
       [](Type t, IndexType it, std::uint64_t s) {
         // Column 7 in every row, plus a few others: a column of 30000 entries.
         return generated(
             30000, 500, t, it, s, [](Index, Rng&) { return Index(5); },
             [](double u) { return u < 0.3 ? Index(7) : Index(u * 500); });
       }},
      {"dense_row_2000x20000",
       [](Type t, IndexType it, std::uint64_t s) {
         // Row 1000 holds nearly every column; the other rows a few entries.
         return generated(
             2000, 20000, t, it, s,
             [](Index i, Rng&) { return i == 1000 ? Index(60000) : Index(3); },
             [](double u) { return Index(u * 20000); });
       }},
      {"wide_20000x1500000_d8",
       [](Type t, IndexType it, std::uint64_t s) {
         return generated(
             20000, 1500000, t, it, s, [](Index, Rng&) { return Index(8); },
             [](double u) { return Index(u * 1500000); });
       }},
      {"empty_rows_and_cols_50000x8000",
       [](Type t, IndexType it, std::uint64_t s) {
         // Odd rows empty, only even columns used.
         return generated(
             50000, 8000, t, it, s, [](Index i, Rng&) { return i % 2 ? Index(0) : Index(16); },
             [](double u) { return 2 * Index(u * 4000); });
       }},
  };
}

constexpr cuda::TransposeMethod methods[] = {cuda::TransposeMethod::radix8,
                                             cuda::TransposeMethod::radix10,
                                             cuda::TransposeMethod::partition};

const char* method_name(cuda::TransposeMethod m) {
  return m == cuda::TransposeMethod::radix8    ? " radix8"
         : m == cuda::TransposeMethod::radix10 ? " radix10"
                                               : " partition";
}

/// Transposes `a` on the device by every method and checks it against the naive transpose.
void check(const std::string& what, const Matrix& a, const Context& gpu) {
  const HostCsr want = naive_transpose(host_csr(a), type_size(a.type()));
  const Matrix d = a.to(Location::device, gpu);
  for (cuda::TransposeMethod m : methods) {
    const Matrix t = cuda::transpose(d, gpu, m);
    EXPECT_EQ(t.location(), Location::device) << what << method_name(m);
    EXPECT_EQ(t.type(), a.type()) << what << method_name(m);
    EXPECT_EQ(t.index_type(), a.index_type()) << what << method_name(m);
    const std::string diff = first_difference(want, host_csr(t.to(Location::host, gpu)));
    EXPECT_EQ(diff, "") << what << method_name(m);
  }
}

class TransposeGpu : public PoisonedPoolTest<std::size_t(64) << 20> {};

TEST_F(TransposeGpu, CatalogEveryTypeBothIndexWidths) {
  Context gpu(Backend::cuda);
  int seed = 10;
  for (const MatrixCase& c : matrix_catalog())
    for (Type t : {Type::boolean, Type::int32, Type::int64, Type::fp32, Type::fp64})
      for (IndexType it : {IndexType::i32, IndexType::i64}) {
        const Matrix a =
            random_matrix(c.m, c.n, c.density, t, ++seed, c.p, ValueKind::integral, it);
        check(c.name + " " + std::string(type_name(t)) + (it == IndexType::i32 ? " i32" : " i64"),
              a, gpu);
      }
}

TEST_F(TransposeGpu, LargeShapesEveryWidthBothIndexWidths) {
  Context gpu(Backend::cuda);
  std::uint64_t seed = 500;
  for (const Shape& s : large_shapes())
    for (Type t : {Type::boolean, Type::fp32, Type::fp64})
      for (IndexType it : {IndexType::i32, IndexType::i64}) {
        const Matrix a = s.make(t, it, ++seed);
        check(s.name + " " + std::string(type_name(t)) + (it == IndexType::i32 ? " i32" : " i64"),
              a, gpu);
      }
}

// Equal bytes on every run (a power-law input: long columns, several sort passes).
TEST_F(TransposeGpu, RepeatedRunsAreEqual) {
  Context gpu(Backend::cuda);
  const Matrix a = large_shapes()[1].make(Type::fp64, IndexType::i32, 77).to(Location::device, gpu);
  const HostCsr first = host_csr(cuda::transpose(a, gpu).to(Location::host, gpu));
  for (cuda::TransposeMethod m : methods)
    for (int run = 0; run < 3; ++run) {
      const HostCsr again = host_csr(cuda::transpose(a, gpu, m).to(Location::host, gpu));
      EXPECT_EQ(first_difference(first, again), "") << "run " << run << method_name(m);
    }
}

// Column top-k as select runs it (elementwise/entry.cpp: transpose, row top-k, transpose back)
// with each method's transposes, against the cpu executor's col_topk: small integer values (many
// ties, broken by the smaller row), the degenerate catalog and the large shapes (a dense row and
// a dense column, empty rows and columns, 1.5M columns), both index widths, k = 1, 3, 8.
TEST_F(TransposeGpu, ColumnTopKThroughEveryMethodMatchesCpu) {
  Context gpu(Backend::cuda), cpu(Backend::cpu);
  std::uint64_t seed = 900;
  std::vector<std::pair<std::string, Matrix>> inputs;
  for (IndexType it : {IndexType::i32, IndexType::i64}) {
    const std::string w = it == IndexType::i32 ? " i32" : " i64";
    for (const MatrixCase& c : matrix_catalog())
      inputs.emplace_back(c.name + w, random_matrix(c.m, c.n, c.density, Type::fp32, int(++seed),
                                                    c.p, ValueKind::integral, it));
    for (const Shape& s : large_shapes())
      inputs.emplace_back(s.name + w, s.make(Type::fp64, it, ++seed));
  }
  for (const auto& [name, a] : inputs)
    for (std::int64_t k : {1, 3, 8}) {
      Matrix want(a.nrows(), a.ncols(), a.type());
      select(want, nullptr, no_accum, SelectOpCode::col_topk, Scalar(k), a, {}, cpu);
      const HostCsr w = host_csr(want);
      const Matrix d = a.to(Location::device, gpu);
      for (cuda::TransposeMethod m : methods) {
        const Matrix t = cuda::transpose(
            cuda::elementwise::row_topk(cuda::transpose(d, gpu, m), Index(k), gpu), gpu, m);
        EXPECT_EQ(first_difference(w, host_csr(t.to(Location::host, gpu))), "")
            << name << " k " << k << method_name(m);
      }
    }
}

// Small enough for compute-sanitizer memcheck/racecheck: both transpose paths (8- and 1-byte
// values, 32- and 64-bit indices), each method, partition with one pass and with two.
TEST_F(TransposeGpu, SanitizerSubset) {
  Context gpu(Backend::cuda);
  const Matrix a = generated(
      4000, 300, Type::fp64, IndexType::i32, 9,
      [](Index, Rng& g) { return Index(g.between(0, 12)); },
      [](double u) { return Index(300 * u * u); });
  check("sanitizer subset", a, gpu);
  // 5000 columns: both of partition's passes (300 columns above: its single pass).
  const Matrix w = generated(
      4000, 5000, Type::fp32, IndexType::i32, 11,
      [](Index, Rng& g) { return Index(g.between(0, 12)); },
      [](double u) { return Index(5000 * u * u); });
  check("sanitizer subset 5000 columns", w, gpu);
  const Matrix b = generated(
      3000, 200, Type::boolean, IndexType::i64, 10, [](Index, Rng&) { return Index(6); },
      [](double u) { return Index(200 * u); });
  check("sanitizer subset i64 bool", b, gpu);
}

}  // namespace
}  // namespace ringblas::test
#endif  // RINGBLAS_HAS_CUDA
