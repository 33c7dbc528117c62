// GPU tests of the element-wise family (variant `elementwise`): ewise_add / ewise_mult (matrices
// and vectors), apply (unary, bound binary, index-unary), select (predicates, row/column top-k)
// and kronecker, each forced onto the cuda variant and run on Backend::verify, which compares
// it entry by entry with the cpu executor (SuiteSparse) on the same inputs: every operator x
// the 5 value types (operands of other types, so typecasts are exercised) x mask modes x
// accumulator / replace x transposes, random shapes, the degenerate catalog, top-k ties and NaN,
// shared real matrices; rejections match the cpu path; a device chain makes no host copy.
// The device pool is poisoned first so that an unwritten output entry shows up.
//
// Elementwise.RowFilter*: the variant row_filter (select by value, apply masked by A itself),
// forced, on the same checks, and the automatic choice between it and elementwise.
// compute-sanitizer subset (small, every kernel): --gtest_filter='Elementwise.Sanitizer*'
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/op_cases.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

constexpr UnaryOpCode all_unary_ops[] = {
    UnaryOpCode::identity, UnaryOpCode::ainv, UnaryOpCode::minv,
    UnaryOpCode::abs,      UnaryOpCode::lnot, UnaryOpCode::one,
    UnaryOpCode::sqrt,     UnaryOpCode::exp,  UnaryOpCode::log};
constexpr SelectOpCode predicate_ops[] = {
    SelectOpCode::tril,     SelectOpCode::triu,     SelectOpCode::diag,     SelectOpCode::offdiag,
    SelectOpCode::value_gt, SelectOpCode::value_ge, SelectOpCode::value_lt, SelectOpCode::value_le,
    SelectOpCode::value_eq, SelectOpCode::value_ne};
/// Accumulators cycled through the tests (every non-positional operator).
constexpr BinaryOpCode accum_ops[] = {
    BinaryOpCode::plus,  BinaryOpCode::min,    BinaryOpCode::max,   BinaryOpCode::times,
    BinaryOpCode::minus, BinaryOpCode::second, BinaryOpCode::first, BinaryOpCode::lor,
    BinaryOpCode::lxor,  BinaryOpCode::div,    BinaryOpCode::pair,  BinaryOpCode::land};

Type type_at(int k) { return all_types[((k % 5) + 5) % 5]; }
Pattern pattern_at(int k) {
  constexpr Pattern ps[] = {Pattern::random, Pattern::empty_rows, Pattern::dense_row,
                            Pattern::random, Pattern::full};
  return ps[k % 5];
}
ValueKind kind_at(int k) { return k % 3 == 0 ? ValueKind::general : ValueKind::integral; }

Descriptor ew_desc(MaskMode m, bool replace, bool ta, bool tb) {
  Descriptor d = make_desc(m, replace, ta, tb);
  d.variant = Variant::elementwise;
  return d;
}

/// Runs call(out, ctx) on Backend::verify (cuda variant forced by the descriptor, checked
/// against the cpu executor); "" when it agrees and leaves the output on the device.
template <class Out>
std::string verify(Out out, const std::function<void(Out&, Context&)>& call) {
  Context ctx(Backend::verify);
  try {
    call(out, ctx);
  } catch (const Error& e) {
    return e.what();
  }
  if (out.location() != Location::device) return "the result is not on the device";
  return "";
}

/// verify() of C<M> = C accum (A op B) by ewise_add (`add`) or ewise_mult.
std::string verify_ewise(bool add, const Matrix& C0, const Matrix* M, Accum acc, BinaryOpCode op,
                         const Matrix& A, const Matrix& B, const Descriptor& d) {
  return verify<Matrix>(C0, [&](Matrix& C, Context& x) {
    if (add)
      ewise_add(C, M, acc, op, A, B, d, x);
    else
      ewise_mult(C, M, acc, op, A, B, d, x);
  });
}

/// A matrix stored as op(.)'s input: nrows x ncols after an optional transpose.
/// Index widths alternate (32-bit is what device pipelines use; mixed widths meet in one call).
Matrix operand(Index m, Index n, bool transposed, double density, Type t, int seed) {
  const IndexType it = seed % 2 ? IndexType::i32 : IndexType::i64;
  return transposed ? random_matrix(n, m, density, t, seed, pattern_at(seed), kind_at(seed), it)
                    : random_matrix(m, n, density, t, seed, pattern_at(seed), kind_at(seed), it);
}

const Matrix* mask_for(MaskMode mm, const Matrix& mask) {
  return mm == MaskMode::none || mm == MaskMode::complement_structure ? nullptr : &mask;
}

/// ewise_add (`add`) or ewise_mult of A and B (stored transposed when the descriptor says) into
/// a random m x n C of type ct, under the seed's mask mode, mask, accumulator and replace flag:
/// expects verify() to pass.
void expect_ewise_case(bool add, BinaryOpCode op, const Matrix& A, const Matrix& B, Index m,
                       Index n, Type ct, Pattern p, int seed, bool ta, bool tb) {
  const MaskMode mm = all_mask_modes[seed % 5];
  const Matrix mask = random_mask(m, n, 0.5, Type::boolean, seed + 2);
  const Accum acc = seed % 3 ? Accum(accum_ops[seed % 12]) : no_accum;
  const Descriptor d = ew_desc(mm, seed % 4 == 0, ta, tb);
  EXPECT_EQ(verify_ewise(add, random_matrix(m, n, 0.2, ct, seed + 3), mask_for(mm, mask), acc, op,
                         A, B, d),
            "")
      << (add ? "ewise_add " : "ewise_mult ") << binary_op_name(op) << " " << pattern_name(p)
      << " C " << type_name(ct) << " " << describe(mm, acc, d);
}

class Elementwise : public PoisonedPoolTest<std::size_t(256) << 20> {};

// ewise_add and ewise_mult: every operator x C type (A, B of other types) x mask mode (the
// complemented structural mode alternates between a real mask and a complemented NULL mask) x
// accumulator x replace, transposes cycled.
TEST_F(Elementwise, EwiseEveryOperatorTypeMaskAccumReplaceTranspose) {
  const Index m = 23, n = 31;
  int seed = 0;
  for (bool add : {true, false})
    for (Type ct : all_types)
      for (BinaryOpCode op : all_binary_ops)
        for (MaskMode mm : all_mask_modes)
          for (bool with_accum : {false, true})
            for (bool replace : {false, true}) {
              ++seed;
              const bool ta = seed % 2, tb = (seed / 2) % 2;
              const Matrix A = operand(m, n, ta, 0.25, type_at(seed + 1), seed);
              const Matrix B = operand(m, n, tb, 0.25, type_at(seed + 2), seed + 7);
              const Matrix C0 = random_matrix(m, n, 0.2, ct, seed + 11);
              const Matrix mask = random_mask(m, n, 0.4, type_at(seed + 3), seed + 13);
              const Matrix* mp = (mm == MaskMode::complement_structure && seed % 4 == 0)
                                     ? nullptr
                                     : (mm == MaskMode::none ? nullptr : &mask);
              const Accum acc = with_accum ? Accum(accum_ops[seed % 12]) : no_accum;
              const Descriptor d = ew_desc(mm, replace, ta, tb);
              EXPECT_EQ(verify_ewise(add, C0, mp, acc, op, A, B, d), "")
                  << (add ? "ewise_add " : "ewise_mult ") << binary_op_name(op) << " C "
                  << type_name(ct) << " A " << type_name(A.type()) << " B " << type_name(B.type())
                  << " " << describe(mm, acc, d) << (mp ? "" : " (NULL mask)");
            }
}

// Rows of A and B averaging 32 entries or more take the warp-per-row merge
// (backend/cuda/elementwise/policy.hpp), shorter ones the thread-per-row walk: both, with
// partial overlap, empty rows and a dense row, every operator, transposes and masks.
TEST_F(Elementwise, EwiseLongRowsWarpPath) {
  int seed = 60;
  for (bool add : {true, false})
    for (BinaryOpCode op : all_binary_ops)
      for (Pattern p : {Pattern::random, Pattern::empty_rows, Pattern::full}) {
        ++seed;
        const Index m = 7, n = 450;
        const bool ta = seed % 2, tb = (seed / 2) % 2;
        const Type ct = type_at(seed);
        const IndexType it = seed % 3 ? IndexType::i32 : IndexType::i64;
        const Matrix A =
            ta ? random_matrix(n, m, 0.3, type_at(seed + 1), seed, p, ValueKind::integral, it)
               : random_matrix(m, n, 0.3, type_at(seed + 1), seed, p, ValueKind::integral, it);
        const Matrix B = tb ? random_matrix(n, m, 0.5, type_at(seed + 2), seed + 1, Pattern::random,
                                            ValueKind::integral)
                            : random_matrix(m, n, 0.5, type_at(seed + 2), seed + 1, Pattern::random,
                                            ValueKind::integral);
        expect_ewise_case(add, op, A, B, m, n, ct, p, seed, ta, tb);
      }
}

TEST_F(Elementwise, EwiseVectorsEveryOperatorTypeMaskAccumReplace) {
  const Index n = 57;
  int seed = 100;
  for (bool add : {true, false})
    for (Type ct : all_types)
      for (BinaryOpCode op : all_binary_ops)
        for (MaskMode mm : all_mask_modes) {
          ++seed;
          const Vector u = random_vector(n, 0.4, type_at(seed + 1), seed, kind_at(seed));
          const Vector v = random_vector(n, seed % 7 == 0 ? 0.0 : 0.4, type_at(seed + 2), seed + 1,
                                         kind_at(seed));
          const Vector w0 = random_vector(n, 0.3, ct, seed + 2);
          const Vector mask = random_vector_mask(n, 0.5, type_at(seed + 3), seed + 3);
          const Vector* mp = mm == MaskMode::none ? nullptr : &mask;
          const bool replace = seed % 2;
          const Accum acc = seed % 3 ? Accum(accum_ops[seed % 12]) : no_accum;
          const Descriptor d = ew_desc(mm, replace, false, false);
          EXPECT_EQ(verify<Vector>(w0,
                                   [&](Vector& w, Context& x) {
                                     if (add)
                                       ewise_add(w, mp, acc, op, u, v, d, x);
                                     else
                                       ewise_mult(w, mp, acc, op, u, v, d, x);
                                   }),
                    "")
              << (add ? "ewise_add " : "ewise_mult ") << binary_op_name(op) << " w "
              << type_name(ct) << " " << describe(mm, acc, d);
        }
}

// Without mask or accumulator, an operand that is full (every position stored: PageRank's
// vectors) gives T's structure beforehand (u ∩ full: u's; u ∪ full: every position), and a unary
// apply keeps u's: built directly, with no read-back of nnz. Every operator x type, the full
// operand on either side or both, the other sparse, empty or full; an accumulator into a full w
// (w stays full); then, on the cuda backend, no device-to-host copy at all.
TEST_F(Elementwise, EwiseAndApplyVectorsWithFullOperandNoMask) {
  const Index n = 61;
  int seed = 900;
  for (bool add : {true, false})
    for (Type ct : all_types)
      for (BinaryOpCode op : all_binary_ops)
        for (int full : {0, 1, 2}) {  // which operand is full: u, v, both
          ++seed;
          const double other = seed % 3 == 0 ? 0.0 : 0.4;
          const Vector u =
              random_vector(n, full != 1 ? 1.0 : other, type_at(seed + 1), seed, kind_at(seed));
          const Vector v =
              random_vector(n, full != 0 ? 1.0 : other, type_at(seed + 2), seed + 1, kind_at(seed));
          const Vector w0 = random_vector(n, 0.3, ct, seed + 2);
          const Descriptor d = ew_desc(MaskMode::none, seed % 2, false, false);
          EXPECT_EQ(verify<Vector>(w0,
                                   [&](Vector& w, Context& x) {
                                     if (add)
                                       ewise_add(w, nullptr, no_accum, op, u, v, d, x);
                                     else
                                       ewise_mult(w, nullptr, no_accum, op, u, v, d, x);
                                   }),
                    "")
              << (add ? "ewise_add " : "ewise_mult ") << binary_op_name(op) << " w "
              << type_name(ct) << " full operand " << full;
        }
  for (Type ct : {Type::fp32, Type::fp64})
    for (UnaryOpCode op : all_unary_ops) {
      ++seed;
      const Vector u = random_vector(n, seed % 2 ? 1.0 : 0.4, type_at(seed), seed, kind_at(seed));
      EXPECT_EQ(verify<Vector>(random_vector(n, 0.3, ct, seed + 1),
                               [&](Vector& w, Context& x) {
                                 apply(w, nullptr, no_accum, op, u,
                                       ew_desc(MaskMode::none, false, false, false), x);
                               }),
                "")
          << "apply (vector) " << unary_op_name(op) << " w " << type_name(ct);
    }
  // An accumulator into a full w without a mask keeps w full (write-back without compaction).
  for (bool add : {true, false})
    for (Type ct : all_types)
      for (BinaryOpCode acc : accum_ops) {
        ++seed;
        const Vector u = random_vector(n, 0.4, type_at(seed + 1), seed, kind_at(seed));
        const Vector v = random_vector(n, 0.5, type_at(seed + 2), seed + 1, kind_at(seed));
        const Descriptor d = ew_desc(MaskMode::none, seed % 2, false, false);
        EXPECT_EQ(verify<Vector>(random_vector(n, 1.0, ct, seed + 2),
                                 [&](Vector& w, Context& x) {
                                   if (add)
                                     ewise_add(w, nullptr, acc, BinaryOpCode::plus, u, v, d, x);
                                   else
                                     ewise_mult(w, nullptr, acc, BinaryOpCode::max, u, v, d, x);
                                 }),
                  "")
            << (add ? "ewise_add" : "ewise_mult") << " into a full " << type_name(ct)
            << " w, accum " << binary_op_name(acc);
      }
  Context cuda(Backend::cuda);
  const Vector full = random_vector(n, 1.0, Type::fp64, 1).to(Location::device, cuda);
  const Vector part = random_vector(n, 0.4, Type::fp64, 2).to(Location::device, cuda);
  Vector w = Vector(n, Type::fp64).to(Location::device, cuda);
  const std::uint64_t before = cuda.transfers.device_to_host;
  ewise_mult(w, nullptr, no_accum, BinaryOpCode::times, part, full, {}, cuda);
  EXPECT_EQ(w.nnz(), part.nnz());
  ewise_add(w, nullptr, no_accum, BinaryOpCode::plus, w, full, {}, cuda);
  EXPECT_EQ(w.nnz(), n);
  apply(w, nullptr, no_accum, UnaryOpCode::abs, part, {}, cuda);
  EXPECT_EQ(w.nnz(), part.nnz());
  Vector f = full;
  ewise_add(f, nullptr, BinaryOpCode::min, BinaryOpCode::plus, part, part, {}, cuda);
  EXPECT_EQ(f.nnz(), n);
  EXPECT_EQ(cuda.transfers.device_to_host, before) << "a host read-back on the full-operand path";
}

TEST_F(Elementwise, ApplyUnaryMatrixAndVectorEveryOperatorType) {
  const Index m = 19, n = 26;
  int seed = 200;
  for (Type ct : all_types)
    for (UnaryOpCode op : all_unary_ops)
      for (MaskMode mm : all_mask_modes) {
        ++seed;
        const bool ta = seed % 2, replace = (seed / 2) % 2;
        const Accum acc = seed % 3 ? Accum(accum_ops[seed % 12]) : no_accum;
        const Matrix A = operand(m, n, ta, 0.3, type_at(seed), seed);
        const Matrix C0 = random_matrix(m, n, 0.2, ct, seed + 1);
        const Matrix mask = random_mask(m, n, 0.4, Type::boolean, seed + 2);
        const Descriptor d = ew_desc(mm, replace, ta, false);
        const bool float_only =
            op == UnaryOpCode::sqrt || op == UnaryOpCode::exp || op == UnaryOpCode::log;
        if (float_only && ct != Type::fp32 && ct != Type::fp64) {
          // Rejected like the cpu executor (InvalidValue), before C is touched.
          Context cuda(Backend::cuda), cpu(Backend::cpu);
          Matrix C = C0;
          EXPECT_THROW(apply(C, mask_for(mm, mask), acc, op, A, d, cuda), InvalidValue);
          EXPECT_THROW(
              apply(C, mask_for(mm, mask), acc, op, A, make_desc(mm, replace, ta, false), cpu),
              InvalidValue);
          EXPECT_EQ(C.nnz(), C0.nnz());
          continue;
        }
        EXPECT_EQ(
            verify<Matrix>(
                C0, [&](Matrix& C, Context& x) { apply(C, mask_for(mm, mask), acc, op, A, d, x); }),
            "")
            << "apply " << unary_op_name(op) << " C " << type_name(ct) << " A "
            << type_name(A.type()) << " " << describe(mm, acc, d);
        const Vector u = random_vector(41, 0.5, type_at(seed + 1), seed, kind_at(seed));
        const Vector w0 = random_vector(41, 0.3, ct, seed + 1);
        const Vector vmask = random_vector_mask(41, 0.5, Type::int64, seed + 2);
        EXPECT_EQ(verify<Vector>(w0,
                                 [&](Vector& w, Context& x) {
                                   apply(w, mm == MaskMode::none ? nullptr : &vmask, acc, op, u, d,
                                         x);
                                 }),
                  "")
            << "apply (vector) " << unary_op_name(op) << " w " << type_name(ct) << " "
            << describe(mm, acc, d);
      }
}

TEST_F(Elementwise, ApplyBoundBinaryEveryOperatorTypeSide) {
  const Index m = 17, n = 22;
  const Scalar scalars[] = {Scalar(std::int32_t(3)), Scalar(-2.5), Scalar(true),
                            Scalar(std::int64_t(0)), Scalar(0.75f)};
  int seed = 300;
  for (Type ct : all_types)
    for (BinaryOpCode op : all_binary_ops)
      for (BindSide side : {BindSide::first, BindSide::second}) {
        ++seed;
        const MaskMode mm = all_mask_modes[seed % 5];
        const bool ta = seed % 2, replace = (seed / 3) % 2;
        const Accum acc = seed % 3 ? Accum(accum_ops[seed % 12]) : no_accum;
        const Scalar s = scalars[seed % 5];
        const Matrix A = operand(m, n, ta, 0.3, type_at(seed + 2), seed);
        const Matrix C0 = random_matrix(m, n, 0.2, ct, seed + 1);
        const Matrix mask = random_mask(m, n, 0.4, Type::fp32, seed + 2);
        const Descriptor d = ew_desc(mm, replace, ta, false);
        EXPECT_EQ(verify<Matrix>(C0,
                                 [&](Matrix& C, Context& x) {
                                   apply(C, mask_for(mm, mask), acc, op, side, s, A, d, x);
                                 }),
                  "")
            << "apply " << binary_op_name(op) << (side == BindSide::first ? " 1st" : " 2nd")
            << " scalar " << type_name(s.type()) << " C " << type_name(ct) << " A "
            << type_name(A.type()) << " " << describe(mm, acc, d);
      }
}

TEST_F(Elementwise, ApplyIndexUnaryEveryOperatorThunkType) {
  const Index m = 21, n = 14;
  int seed = 400;
  for (Type ct : all_types)
    for (IndexUnaryOpCode op :
         {IndexUnaryOpCode::rowindex, IndexUnaryOpCode::colindex, IndexUnaryOpCode::diagindex})
      for (Index thunk : {Index(0), Index(3), Index(-5)})
        for (bool ta : {false, true}) {
          ++seed;
          const MaskMode mm = all_mask_modes[seed % 5];
          const Accum acc = seed % 3 ? Accum(accum_ops[seed % 12]) : no_accum;
          const Matrix A = operand(m, n, ta, 0.35, type_at(seed), seed);
          const Matrix C0 = random_matrix(m, n, 0.2, ct, seed + 1);
          const Matrix mask = random_mask(m, n, 0.4, Type::int32, seed + 2);
          const Descriptor d = ew_desc(mm, seed % 2, ta, false);
          EXPECT_EQ(verify<Matrix>(C0,
                                   [&](Matrix& C, Context& x) {
                                     apply(C, mask_for(mm, mask), acc, op, thunk, A, d, x);
                                   }),
                    "")
              << "apply index-unary " << int(op) << " thunk " << thunk << " C " << type_name(ct)
              << " " << describe(mm, acc, d);
        }
}

TEST_F(Elementwise, SelectPredicatesEveryTypeThunkMaskAccum) {
  const Index m = 24, n = 18;
  const Scalar thunks[] = {Scalar(std::int64_t(0)), Scalar(std::int64_t(-2)),
                           Scalar(std::int32_t(3)), Scalar(0.5), Scalar(true)};
  int seed = 500;
  for (Type at : all_types)
    for (SelectOpCode op : predicate_ops)
      for (const Scalar& thunk : thunks) {
        ++seed;
        const MaskMode mm = all_mask_modes[seed % 5];
        const bool ta = seed % 2, replace = (seed / 2) % 2;
        const Accum acc = seed % 3 ? Accum(accum_ops[seed % 12]) : no_accum;
        const Matrix A = operand(m, n, ta, 0.35, at, seed);
        const Type ct = type_at(seed / 5);
        const Matrix C0 = random_matrix(m, n, 0.2, ct, seed + 1);
        const Matrix mask = random_mask(m, n, 0.4, Type::int64, seed + 2);
        const Descriptor d = ew_desc(mm, replace, ta, false);
        EXPECT_EQ(verify<Matrix>(C0,
                                 [&](Matrix& C, Context& x) {
                                   select(C, mask_for(mm, mask), acc, op, thunk, A, d, x);
                                 }),
                  "")
            << "select " << select_op_name(op) << " thunk " << type_name(thunk.type()) << " "
            << thunk.as<double>() << " A " << type_name(at) << " C " << type_name(ct) << " "
            << describe(mm, acc, d);
      }
}

// Row and column top-k with many ties (small integer values, bool), k = 0, 1, a few, and larger
// than every line; transposed inputs; masks and accumulators into a C of another type.
TEST_F(Elementwise, TopKTiesAndEveryK) {
  const Index m = 29, n = 37;
  int seed = 600;
  for (Type at : all_types)
    for (SelectOpCode op : {SelectOpCode::row_topk, SelectOpCode::col_topk})
      for (std::int64_t k : {0, 1, 2, 5, 1000}) {
        ++seed;
        const MaskMode mm = all_mask_modes[seed % 5];
        const bool ta = seed % 2, replace = (seed / 2) % 2;
        const Accum acc = seed % 3 ? Accum(accum_ops[seed % 12]) : no_accum;
        const Matrix A =
            ta ? random_matrix(n, m, 0.4, at, seed, pattern_at(seed), ValueKind::integral)
               : random_matrix(m, n, 0.4, at, seed, pattern_at(seed), ValueKind::integral);
        const Type ct = type_at(seed / 3);
        const Matrix C0 = random_matrix(m, n, 0.2, ct, seed + 1);
        const Matrix mask = random_mask(m, n, 0.5, Type::boolean, seed + 2);
        const Descriptor d = ew_desc(mm, replace, ta, false);
        EXPECT_EQ(verify<Matrix>(C0,
                                 [&](Matrix& C, Context& x) {
                                   select(C, mask_for(mm, mask), acc, op, Scalar(k), A, d, x);
                                 }),
                  "")
            << select_op_name(op) << " k " << k << " A " << type_name(at) << " C " << type_name(ct)
            << " " << describe(mm, acc, d);
      }
}

// NaN ranks below every number, -0 ties with +0 (the column decides), infinities order normally.
TEST_F(Elementwise, TopKNanSignedZeroInfinity) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> row = {nan, -0.0, 0.0, inf, -inf, 1.0, nan, 1.0, -1.0, 0.0};
  std::vector<Index> rp = {0}, ci;
  std::vector<double> vals;
  for (int r = 0; r < 4; ++r) {  // rows: rotations of `row`, one empty row
    if (r != 2)
      for (std::size_t j = 0; j < row.size(); ++j) {
        ci.push_back(Index(j));
        vals.push_back(row[(j + std::size_t(r)) % row.size()]);
      }
    rp.push_back(Index(ci.size()));
  }
  const Matrix A64 = Matrix::from_csr(4, Index(row.size()), rp, ci, vals);
  for (Type t : {Type::fp64, Type::fp32}) {
    const Matrix A = t == Type::fp64 ? A64 : A64.cast(Type::fp32);
    for (std::int64_t k : {1, 2, 3, 4, 6, 8, 9})
      for (SelectOpCode op : {SelectOpCode::row_topk, SelectOpCode::col_topk}) {
        const Index cm = A.nrows(), cn = A.ncols();
        EXPECT_EQ(verify<Matrix>(Matrix(cm, cn, t),
                                 [&](Matrix& C, Context& x) {
                                   select(C, nullptr, no_accum, op, Scalar(k), A,
                                          ew_desc(MaskMode::none, false, false, false), x);
                                 }),
                  "")
            << select_op_name(op) << " " << type_name(t) << " k " << k;
      }
  }
}

// Rows longer than the register path holds (backend/cuda/elementwise/policy.hpp, 256) take a
// block each, shorter ones a group of lanes; one call mixes both, with ties and NaN.
TEST_F(Elementwise, TopKLongAndShortRowsTogether) {
  int seed = 650;
  for (Type at : {Type::fp32, Type::int64, Type::boolean})
    for (Pattern p : {Pattern::dense_row, Pattern::random, Pattern::empty_rows})
      for (std::int64_t k : {1, 7, 300, 1000}) {
        ++seed;
        // 9 x 700: random rows hold ~280 entries at density 0.4, dense_row adds a full row of 700.
        const double density = p == Pattern::dense_row ? 0.05 : 0.4;
        const Matrix A = random_matrix(9, 700, density, at, seed, p, ValueKind::integral,
                                       seed % 2 ? IndexType::i32 : IndexType::i64);
        for (SelectOpCode op : {SelectOpCode::row_topk, SelectOpCode::col_topk}) {
          const bool ta = op == SelectOpCode::col_topk;  // long lines either way
          const Index m = ta ? 700 : 9, n = ta ? 9 : 700;
          const Accum acc = seed % 3 ? Accum(BinaryOpCode::max) : no_accum;
          const Matrix C0 = random_matrix(m, n, 0.1, at, seed + 1);
          EXPECT_EQ(verify<Matrix>(C0,
                                   [&](Matrix& C, Context& x) {
                                     select(C, nullptr, acc, op, Scalar(k), A,
                                            ew_desc(MaskMode::none, false, ta, false), x);
                                   }),
                    "")
              << select_op_name(op) << " k " << k << " " << type_name(at) << " " << pattern_name(p);
        }
      }
}

TEST_F(Elementwise, KroneckerEveryOperatorTypeMaskTranspose) {
  int seed = 700;
  for (Type ct : all_types)
    for (BinaryOpCode op : all_binary_ops) {
      ++seed;
      const bool ta = seed % 2, tb = (seed / 2) % 2;
      const MaskMode mm = all_mask_modes[seed % 5];
      const Accum acc = seed % 3 ? Accum(accum_ops[seed % 12]) : no_accum;
      const Matrix A = operand(5, 4, ta, 0.5, type_at(seed + 1), seed);
      const Matrix B = operand(3, 6, tb, 0.5, type_at(seed + 2), seed + 1);
      const Matrix C0 = random_matrix(15, 24, 0.2, ct, seed + 2);
      const Matrix mask = random_mask(15, 24, 0.4, Type::boolean, seed + 3);
      const Descriptor d = ew_desc(mm, seed % 4 == 0, ta, tb);
      EXPECT_EQ(verify<Matrix>(C0,
                               [&](Matrix& C, Context& x) {
                                 kronecker(C, mask_for(mm, mask), acc, op, A, B, d, x);
                               }),
                "")
          << "kronecker " << binary_op_name(op) << " C " << type_name(ct) << " "
          << describe(mm, acc, d);
    }
}

/// Every operation of the family on one shape (the degenerate catalog and the sanitizer subset).
void every_operation_on(const std::string& name, Index m, Index n, Pattern p, double density,
                        int seed, const std::vector<Type>& types) {
  for (Type t : types)
    for (MaskMode mm : all_mask_modes)
      for (int masking = 0; masking < 2; ++masking) {
        ++seed;
        const IndexType ia = seed % 2 ? IndexType::i32 : IndexType::i64;
        const Matrix A = random_matrix(m, n, density, t, seed, p, ValueKind::integral, ia);
        const Matrix B = random_matrix(m, n, density, t, seed + 1, p, ValueKind::integral,
                                       seed % 4 < 2 ? IndexType::i32 : IndexType::i64);
        const Matrix C0 = random_matrix(m, n, 0.3, t, seed + 2, Pattern::random);
        // masking 1: a mask with no entries (all entries masked out unless complemented).
        const Matrix mask =
            masking ? Matrix(m, n, Type::boolean) : random_mask(m, n, 0.5, Type::boolean, seed);
        const Matrix* mp = mm == MaskMode::none ? nullptr : &mask;
        const Accum acc = seed % 2 ? Accum(BinaryOpCode::plus) : no_accum;
        const Descriptor d = ew_desc(mm, seed % 3 == 0, false, false);
        const std::string what = name + " " + std::string(type_name(t)) + " " +
                                 describe(mm, acc, d) + (masking ? " empty mask" : "");
        auto run = [&](const char* op, const std::function<void(Matrix&, Context&)>& f) {
          EXPECT_EQ(verify<Matrix>(C0, f), "") << op << " on " << what;
        };
        run("ewise_add",
            [&](Matrix& C, Context& x) { ewise_add(C, mp, acc, BinaryOpCode::plus, A, B, d, x); });
        run("ewise_mult", [&](Matrix& C, Context& x) {
          ewise_mult(C, mp, acc, BinaryOpCode::times, A, B, d, x);
        });
        run("apply", [&](Matrix& C, Context& x) { apply(C, mp, acc, UnaryOpCode::ainv, A, d, x); });
        run("apply bound", [&](Matrix& C, Context& x) {
          apply(C, mp, acc, BinaryOpCode::minus, BindSide::second, Scalar(2), A, d, x);
        });
        run("apply index", [&](Matrix& C, Context& x) {
          apply(C, mp, acc, IndexUnaryOpCode::diagindex, 1, A, d, x);
        });
        run("select tril", [&](Matrix& C, Context& x) {
          select(C, mp, acc, SelectOpCode::tril, Scalar(std::int64_t(0)), A, d, x);
        });
        run("select value_gt", [&](Matrix& C, Context& x) {
          select(C, mp, acc, SelectOpCode::value_gt, Scalar(1), A, d, x);
        });
        run("row_topk", [&](Matrix& C, Context& x) {
          select(C, mp, acc, SelectOpCode::row_topk, Scalar(std::int64_t(2)), A, d, x);
        });
        run("col_topk", [&](Matrix& C, Context& x) {
          select(C, mp, acc, SelectOpCode::col_topk, Scalar(std::int64_t(1)), A, d, x);
        });
        if (m * n <= 100) {
          const Matrix K = random_matrix(2, 3, 0.5, t, seed + 3, Pattern::random);
          Matrix C(m * 2, n * 3, t);
          EXPECT_EQ(verify<Matrix>(C,
                                   [&](Matrix& c, Context& x) {
                                     kronecker(c, nullptr, no_accum, BinaryOpCode::times, A, K,
                                               ew_desc(MaskMode::none, false, false, false), x);
                                   }),
                    "")
              << "kronecker on " << what;
        }
      }
}

TEST_F(Elementwise, DegenerateCatalog) {
  int seed = 800;
  for (const MatrixCase& c : matrix_catalog()) {
    every_operation_on(c.name, c.m, c.n, c.p, c.density, seed,
                       {Type::fp64, Type::int32, Type::boolean});
    seed += 100;
  }
}

// The compute-sanitizer subset: every kernel of the family once on small inputs.
TEST_F(Elementwise, SanitizerSubset) {
  every_operation_on("sanitizer", 12, 9, Pattern::dense_row, 0.4, 4000, {Type::fp32});
  // Long rows: the warp-per-row merge (rows staged in shared memory) and the block-per-row
  // top-k.
  const Matrix L1 = random_matrix(3, 300, 0.6, Type::fp32, 11, Pattern::dense_row);
  const Matrix L2 = random_matrix(3, 300, 0.6, Type::fp32, 12, Pattern::random);
  const Descriptor plain = ew_desc(MaskMode::none, false, false, false);
  EXPECT_EQ(verify<Matrix>(Matrix(3, 300, Type::fp32),
                           [&](Matrix& C, Context& x) {
                             ewise_add(C, nullptr, no_accum, BinaryOpCode::minus, L1, L2, plain, x);
                           }),
            "");
  EXPECT_EQ(verify<Matrix>(Matrix(3, 300, Type::fp32),
                           [&](Matrix& C, Context& x) {
                             ewise_mult(C, nullptr, no_accum, BinaryOpCode::plus, L1, L2, plain, x);
                           }),
            "");
  // One pattern: the entry-by-entry pass (a positional operator: each entry's row looked up).
  EXPECT_EQ(verify<Matrix>(Matrix(3, 300, Type::fp32),
                           [&](Matrix& C, Context& x) {
                             ewise_add(C, nullptr, no_accum, BinaryOpCode::secondi, L1, L1, plain,
                                       x);
                           }),
            "");
  EXPECT_EQ(verify<Matrix>(Matrix(3, 300, Type::fp32),
                           [&](Matrix& C, Context& x) {
                             select(C, nullptr, no_accum, SelectOpCode::row_topk,
                                    Scalar(std::int64_t(5)), L1, plain, x);
                           }),
            "");
  const Vector u = random_vector(20, 0.5, Type::fp32, 1), v = random_vector(20, 0.5, Type::fp32, 2);
  const Vector mask = random_vector_mask(20, 0.5, Type::boolean, 3);
  EXPECT_EQ(verify<Vector>(Vector(20, Type::fp32),
                           [&](Vector& w, Context& x) {
                             ewise_add(w, &mask, BinaryOpCode::plus, BinaryOpCode::max, u, v,
                                       ew_desc(MaskMode::value, true, false, false), x);
                           }),
            "");
  EXPECT_EQ(verify<Vector>(Vector(20, Type::fp32),
                           [&](Vector& w, Context& x) {
                             apply(w, nullptr, no_accum, UnaryOpCode::sqrt, u,
                                   ew_desc(MaskMode::none, false, false, false), x);
                           }),
            "");
}

// A and B with one pattern (B = A + 1 in another type): the count shows it and the fill is the
// entry-by-entry pass (positional operators look their row up). Every operator, short and long
// rows, masks and accumulators.
TEST_F(Elementwise, EwiseOnePatternEntryPass) {
  int seed = 1200;
  Context cpu(Backend::cpu);
  for (bool add : {true, false})
    for (BinaryOpCode op : all_binary_ops)
      for (Pattern p : {Pattern::random, Pattern::empty_rows, Pattern::dense_row, Pattern::full}) {
        ++seed;
        const Index m = 40, n = p == Pattern::full ? 30 : 300;
        const Type at = type_at(seed), bt = type_at(seed + 1), ct = type_at(seed / 2);
        const Matrix A = random_matrix(m, n, 0.1, at, seed, p, ValueKind::integral,
                                       seed % 2 ? IndexType::i32 : IndexType::i64);
        Matrix B(m, n, bt);
        apply(B, nullptr, no_accum, BinaryOpCode::plus, BindSide::second, Scalar(std::int32_t(1)),
              A, {}, cpu);
        ASSERT_EQ(B.nnz(), A.nnz());
        expect_ewise_case(add, op, A, B, m, n, ct, p, seed, false, false);
      }
}

// Positional select over many blocks of output entries (the copy searches each entry's row
// within its block's tile): a dense row, runs of empty rows, thunks far outside the matrix.
TEST_F(Elementwise, SelectPositionalManyBlocksFarThunks) {
  int seed = 1300;
  const std::int64_t far = std::int64_t(1) << 40;
  for (Pattern p : {Pattern::dense_row, Pattern::empty_rows, Pattern::random, Pattern::diagonal})
    for (SelectOpCode op :
         {SelectOpCode::tril, SelectOpCode::triu, SelectOpCode::diag, SelectOpCode::offdiag})
      for (std::int64_t k : {-far, std::int64_t(-650), std::int64_t(-3), std::int64_t(0),
                             std::int64_t(1), std::int64_t(400), far}) {
        ++seed;
        const bool ta = seed % 2;
        const Type at = seed % 3 == 0 ? Type::boolean : seed % 3 == 1 ? Type::fp64 : Type::int32;
        const Matrix A = ta ? random_matrix(700, 300, 0.05, at, seed, p)
                            : random_matrix(300, 700, 0.05, at, seed, p);
        EXPECT_EQ(verify<Matrix>(Matrix(300, 700, at),
                                 [&](Matrix& C, Context& x) {
                                   select(C, nullptr, no_accum, op, Scalar(k), A,
                                          ew_desc(MaskMode::none, false, ta, false), x);
                                 }),
                  "")
            << select_op_name(op) << " k " << k << " " << pattern_name(p) << " " << type_name(at);
      }
}

// A masked copy as Markov clustering's pruning does it: C<M> = A with M of A's pattern, values 0/1
// for whole rows or single entries, every mask mode, into an empty and a non-empty C, with rows of
// hundreds of entries (the value mask's filter and the write-back's same-place probe).
TEST_F(Elementwise, ApplyMaskWithTheInputsPattern) {
  int seed = 1500;
  for (Pattern p : {Pattern::random, Pattern::dense_row, Pattern::empty_rows})
    for (bool per_row : {true, false})
      for (MaskMode mm : all_mask_modes) {
        ++seed;
        const Index m = 60, n = 1500;
        const Matrix A = random_matrix(m, n, 0.3, Type::fp32, seed, p);
        const std::vector<Index> rp = A.row_ptr_vector(), ci = A.col_idx_vector();
        std::vector<float> mv(ci.size());
        Rng rng{std::uint64_t(seed)};
        for (Index r = 0; r < m; ++r) {
          const bool row_on = rng.chance(0.5);
          for (Index q = rp[std::size_t(r)]; q < rp[std::size_t(r) + 1]; ++q)
            mv[std::size_t(q)] = (per_row ? row_on : rng.chance(0.5)) ? 1.f : 0.f;
        }
        const Matrix M = Matrix::from_csr(m, n, rp, ci, mv);
        const Descriptor d = ew_desc(mm, seed % 2 == 0, false, false);
        for (bool empty_c : {true, false}) {
          const Matrix C0 =
              empty_c ? Matrix(m, n, Type::fp32) : random_matrix(m, n, 0.05, Type::fp32, seed + 1);
          EXPECT_EQ(verify<Matrix>(C0,
                                   [&](Matrix& C, Context& x) {
                                     apply(C, mask_for(mm, M), no_accum, UnaryOpCode::identity, A,
                                           d, x);
                                   }),
                    "")
              << pattern_name(p) << (per_row ? " mask per row" : " mask per entry")
              << (empty_c ? " empty C " : " C ") << describe(mm, no_accum, d);
        }
      }
}

/// Rows of the lengths listed, cycled over `nrows` rows of `ncols` columns (distinct sorted
/// columns spread over the row), small integer values (many ties), NaN now and then in floats.
Matrix rows_of_lengths(Index nrows, Index ncols, const std::vector<Index>& lengths, Type t,
                       std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Index> ri, cj;
  std::vector<double> v;
  for (Index r = 0; r < nrows; ++r) {
    const Index len = std::min(ncols, lengths[std::size_t(r) % lengths.size()]);
    const Index offset = rng.between(0, ncols - len);
    for (Index q = 0; q < len; ++q) {
      ri.push_back(r);
      cj.push_back(offset + q);
      const bool nan = (t == Type::fp32 || t == Type::fp64) && rng.chance(0.05);
      v.push_back(nan ? std::numeric_limits<double>::quiet_NaN() : double(rng.between(-3, 4)));
    }
  }
  return Matrix::from_triplets(nrows, ncols, ri, cj, v, Dup::error).cast(t);
}

// Top-k rows around every threshold: rows of at most k entries (copied), rows held in registers
// by groups of 8 lanes (1 to 32 entries per lane), rows of 256 / 257 entries (the block path
// starts above 256), k around the group sizes.
TEST_F(Elementwise, TopKGroupAndBlockRowsAroundThresholds) {
  int seed = 1400;
  // Averages 10.0 entries (groups of 8 lanes), with rows of 256 and 257.
  const std::vector<Index> mostly_short = {
      257, 1, 0, 256, 2, 3, 7, 8, 9, 1, 2, 0, 15, 16, 17, 31, 32, 33, 1, 2, 3, 1, 64,
      65,  2, 1, 0,   1, 1, 2, 3, 1, 0, 2, 1, 1,  2,  3,  1,  2,  1,  0, 1, 2, 1, 2,
      3,   1, 0, 2,   1, 1, 2, 3, 1, 2, 1, 0, 1,  2,  1,  2,  3,  1,  0, 2, 1, 1, 2,
      3,   1, 2, 1,   0, 1, 2, 1, 2, 3, 1, 0, 2,  1,  1,  2,  3,  1,  2, 1, 0, 1, 2};
  const std::vector<Index> mostly_long = {40, 100, 0, 256, 257, 33, 200, 500};
  for (const auto* lengths : {&mostly_short, &mostly_long})
    for (Type t : {Type::fp32, Type::fp64, Type::int32, Type::int64, Type::boolean})
      for (std::int64_t k : {1, 3, 8, 31, 32, 33, 256, 257}) {
        ++seed;
        const Matrix A = rows_of_lengths(97, 520, *lengths, t, seed);
        EXPECT_EQ(verify<Matrix>(Matrix(97, 520, t),
                                 [&](Matrix& C, Context& x) {
                                   select(C, nullptr, no_accum, SelectOpCode::row_topk, Scalar(k),
                                          A, ew_desc(MaskMode::none, false, false, false), x);
                                 }),
                  "")
            << "row_topk k " << k << " " << type_name(t) << " avg "
            << double(A.nnz()) / double(A.nrows());
      }
}

std::vector<std::string> small_real_matrices() {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const char* name :
       {"can_96.mtx", "1138_bus.mtx", "dwt_1005.mtx", "Erdos971.mtx", "jazz.mtx", "LFAT5.mtx"}) {
    const fs::path p = fs::path(RINGBLAS_DATA_DIR) / "suitesparse" / name;
    if (fs::is_regular_file(p)) out.push_back(p.string());
  }
  return out;
}

TEST_F(Elementwise, SharedRealMatrices) {
  const auto files = small_real_matrices();
  if (files.empty()) GTEST_SKIP() << "no shared matrices under " << RINGBLAS_DATA_DIR;
  for (const std::string& f : files) {
    const Matrix A = io::read_matrix_market(f).cast(Type::fp64);
    const Index m = A.nrows(), n = A.ncols();
    const Matrix mask = random_mask(m, n, 0.05, Type::boolean, 7);
    auto run = [&](const char* op, Matrix C0, const std::function<void(Matrix&, Context&)>& g) {
      EXPECT_EQ(verify<Matrix>(std::move(C0), g), "") << op << " on " << f;
    };
    const Descriptor none = ew_desc(MaskMode::none, false, false, false);
    if (m == n) {
      const Descriptor tb = ew_desc(MaskMode::none, false, false, true);
      run("A + A'", Matrix(m, n), [&](Matrix& C, Context& x) {
        ewise_add(C, nullptr, no_accum, BinaryOpCode::plus, A, A, tb, x);
      });
      run("A .* A' <M>", Matrix(m, n), [&](Matrix& C, Context& x) {
        ewise_mult(C, &mask, no_accum, BinaryOpCode::times, A, A,
                   ew_desc(MaskMode::complement_value, false, false, true), x);
      });
    }
    run("abs", Matrix(m, n),
        [&](Matrix& C, Context& x) { apply(C, nullptr, no_accum, UnaryOpCode::abs, A, none, x); });
    run("tril", Matrix(m, n), [&](Matrix& C, Context& x) {
      select(C, nullptr, no_accum, SelectOpCode::tril, Scalar(std::int64_t(-1)), A, none, x);
    });
    run("row_topk 3", Matrix(m, n), [&](Matrix& C, Context& x) {
      select(C, nullptr, no_accum, SelectOpCode::row_topk, Scalar(std::int64_t(3)), A, none, x);
    });
    run("col_topk 2", Matrix(m, n), [&](Matrix& C, Context& x) {
      select(C, nullptr, no_accum, SelectOpCode::col_topk, Scalar(std::int64_t(2)), A, none, x);
    });
    if (A.nnz() < 2000) {
      run("kron(A, A)", Matrix(m * m, n * n), [&](Matrix& C, Context& x) {
        kronecker(C, nullptr, no_accum, BinaryOpCode::times, A, A, none, x);
      });
    }
  }
}

// What the cpu executor rejects, the cuda path rejects with the same class, leaving C untouched.
TEST_F(Elementwise, RejectionsMatchTheCpuPathAndLeaveCUntouched) {
  const Matrix A = random_matrix(6, 7, 0.5, Type::int32, 1);
  const Matrix C0 = random_matrix(6, 7, 0.5, Type::int32, 2);
  const Descriptor d = ew_desc(MaskMode::none, false, false, false);
  for (Backend b : {Backend::cuda, Backend::cpu}) {
    Context ctx(b);
    const Descriptor dd = b == Backend::cpu ? Descriptor{} : d;
    Matrix C = C0;
    EXPECT_THROW(
        ewise_add(C, nullptr, Accum(BinaryOpCode::firsti), BinaryOpCode::plus, A, A, dd, ctx),
        NotImplemented);
    EXPECT_THROW(apply(C, nullptr, no_accum, UnaryOpCode::sqrt, A, dd, ctx), InvalidValue);
    EXPECT_THROW(
        select(C, nullptr, no_accum, SelectOpCode::row_topk, Scalar(std::int64_t(-1)), A, dd, ctx),
        InvalidValue);
    EXPECT_EQ(C.location(), Location::host);
    EXPECT_EQ(C.col_idx_vector(), C0.col_idx_vector());
    EXPECT_EQ(C.values_vector<std::int32_t>(), C0.values_vector<std::int32_t>());
  }
  Context cuda(Backend::cuda);
  Descriptor other = d;
  other.variant = Variant::spgemm_hash;
  Matrix C = C0;
  EXPECT_THROW(ewise_mult(C, nullptr, no_accum, BinaryOpCode::plus, A, A, other, cuda),
               NotImplemented);
}

// A chain of device-resident operations makes no host<->device copy, ends on the device, names
// the elementwise variant in the trace, and equals the same chain on the cpu executor.
TEST_F(Elementwise, DeviceChainMakesNoHostCopy) {
  Context cpu(Backend::cpu);
  std::ostringstream trace;
  Context cuda(Backend::cuda);
  cuda.trace = true;
  cuda.trace_out = &trace;
  const Matrix A = random_matrix(300, 200, 0.05, Type::fp32, 1, Pattern::dense_row);
  const Matrix B = random_matrix(300, 200, 0.05, Type::fp32, 2);
  const Matrix dA = A.to(Location::device, cuda), dB = B.to(Location::device, cuda);
  const Matrix two = Matrix::from_triplets<float>(2, 2, {0, 1}, {1, 0}, {1.f, 2.f});
  const Matrix d_two = two.to(Location::device, cuda);
  auto chain = [](const Matrix& a, const Matrix& b, const Matrix& two, Context& ctx) {
    Matrix S(300, 200, Type::fp32), T(300, 200, Type::fp32), U(300, 200, Type::fp32);
    Matrix K(600, 400, Type::fp32);
    ewise_add(S, nullptr, no_accum, BinaryOpCode::plus, a, b, {}, ctx);
    apply(T, nullptr, no_accum, UnaryOpCode::abs, S, {}, ctx);
    select(U, nullptr, no_accum, SelectOpCode::row_topk, Scalar(std::int64_t(4)), T, {}, ctx);
    // V<S> = V + U .* T with V starting as U (a device copy on the cuda chain, not a transfer).
    Matrix V = U;
    ewise_mult(V, &S, Accum(BinaryOpCode::plus), BinaryOpCode::times, U, T, {}, ctx);
    kronecker(K, nullptr, no_accum, BinaryOpCode::times, two, V, {}, ctx);
    return K;
  };
  const Matrix want = chain(A, B, two, cpu);
  const auto before = cuda.transfers;
  const Matrix got = chain(dA, dB, d_two, cuda);
  EXPECT_EQ(got.location(), Location::device);
  EXPECT_EQ(cuda.transfers.device_to_host, before.device_to_host);
  EXPECT_EQ(cuda.transfers.host_to_device, before.host_to_device);
  const Matrix h = got.to(Location::host, cuda);
  EXPECT_EQ(h.row_ptr_vector(), want.row_ptr_vector());
  EXPECT_EQ(h.col_idx_vector(), want.col_idx_vector());
  EXPECT_EQ(h.values_vector<float>(), want.values_vector<float>());
  EXPECT_NE(trace.str().find("ewise_add: elementwise"), std::string::npos) << trace.str();
  EXPECT_NE(trace.str().find("select: elementwise, row_topk"), std::string::npos) << trace.str();
  EXPECT_EQ(trace.str().find("cpu"), std::string::npos) << trace.str();
}

// ---- Variant row_filter (elementwise/row_filter.cu), forced by the descriptor: select by value
// and apply under a mask that is A itself, each against the cpu executor as above.

Descriptor row_filter_desc(MaskMode m, bool replace, bool ta) {
  Descriptor d = make_desc(m, replace, ta, false);
  d.variant = Variant::row_filter;
  return d;
}

/// Value predicates on row_filter: every type x predicate x thunk, mask modes, accumulators,
/// replace and transposes cycled; rows of about 10 entries (groups of 8 lanes) and about 60
/// (a warp per row), with empty, full and dense rows.
TEST_F(Elementwise, RowFilterSelectByValue) {
  const Scalar thunks[] = {Scalar(std::int64_t(0)), Scalar(std::int32_t(-2)), Scalar(0.5),
                           Scalar(true), Scalar(std::int64_t(3))};
  constexpr SelectOpCode value_ops[] = {SelectOpCode::value_gt, SelectOpCode::value_ge,
                                        SelectOpCode::value_lt, SelectOpCode::value_le,
                                        SelectOpCode::value_eq, SelectOpCode::value_ne};
  int seed = 2000;
  for (Type at : all_types)
    for (SelectOpCode op : value_ops)
      for (double density : {0.1, 0.6}) {
        ++seed;
        const Index m = 37, n = 100;
        const MaskMode mm = all_mask_modes[seed % 5];
        const bool ta = seed % 2, replace = (seed / 2) % 2;
        const Accum acc = seed % 3 ? Accum(accum_ops[seed % 12]) : no_accum;
        const Scalar& thunk = thunks[seed % 5];
        const Matrix A = operand(m, n, ta, density, at, seed);
        const Matrix C0 = seed % 4 ? random_matrix(m, n, 0.2, type_at(seed / 3), seed + 1)
                                   : Matrix(m, n, type_at(seed / 3));
        const Matrix mask = random_mask(m, n, 0.4, Type::fp32, seed + 2);
        const Descriptor d = row_filter_desc(mm, replace, ta);
        EXPECT_EQ(verify<Matrix>(C0,
                                 [&](Matrix& C, Context& x) {
                                   select(C, mask_for(mm, mask), acc, op, thunk, A, d, x);
                                 }),
                  "")
            << "select " << select_op_name(op) << " thunk " << thunk.as<double>() << " A "
            << type_name(at) << " " << pattern_name(pattern_at(seed)) << " density " << density
            << " " << describe(mm, acc, d);
      }
}

/// C<A> = f(A) on row_filter, C empty: value and structural masks, complemented or not, the
/// three forms of apply (positional ones read the row), A's values with zeros (integral
/// values), C of another type, accumulators and replace (which change nothing in an empty C).
TEST_F(Elementwise, RowFilterApplyMaskedByItself) {
  Context cuda(Backend::cuda);
  int seed = 2200;
  for (Type at : all_types)
    for (Pattern p : {Pattern::random, Pattern::empty_rows, Pattern::dense_row, Pattern::full})
      for (MaskMode mm : {MaskMode::value, MaskMode::structure, MaskMode::complement_value,
                          MaskMode::complement_structure}) {
        ++seed;
        const Index m = 33, n = p == Pattern::full ? 40 : 300;
        const Matrix host =
            random_matrix(m, n, seed % 2 ? 0.05 : 0.3, at, seed, p, ValueKind::integral,
                          seed % 3 ? IndexType::i32 : IndexType::i64);
        const Matrix A = host.to(Location::device, cuda);
        const Type ct = type_at(seed / 2);
        const Accum acc = seed % 3 ? Accum(accum_ops[seed % 12]) : no_accum;
        const Descriptor d = row_filter_desc(mm, seed % 2 == 0, false);
        const std::string what = std::string(type_name(at)) + " -> " + std::string(type_name(ct)) +
                                 " " + pattern_name(p) + " " + describe(mm, acc, d);
        auto run = [&](const char* op, const std::function<void(Matrix&, Context&)>& f) {
          EXPECT_EQ(verify<Matrix>(Matrix(m, n, ct), f), "") << op << " " << what;
        };
        run("unary", [&](Matrix& C, Context& x) {
          apply(C, &A, acc, seed % 2 ? UnaryOpCode::identity : UnaryOpCode::ainv, A, d, x);
        });
        run("bound", [&](Matrix& C, Context& x) {
          apply(C, &A, acc, seed % 2 ? BinaryOpCode::minus : BinaryOpCode::secondi,
                BindSide::second, Scalar(2), A, d, x);
        });
        run("index-unary", [&](Matrix& C, Context& x) {
          apply(C, &A, acc, seed % 2 ? IndexUnaryOpCode::diagindex : IndexUnaryOpCode::rowindex,
                Index(seed % 5) - 2, A, d, x);
        });
      }
}

/// The degenerate catalog on row_filter (empty matrices, empty rows, one row, one column, ...).
TEST_F(Elementwise, RowFilterDegenerateCatalog) {
  Context cuda(Backend::cuda);
  int seed = 2400;
  for (const MatrixCase& c : matrix_catalog())
    for (Type t : {Type::fp64, Type::int32, Type::boolean}) {
      ++seed;
      const Matrix A = random_matrix(c.m, c.n, c.density, t, seed, c.p, ValueKind::integral,
                                     seed % 2 ? IndexType::i32 : IndexType::i64)
                           .to(Location::device, cuda);
      for (MaskMode mm : {MaskMode::value, MaskMode::complement_value, MaskMode::structure}) {
        const Descriptor d = row_filter_desc(mm, false, false);
        EXPECT_EQ(verify<Matrix>(Matrix(c.m, c.n, t),
                                 [&](Matrix& C, Context& x) {
                                   apply(C, &A, no_accum, UnaryOpCode::ainv, A, d, x);
                                 }),
                  "")
            << "apply on " << c.name << " " << type_name(t) << " " << mask_mode_name(mm);
        EXPECT_EQ(verify<Matrix>(Matrix(c.m, c.n, t),
                                 [&](Matrix& C, Context& x) {
                                   select(C, nullptr, no_accum, SelectOpCode::value_ne, Scalar(0),
                                          A, row_filter_desc(MaskMode::none, false, false), x);
                                 }),
                  "")
            << "select value_ne 0 on " << c.name << " " << type_name(t);
      }
    }
}

/// What row_filter cannot run is NotImplemented (naming why), C untouched: a mask other than A
/// (even of A's pattern), a non-empty C, a transposed A, a positional predicate, top-k.
TEST_F(Elementwise, RowFilterRefusesWhatItCannotRun) {
  Context cuda(Backend::cuda);
  const Matrix A = random_matrix(10, 10, 0.4, Type::fp32, 1).to(Location::device, cuda);
  const Matrix B = A;  // the same pattern, another matrix
  const Matrix C1 = random_matrix(10, 10, 0.3, Type::fp32, 2);
  const Descriptor d = row_filter_desc(MaskMode::value, false, false);
  const Descriptor dt = row_filter_desc(MaskMode::value, false, true);
  // Refused: NotImplemented naming the variant, and C as it was.
  auto refused = [&](const Matrix& C0, const std::function<void(Matrix&)>& f) {
    Matrix C = C0;
    try {
      f(C);
    } catch (const NotImplemented& e) {
      return C.nnz() == C0.nnz() && C.location() == C0.location() &&
             std::string(e.what()).find("row_filter") != std::string::npos;
    }
    return false;
  };
  const Matrix empty(10, 10, Type::fp32);  // square: a transposed A fits the mask
  EXPECT_TRUE(refused(
      empty, [&](Matrix& C) { apply(C, &B, no_accum, UnaryOpCode::identity, A, d, cuda); }));
  EXPECT_TRUE(
      refused(C1, [&](Matrix& C) { apply(C, &A, no_accum, UnaryOpCode::identity, A, d, cuda); }));
  EXPECT_TRUE(refused(
      empty, [&](Matrix& C) { apply(C, &A, no_accum, UnaryOpCode::identity, A, dt, cuda); }));
  for (SelectOpCode op : {SelectOpCode::tril, SelectOpCode::offdiag, SelectOpCode::row_topk})
    EXPECT_TRUE(refused(C1, [&](Matrix& C) {
      select(C, nullptr, no_accum, op, Scalar(std::int64_t(1)), A,
             row_filter_desc(MaskMode::none, false, false), cuda);
    })) << select_op_name(op);
}

/// automatic takes row_filter where the dispatch table's measured rule says (dispatch_tables_
/// elementwise.cpp): apply masked by A itself always, select by value from a mean row length of
/// 32; shorter rows keep `elementwise`. The results equal the cpu executor's either way.
TEST_F(Elementwise, RowFilterAutomaticChoice) {
  Context cpu(Backend::cpu);
  for (const double density : {0.5, 0.02}) {  // mean row length 100 and 4
    std::ostringstream trace;
    Context cuda(Backend::cuda);
    cuda.trace = true;
    cuda.trace_out = &trace;
    const Matrix A = random_matrix(200, 200, density, Type::fp32, 7);
    const Matrix dA = A.to(Location::device, cuda);
    Matrix want_s(200, 200, Type::fp32), got_s(200, 200, Type::fp32);
    select(want_s, nullptr, no_accum, SelectOpCode::value_gt, Scalar(0.0f), A, {}, cpu);
    select(got_s, nullptr, no_accum, SelectOpCode::value_gt, Scalar(0.0f), dA, {}, cuda);
    Matrix want_a(200, 200, Type::fp32), got_a(200, 200, Type::fp32);
    apply(want_a, &A, no_accum, UnaryOpCode::abs, A, {}, cpu);
    apply(got_a, &dA, no_accum, UnaryOpCode::abs, dA, {}, cuda);
    for (const auto& [got, want] : {std::pair{&got_s, &want_s}, std::pair{&got_a, &want_a}}) {
      const Matrix h = got->to(Location::host, cuda);
      EXPECT_EQ(h.row_ptr_vector(), want->row_ptr_vector());
      EXPECT_EQ(h.col_idx_vector(), want->col_idx_vector());
      EXPECT_EQ(h.values_vector<float>(), want->values_vector<float>());
    }
    const bool long_rows = density > 0.1;
    EXPECT_NE(trace.str().find(long_rows ? "select: row_filter" : "select: elementwise"),
              std::string::npos)
        << trace.str();
    EXPECT_NE(trace.str().find("apply: row_filter"), std::string::npos) << trace.str();
  }
}

}  // namespace
}  // namespace ringblas::test
