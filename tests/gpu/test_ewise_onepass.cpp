// GPU tests of the one-pass element-wise merge (backend/cuda/elementwise/merge.cu k_merge_tiles,
// MergeKernel::tiles, the forced-only variant ewise_onepass until a GPU round makes it the
// default): ewise_add and ewise_mult on matrices, forced onto `ewise_onepass` and run on
// Backend::verify, which compares every entry with the cpu executor (SuiteSparse). Shapes aim at
// the kernel's seams: empty matrices and rows, 1x1, one dense row longer than a group stages
// (merged in global memory by the whole warp, twice; with 8-lane groups too), rows of very
// different lengths, both group widths (8 lanes and a warp per row), rows spanning many merge
// windows, operands that never share a column (interleaved, and one row wholly before the
// other) or always do (one pattern), and thousands of tiles (the decoupled look-back across
// blocks); every operator (positional ones see the row), the 5 value types, 32/64-bit indices,
// masks, accumulators, replace and transposes (T is formed the same way under all of them).
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>
#include <utility>

#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/op_cases.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

constexpr BinaryOpCode accums[] = {BinaryOpCode::plus, BinaryOpCode::min, BinaryOpCode::second,
                                   BinaryOpCode::times};

class EwiseOnePass : public PoisonedPoolTest<std::size_t(256) << 20> {};

Type type_at(int k) { return all_types[((k % 5) + 5) % 5]; }
IndexType index_at(int k) { return k % 2 ? IndexType::i32 : IndexType::i64; }

/// C<M> = C accum (A op B) by ewise_add (`add`) or ewise_mult on Backend::verify, the mask mode,
/// accumulator and replace flag taken from `seed`, forced onto ewise_onepass; "" when the cuda
/// result equals the cpu's.
std::string verify_case(bool add, BinaryOpCode op, const Matrix& A, const Matrix& B, Index m,
                        Index n, int seed, bool ta = false, bool tb = false) {
  const MaskMode mm = all_mask_modes[seed % 5];
  const Matrix mask = random_mask(m, n, 0.5, type_at(seed + 3), seed + 2);
  const Matrix* mp = mm == MaskMode::none || mm == MaskMode::complement_structure ? nullptr : &mask;
  const Accum acc = seed % 3 ? Accum(accums[seed % 4]) : no_accum;
  Descriptor d = make_desc(mm, seed % 4 == 0, ta, tb);
  d.variant = Variant::ewise_onepass;
  Matrix C = random_matrix(m, n, 0.2, type_at(seed + 4), seed + 5);
  Context ctx(Backend::verify);
  try {
    if (add)
      ewise_add(C, mp, acc, op, A, B, d, ctx);
    else
      ewise_mult(C, mp, acc, op, A, B, d, ctx);
  } catch (const Error& e) {
    return std::string(add ? "ewise_add " : "ewise_mult ") + std::string(binary_op_name(op)) + " " +
           describe(mm, acc, d) + ": " + e.what();
  }
  return "";
}

/// m x n with an entry at (i, j) for every j in [lo, hi) with j % step == phase (values from
/// the position, small integers), in `it` indices: operands that never share a column
/// (phases 0 and 1 of step 2: every merge step alternates; or [0, n/2) and [n/2, n): one row
/// wholly before the other).
Matrix columns_matrix(Index m, Index n, Index lo, Index hi, Index step, Index phase, Type t,
                      IndexType it) {
  std::vector<Index> rows, cols;
  std::vector<double> vals;
  for (Index i = 0; i < m; ++i)
    for (Index j = lo; j < hi && j < n; ++j)
      if (j % step == phase) {
        rows.push_back(i);
        cols.push_back(j);
        vals.push_back(double((i + 3 * j) % 7 + 1));
      }
  return Matrix::from_triplets(m, n, rows, cols, vals, Dup::error, it).cast(t);
}

// Every operator x value type x index width, masks / accumulators / replace / transposes cycled,
// on rows short enough for the 8-lane groups (m = 45 rows: two tiles of 32 rows).
TEST_F(EwiseOnePass, EveryOperatorTypeIndexWidthShortRows) {
  const Index m = 45, n = 37;
  int seed = 0;
  for (bool add : {true, false})
    for (BinaryOpCode op : all_binary_ops)
      for (int t = 0; t < 5; ++t) {
        ++seed;
        const bool ta = seed % 2, tb = (seed / 2) % 2;
        const Pattern p = seed % 3 == 0 ? Pattern::empty_rows : Pattern::random;
        const Matrix A =
            ta ? random_matrix(n, m, 0.3, type_at(t), seed, p, ValueKind::integral, index_at(seed))
               : random_matrix(m, n, 0.3, type_at(t), seed, p, ValueKind::integral, index_at(seed));
        const Matrix B = tb ? random_matrix(n, m, 0.4, type_at(t + 1), seed + 1, Pattern::random,
                                            ValueKind::integral, index_at(seed / 2))
                            : random_matrix(m, n, 0.4, type_at(t + 1), seed + 1, Pattern::random,
                                            ValueKind::integral, index_at(seed / 2));
        EXPECT_EQ(verify_case(add, op, A, B, m, n, seed, ta, tb), "");
      }
}

// Shapes at the kernel's seams, each for both operations, cycling types and index widths:
// {rows, cols, density of A, density of B, pattern of A}.
TEST_F(EwiseOnePass, ShapesAndRowLengths) {
  struct Shape {
    Index m, n;
    double da, db;
    Pattern pa;
  };
  const Shape shapes[] = {
      {0, 0, 0.5, 0.5, Pattern::random},              // no rows
      {0, 9, 0.5, 0.5, Pattern::random},              // no rows, some columns
      {7, 0, 0.5, 0.5, Pattern::random},              // rows, no columns
      {1, 1, 1.0, 1.0, Pattern::full},                // 1x1, both entries
      {1, 1, 1.0, 0.0, Pattern::full},                // 1x1, A only
      {1, 1, 0.0, 1.0, Pattern::empty},               // 1x1, B only
      {40, 30, 0.0, 0.0, Pattern::empty},             // nothing anywhere
      {40, 30, 0.3, 0.0, Pattern::random},            // B empty (intersection empty, union = A)
      {1, 3000, 0.5, 0.3, Pattern::random},           // one row past a warp's staging (global walk)
      {200, 2000, 0.001, 0.001, Pattern::dense_row},  // 8 lanes; a 2000-entry row in the middle
      {300, 600, 0.1, 0.1, Pattern::dense_row},       // a warp per row; the dense row unstaged
      {300, 40, 0.3, 0.6, Pattern::empty_rows},       // every other row of A empty
      {257, 257, 0.02, 0.5, Pattern::diagonal},       // A diagonal, B dense-ish
      {129, 64, 1.0, 1.0, Pattern::full},             // one pattern (nnz(T) = nnz(A) = nnz(B))
      {100, 800, 0.2, 0.01, Pattern::random},         // rows of A far longer than B's
      {64, 4000, 0.06, 0.06, Pattern::random},        // a warp per row, rows of ~240 (staged)
      {64, 4000, 0.2, 0.2, Pattern::random},          // rows of ~800: not staged, merged twice
  };
  int seed = 500;
  for (const Shape& s : shapes)
    for (bool add : {true, false})
      for (BinaryOpCode op : {BinaryOpCode::plus, BinaryOpCode::secondi, BinaryOpCode::minus}) {
        ++seed;
        const Matrix A = random_matrix(s.m, s.n, s.da, type_at(seed), seed, s.pa,
                                       ValueKind::integral, index_at(seed));
        const Matrix B = random_matrix(s.m, s.n, s.db, type_at(seed + 1), seed + 1, Pattern::random,
                                       ValueKind::integral, index_at(seed));
        EXPECT_EQ(verify_case(add, op, A, B, s.m, s.n, seed), "")
            << s.m << "x" << s.n << " " << pattern_name(s.pa) << " densities " << s.da << ", "
            << s.db;
      }
}

// One operand twice (one pattern: the union's bound is twice nnz(T), kept as capacity) and
// operands whose intersection is far below its bound (copied into exact buffers).
TEST_F(EwiseOnePass, SamePatternAndSparseIntersection) {
  int seed = 800;
  for (Type t : {Type::fp32, Type::fp64, Type::int32})
    for (bool add : {true, false}) {
      ++seed;
      const Matrix A = random_matrix(90, 120, 0.4, t, seed, Pattern::random, ValueKind::integral,
                                     index_at(seed));
      const Matrix B = random_matrix(90, 120, 0.05, t, seed + 1, Pattern::random,
                                     ValueKind::integral, index_at(seed));
      EXPECT_EQ(verify_case(add, BinaryOpCode::plus, A, A, 90, 120, 0), "");
      EXPECT_EQ(verify_case(add, BinaryOpCode::times, A, B, 90, 120, 0), "");
    }
}

// Thousands of tiles, so that blocks wait on predecessors' published prefixes: 8-lane groups
// (rows of ~2 entries, 6,250 tiles of 32 rows) and warps (rows of ~80, 2,500 tiles of 8 rows).
TEST_F(EwiseOnePass, ManyTilesLookBack) {
  const Matrix A8 = random_matrix(200000, 64, 0.02, Type::fp32, 1, Pattern::random,
                                  ValueKind::integral, IndexType::i32);
  const Matrix B8 = random_matrix(200000, 64, 0.02, Type::fp32, 2, Pattern::empty_rows,
                                  ValueKind::integral, IndexType::i32);
  const Matrix A32 = random_matrix(20000, 200, 0.2, Type::fp64, 3, Pattern::random,
                                   ValueKind::integral, IndexType::i64);
  const Matrix B32 = random_matrix(20000, 200, 0.2, Type::fp64, 4, Pattern::random,
                                   ValueKind::integral, IndexType::i64);
  for (bool add : {true, false}) {
    EXPECT_EQ(verify_case(add, BinaryOpCode::plus, A8, B8, 200000, 64, 0), "");
    EXPECT_EQ(verify_case(add, BinaryOpCode::max, A32, B32, 20000, 200, 0), "");
  }
}

// Operands that never share a column, for both group widths (rows of 4 and of 120 entries a
// side) and both index widths: interleaved (every merge step alternates between A and B, the
// intersection empty) and in halves (all of A's row before B's: whole windows from one side).
TEST_F(EwiseOnePass, DisjointPatterns) {
  int seed = 900;
  for (Index n : {Index(8), Index(240)})
    for (IndexType it : {IndexType::i32, IndexType::i64})
      for (bool halves : {false, true})
        for (bool add : {true, false}) {
          ++seed;
          const Index m = 70;
          const Matrix A = halves ? columns_matrix(m, n, 0, n / 2, 1, 0, Type::fp32, it)
                                  : columns_matrix(m, n, 0, n, 2, 0, Type::fp32, it);
          const Matrix B = halves ? columns_matrix(m, n, n / 2, n, 1, 0, Type::fp32, it)
                                  : columns_matrix(m, n, 0, n, 2, 1, Type::fp32, it);
          EXPECT_EQ(verify_case(add, BinaryOpCode::plus, A, B, m, n, seed), "")
              << n << " columns, " << (halves ? "halves" : "interleaved");
          EXPECT_EQ(verify_case(add, BinaryOpCode::minus, B, A, m, n, seed + 1), "");
        }
}

// Operands with one pattern and different values (every A step pairs with the B step after
// it, across window ends too), rows of 3 to 300 entries, with the operators that tell the
// operands apart.
TEST_F(EwiseOnePass, EqualPatterns) {
  int seed = 950;
  for (double density : {0.01, 0.1, 0.5, 1.0})
    for (IndexType it : {IndexType::i32, IndexType::i64})
      for (bool add : {true, false}) {
        ++seed;
        const Matrix A = random_matrix(40, 300, density, Type::fp64, seed, Pattern::random,
                                       ValueKind::integral, it);
        const Matrix B = integral_values(A, Type::fp64, seed + 7).with_index_type(it);
        for (BinaryOpCode op : {BinaryOpCode::minus, BinaryOpCode::first, BinaryOpCode::second})
          EXPECT_EQ(verify_case(add, op, A, B, 40, 300, seed), "") << "density " << density;
      }
}

// The variant engages (the trace names the one-pass kernel); the default stays count + fill;
// vectors have no ewise_onepass row (NotImplemented, the output untouched).
TEST_F(EwiseOnePass, TraceNamesTheKernel) {
  const Matrix A = random_matrix(50, 50, 0.3, Type::fp32, 9);
  const Matrix B = random_matrix(50, 50, 0.3, Type::fp32, 10);
  for (Variant v : {Variant::ewise_onepass, Variant::automatic, Variant::elementwise}) {
    std::ostringstream trace;
    Context ctx(Backend::cuda);
    ctx.trace = true;
    ctx.trace_out = &trace;
    Matrix C(50, 50, Type::fp32);
    Descriptor d;
    d.variant = v;
    ewise_add(C, nullptr, no_accum, BinaryOpCode::plus, A.to(Location::device, ctx),
              B.to(Location::device, ctx), d, ctx);
    EXPECT_EQ(trace.str().find("(one pass, merge tiles") != std::string::npos,
              v == Variant::ewise_onepass)
        << trace.str();
  }
  Vector w(20, Type::fp32);
  const Vector u = random_vector(20, 0.5, Type::fp32, 11),
               x = random_vector(20, 0.5, Type::fp32, 12);
  Descriptor d;
  d.variant = Variant::ewise_onepass;
  Context ctx(Backend::cuda);
  EXPECT_THROW(ewise_add(w, nullptr, no_accum, BinaryOpCode::plus, u, x, d, ctx), NotImplemented);
  EXPECT_EQ(w.nnz(), 0);
}

}  // namespace
}  // namespace ringblas::test
