// mxm_batched in the stacked layout (a mini-batch of graphs), both forms (the items, and a
// MatrixBatch of them), against each item through the dense mxm, on the cpu executor: epilogues,
// transposed items, empty and rectangular items, random shapes, the block-diagonal matrix itself,
// errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

/// Rows [r0, r0 + m) of a host dense matrix as its own matrix.
DenseMatrix rows_of(const DenseMatrix& x, Index r0, Index m) {
  std::vector<double> v;
  for (Index i = r0; i < r0 + m; ++i)
    for (Index j = 0; j < x.ncols(); ++j) v.push_back(x.at<double>(i, j));
  return DenseMatrix::from_values(m, x.ncols(), v);
}

struct Items {
  std::vector<Matrix> A;
  Index rows = 0, cols = 0;  // of op(A) stacked
};

using Shapes = std::vector<std::pair<Index, Index>>;
/// Square and rectangular items, an empty one and a 0 x 0 one.
const Shapes kShapes{{5, 5}, {1, 1}, {7, 3}, {0, 0}, {4, 6}, {3, 3}};

/// Items of the given shapes; item k has no entries when k % empty_every == empty_every - 1.
Items make_items(bool transpose, Type t, std::uint64_t seed, const Shapes& shapes = kShapes,
                 std::size_t empty_every = 6) {
  Items it;
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    const auto [m, n] = shapes[k];
    const Pattern p = k % empty_every == empty_every - 1 ? Pattern::empty : Pattern::random;
    it.A.push_back(random_matrix(m, n, 0.5, t, seed + k, p, ValueKind::integral,
                                 k % 2 ? IndexType::i32 : IndexType::i64));
    it.rows += transpose ? n : m;
    it.cols += transpose ? m : n;
  }
  return it;
}

/// Random shapes, 0-row and 0-column items among them.
Shapes random_shapes(std::size_t count, std::uint64_t seed) {
  Rng rng(seed);
  Shapes out;
  for (std::size_t k = 0; k < count; ++k) {
    Index m = rng.between(1, 12), n = rng.between(1, 12);
    if (k % 5 == 3) m = 0;
    if (k % 7 == 4) n = 0;
    out.emplace_back(m, n);
  }
  return out;
}

/// Both stacked forms equal each item's own product, exactly (integral values).
void expect_matches_items(const Semiring& s, const Epilogue& ep, bool transpose, const Items& it) {
  const Index n = 5;
  const DenseMatrix B = random_dense(it.cols, n, s.type, 3, Layout::row_major, ValueKind::integral);
  DenseMatrix C(it.rows, n, s.type), C_batch(it.rows, n, s.type);
  Descriptor d;
  d.transpose_a = transpose;
  Context ctx(Backend::cpu);
  mxm_batched(C, s, it.A, B, ep, d, ctx);
  const MatrixBatch batch(it.A, ctx);
  mxm_batched(C_batch, s, batch, B, ep, d, ctx);
  Index rb = 0, rc = 0;
  for (std::size_t k = 0; k < it.A.size(); ++k) {
    const Index m = transpose ? it.A[k].ncols() : it.A[k].nrows();
    const Index kk = transpose ? it.A[k].nrows() : it.A[k].ncols();
    DenseMatrix ck(m, n, s.type);
    mxm(ck, s, it.A[k], rows_of(B, rb, kk).to(Location::host, ctx), ep, d, ctx);
    for (Index i = 0; i < m; ++i)
      for (Index j = 0; j < n; ++j) {
        EXPECT_EQ(C.at<double>(rc + i, j), ck.at<double>(i, j))
            << "item " << k << " (" << i << ", " << j << ")";
        EXPECT_EQ(C_batch.at<double>(rc + i, j), ck.at<double>(i, j))
            << "MatrixBatch, item " << k << " (" << i << ", " << j << ")";
      }
    rb += kk;
    rc += m;
  }
}
void expect_matches_items(const Semiring& s, const Epilogue& ep, bool transpose) {
  expect_matches_items(s, ep, transpose, make_items(transpose, s.type, 11));
}

TEST(MxmBatchedStacked, MatchesItemsPlain) {
  expect_matches_items(semiring("plus_times", Type::fp64), Epilogue::none(), false);
}
TEST(MxmBatchedStacked, MatchesItemsTransposed) {
  expect_matches_items(semiring("plus_times", Type::fp64), Epilogue::none(), true);
}
TEST(MxmBatchedStacked, MatchesItemsBiasRelu) {
  const DenseVector bias = DenseVector::from_values(std::vector<double>{-2, 0, 1, -1, 3});
  expect_matches_items(semiring("plus_times", Type::fp64), Epilogue::bias_relu(bias), false);
}
TEST(MxmBatchedStacked, MatchesItemsMinPlus) {
  expect_matches_items(semiring("min_plus", Type::fp64), Epilogue::none(), false);
}

TEST(MxmBatchedStacked, MatchesItemsRandomShapes) {
  const DenseVector bias = DenseVector::from_values(std::vector<double>{1, -4, 0, 2, -1});
  for (std::uint64_t seed : {1, 2, 3, 4})
    for (bool transpose : {false, true})
      for (const char* name : {"plus_times", "max_plus"}) {
        SCOPED_TRACE(std::string(name) + ", seed " + std::to_string(seed) + ", transpose " +
                     std::to_string(transpose));
        const Semiring s = semiring(name, Type::fp64);
        const Items it =
            make_items(transpose, s.type, 100 * seed, random_shapes(20 + 10 * seed, seed), 4);
        expect_matches_items(s, Epilogue::none(), transpose, it);
        expect_matches_items(s, Epilogue::bias_relu(bias), transpose, it);
      }
}
TEST(MxmBatchedStacked, MatchesItemsOneItemAndFp32) {
  const Semiring s = semiring("plus_times", Type::fp32);
  for (bool transpose : {false, true}) {
    expect_matches_items(s, Epilogue::none(), transpose,
                         make_items(transpose, s.type, 7, Shapes{{6, 4}}));
    expect_matches_items(s, Epilogue::none(), transpose, make_items(transpose, s.type, 8));
  }
}

/// block_diagonal() holds item b's entry (i, j) at (row_offset(b) + i, col_offset(b) + j), with
/// item 0's value type and 32-bit indices, and nothing else.
TEST(MatrixBatch, BlockDiagonal) {
  Items it = make_items(false, Type::fp64, 31, random_shapes(25, 9), 4);
  it.A[1] = it.A[1].cast(Type::int32);  // cast to item 0's type
  Context ctx(Backend::cpu);
  const MatrixBatch batch(it.A, ctx);
  const Matrix& bd = batch.block_diagonal();
  ASSERT_EQ(batch.size(), it.A.size());
  EXPECT_EQ(bd.location(), Location::host);
  EXPECT_EQ(bd.type(), Type::fp64);
  EXPECT_EQ(bd.index_type(), IndexType::i32);
  EXPECT_EQ(bd.nrows(), it.rows);
  EXPECT_EQ(bd.ncols(), it.cols);
  EXPECT_NO_THROW(bd.check_invariants());
  const auto rp = bd.row_ptr_vector(), ci = bd.col_idx_vector();
  const auto v = bd.values_vector<double>();
  Index nnz = 0;
  for (std::size_t b = 0; b < it.A.size(); ++b) {
    const Matrix& a = it.A[b];
    EXPECT_EQ(batch.item_rows(b), a.nrows());
    EXPECT_EQ(batch.item_cols(b), a.ncols());
    const auto arp = a.row_ptr_vector(), aci = a.col_idx_vector();
    const auto av = a.values_vector<double>();
    for (Index i = 0; i < a.nrows(); ++i) {
      const Index r = batch.row_offset(b) + i;
      ASSERT_EQ(rp[r + 1] - rp[r], arp[i + 1] - arp[i]) << "item " << b << " row " << i;
      for (Index p = 0; p < arp[i + 1] - arp[i]; ++p) {
        EXPECT_EQ(ci[rp[r] + p], batch.col_offset(b) + aci[arp[i] + p]) << "item " << b;
        EXPECT_EQ(v[rp[r] + p], av[arp[i] + p]) << "item " << b;
      }
    }
    nnz += a.nnz();
  }
  EXPECT_EQ(bd.nnz(), nnz);
  EXPECT_EQ(batch.row_offset(batch.size()), it.rows);
  EXPECT_EQ(batch.col_offset(batch.size()), it.cols);
}

TEST(MatrixBatch, Empty) {
  const Semiring s = semiring("plus_times", Type::fp64);
  Context ctx(Backend::cpu);
  for (const MatrixBatch& batch : {MatrixBatch(), MatrixBatch({}, ctx)}) {
    EXPECT_EQ(batch.size(), 0u);
    EXPECT_EQ(batch.block_diagonal().nrows(), 0);
    DenseMatrix C(0, 3), B(0, 3);
    EXPECT_NO_THROW(mxm_batched(C, s, batch, B, Epilogue::none(), {}, ctx));
  }
}

/// The MatrixBatch form throws what the stacked form throws, with the same message.
TEST(MxmBatchedStacked, Errors) {
  const Semiring s = semiring("plus_times", Type::fp64);
  const Items it = make_items(false, Type::fp64, 5);
  const MatrixBatch batch(it.A);
  DenseMatrix C(it.rows, 2), wrong_c(it.rows + 1, 2), B(it.cols, 2), wrong_b(it.cols - 1, 2);
  const DenseVector bias3 = DenseVector::from_values(std::vector<double>{1, 2, 3});
  Descriptor tb;
  tb.transpose_b = true;
  auto message = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const std::exception& e) {
      return e.what();
    }
    return "no error";
  };
  auto expect_same = [&](DenseMatrix& c, const DenseMatrix& b, const Epilogue& ep,
                         const Descriptor& d, auto error) {
    using E = decltype(error);
    EXPECT_THROW(mxm_batched(c, s, it.A, b, ep, d), E);
    EXPECT_THROW(mxm_batched(c, s, batch, b, ep, d), E);
    EXPECT_EQ(message([&] { mxm_batched(c, s, batch, b, ep, d); }),
              message([&] { mxm_batched(c, s, it.A, b, ep, d); }));
  };
  expect_same(wrong_c, B, Epilogue::none(), {}, DimensionMismatch(""));
  expect_same(C, wrong_b, Epilogue::none(), {}, DimensionMismatch(""));
  expect_same(C, B, Epilogue::bias_add(bias3), {}, InvalidValue(""));
  expect_same(C, B, Epilogue::none(), tb, NotImplemented(""));
}

}  // namespace
}  // namespace ringblas::test
