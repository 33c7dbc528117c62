// GPU tests of row_topk's search of the k-th key (common/group_select.cuh group_kth_largest, the
// register path; the block path for rows over 256 entries): select row_topk and col_topk (the same
// kernel between transposes), forced onto the cuda variant `elementwise` and run on
// Backend::verify, which compares every entry with the cpu executor (SuiteSparse; ties to the
// smaller column, NaN below every number, -0 = +0).
// Values aim at the search's rounds and early stops: all-equal rows, many keys equal at the
// threshold, keys that differ only in their low bits (the search starts below the bits every key
// shares), wide random values, negatives, signed zeros, NaN and infinities; rows of every length
// 0..200 and 256 / 257 (the register path's end), by groups of 8 lanes (short rows on average) and
// by warps, k from 0 to past every row, the 5 value types and both index widths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

using RowTopk = PoisonedPoolTest<std::size_t(256) << 20>;

/// What a row holds.
enum class Values {
  few,        ///< integers in [-3, 4]: ties everywhere
  all_equal,  ///< one value per row (negative in odd rows)
  threshold,  ///< a few 9s and 7s, then mostly 5s: k usually falls inside the run of 5s
  wide,       ///< distinct-ish values over the type's range (floats in (-1, 1)), negatives
  special,    ///< floats: -0, +0, NaN, +-inf, +-1 and tiny values mixed
  low_bits,   ///< one large value per row plus 0..7 units in the last place (negative in odd rows)
};
constexpr Values all_values[] = {Values::few,  Values::all_equal, Values::threshold,
                                 Values::wide, Values::special,   Values::low_bits};
const char* values_name(Values v) {
  constexpr const char* names[] = {"few", "all_equal", "threshold", "wide", "special", "low_bits"};
  return names[int(v)];
}

double draw(Rng& rng, Values kind, Type t, Index row) {
  switch (kind) {
    case Values::few:
      return double(rng.between(-3, 4));
    case Values::all_equal:
      return row % 2 ? -2.0 : 3.0;
    case Values::threshold:
      return rng.chance(0.05) ? 9.0 : rng.chance(0.05) ? 7.0 : rng.chance(0.8) ? 5.0 : -1.0;
    case Values::wide:
      if (t == Type::int32) return double(rng.between(-(std::int64_t(1) << 30), 1 << 30));
      if (t == Type::int64)
        return double(rng.between(-(std::int64_t(1) << 52), std::int64_t(1) << 52));
      return 2.0 * rng.uniform() - 1.0;
    case Values::special: {
      constexpr double inf = std::numeric_limits<double>::infinity();
      const double pool[] = {
          -0.0, 0.0, std::numeric_limits<double>::quiet_NaN(), inf, -inf, 1.0, -1.0, 1e-30, -1e-30};
      return pool[rng.between(0, 8)];
    }
    case Values::low_bits: {
      // Exact in the type: 1.5 plus j ulps (fp32 2^-23, fp64 2^-52), 2^30 or 2^52 plus j.
      const double j = double(rng.between(0, 7));
      const double v = t == Type::fp32   ? 1.5 + j * 0x1p-23
                       : t == Type::fp64 ? 1.5 + j * 0x1p-52
                       : t == Type::int32 ? 0x1p30 + j
                                          : 0x1p52 + j;
      return row % 2 ? -v : v;
    }
  }
  return 0.0;
}

/// nrows x ncols, row r of lengths[r % size] entries at consecutive columns from a random offset,
/// values of `kind` as `t` (special: floats only), 32- or 64-bit indices.
Matrix rows_of(Index nrows, Index ncols, const std::vector<Index>& lengths, Values kind, Type t,
               IndexType it, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Index> rp = {0}, ci;
  std::vector<double> v;
  for (Index r = 0; r < nrows; ++r) {
    const Index len = std::min(ncols, lengths[std::size_t(r) % lengths.size()]);
    const Index offset = rng.between(0, ncols - len);
    for (Index q = 0; q < len; ++q) {
      ci.push_back(offset + q);
      v.push_back(draw(rng, kind, t, r));
    }
    rp.push_back(Index(ci.size()));
  }
  return Matrix::from_csr(nrows, ncols, rp, ci, v).cast(t).with_index_type(it);
}

/// select `op` with k into an empty C on Backend::verify; "" when the cuda result equals the
/// cpu's. col_topk takes Aᵀ (the lines are A's rows either way).
std::string verify_topk(SelectOpCode op, const Matrix& A, std::int64_t k) {
  const bool col = op == SelectOpCode::col_topk;
  Descriptor d;
  d.variant = Variant::elementwise;
  d.transpose_a = col;
  Matrix C = col ? Matrix(A.ncols(), A.nrows(), A.type()) : Matrix(A.nrows(), A.ncols(), A.type());
  Context ctx(Backend::verify);
  try {
    select(C, nullptr, no_accum, op, Scalar(k), A, d, ctx);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::vector<Index> lengths_up_to(Index last) {
  std::vector<Index> out;
  for (Index len = 0; len <= last; ++len) out.push_back(len);
  return out;
}

// Rows of every length 0..200 plus 256 and 257 (average ~103: a warp per row), and of 0..40
// (average 20: groups of 8 lanes), each value kind, type and k, row and column top-k.
TEST_F(RowTopk, EveryRowLengthValueKindTypeAndK) {
  std::vector<Index> warp_rows = lengths_up_to(200);
  warp_rows.push_back(256);
  warp_rows.push_back(257);
  const std::vector<Index> group_rows = lengths_up_to(40);
  int seed = 0;
  for (const std::vector<Index>* lengths : {&std::as_const(warp_rows), &group_rows})
    for (Type t : {Type::fp32, Type::fp64, Type::int32, Type::int64, Type::boolean})
      for (Values kind : all_values) {
        if (kind == Values::special && t != Type::fp32 && t != Type::fp64) continue;
        ++seed;
        const Index m = Index(lengths->size()) + 3;  // rows cycle: a few lengths twice
        const Matrix A = rows_of(m, 260, *lengths, kind, t,
                                 seed % 2 ? IndexType::i32 : IndexType::i64, std::uint64_t(seed));
        for (std::int64_t k : {0, 1, 2, 3, 7, 8, 31, 32, 33, 100, 199, 200, 256, 1000})
          for (SelectOpCode op : {SelectOpCode::row_topk, SelectOpCode::col_topk})
            EXPECT_EQ(verify_topk(op, A, k), "")
                << select_op_name(op) << " k " << k << " " << type_name(t) << " "
                << values_name(kind) << " rows 0.." << lengths->size() << " seed " << seed;
      }
}

// Many rows (tens of thousands of groups) of random lengths, including the block path (300).
TEST_F(RowTopk, ManyRows) {
  const std::vector<Index> lengths = {96, 0, 1, 17, 96, 150, 96, 5, 96, 64, 33, 96, 300};
  for (Type t : {Type::fp32, Type::fp64})
    for (Values kind : {Values::wide, Values::few}) {
      const Matrix A = rows_of(40000, 300, lengths, kind, t, IndexType::i32, 7);
      for (std::int64_t k : {1, 8, 95})
        EXPECT_EQ(verify_topk(SelectOpCode::row_topk, A, k), "")
            << "k " << k << " " << type_name(t) << " " << values_name(kind);
    }
}

// The search's early stops on many equal keys (all keys equal: no round at all; ties at the
// threshold: the selection takes the first equal ones by column) and on keys that differ only
// in their low bits (the shared high bits are skipped), on many rows of the bench's length (96,
// a warp per row), of 20 (groups of 8 lanes) and of 300 (the block path), every value type.
TEST_F(RowTopk, ManyEqualValuesAndValuesDifferingInLowBits) {
  int seed = 100;
  for (const std::vector<Index>& lengths : {std::vector<Index>{96}, std::vector<Index>{20, 9},
                                            std::vector<Index>{300, 96}})
    for (Type t : {Type::fp32, Type::fp64, Type::int32, Type::int64, Type::boolean})
      for (Values kind : {Values::all_equal, Values::threshold, Values::low_bits}) {
        ++seed;
        const Matrix A = rows_of(3000, 400, lengths, kind, t,
                                 seed % 2 ? IndexType::i32 : IndexType::i64, std::uint64_t(seed));
        for (std::int64_t k : {1, 8, 19, 95})
          EXPECT_EQ(verify_topk(SelectOpCode::row_topk, A, k), "")
              << "k " << k << " " << type_name(t) << " " << values_name(kind) << " rows of "
              << lengths.front();
      }
}

}  // namespace
}  // namespace ringblas::test
