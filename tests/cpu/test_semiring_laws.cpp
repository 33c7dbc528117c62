// Semiring laws for every catalog entry at every type it takes: monoid identity, associativity,
// commutativity, idempotence and terminal absorption, and the multiply's reads_x/reads_y traits.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "semirings/visit.hpp"

namespace {

using namespace ringblas;

template <class T>
bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b;
}

/// Samples: all of bool; small and extreme integers (wrapping arithmetic must stay associative);
/// integer-valued floats and infinities (exact under any evaluation order).
template <class T>
std::vector<T> samples() {
  if constexpr (std::is_same_v<T, bool>) {
    return {false, true};
  } else {
    std::vector<T> v;
    for (int x = -3; x <= 6; ++x) v.push_back(static_cast<T>(x));
    if constexpr (std::is_integral_v<T>) {
      v.push_back(std::numeric_limits<T>::max());
      v.push_back(std::numeric_limits<T>::min());
      v.push_back(static_cast<T>(std::numeric_limits<T>::max() - 1));
      v.push_back(static_cast<T>(1000));
    } else {
      v.push_back(std::numeric_limits<T>::infinity());
      v.push_back(-std::numeric_limits<T>::infinity());
    }
    return v;
  }
}

struct LawCase {
  std::string semiring;
  Type type;
};
void PrintTo(const LawCase& c, std::ostream* os) { *os << c.semiring << "_" << type_name(c.type); }
std::string law_name(const testing::TestParamInfo<LawCase>& p) {
  return p.param.semiring + "_" + std::string(type_name(p.param.type));
}

std::vector<LawCase> law_cases() {
  std::vector<LawCase> out;
  for (const std::string& name : semiring_catalog())
    for (Type t : {Type::boolean, Type::int32, Type::int64, Type::fp32, Type::fp64}) {
      const Semiring probe(parse_monoid(name.substr(0, name.find('_'))),
                           parse_binary_op(name.substr(name.find('_') + 1)), Type::int64);
      if (probe.positional() && t != Type::int32 && t != Type::int64) continue;
      out.push_back({name, t});
    }
  return out;
}

class SemiringLaws : public testing::TestWithParam<LawCase> {};

template <class T, class M>
void check_monoid(M m) {
  // lor/land/lxor on a numeric type are monoids only on {0, 1} (lor(5, 0) is 1, not 5), the
  // values every logical result takes.
  constexpr bool logical =
      M::code == MonoidCode::lor || M::code == MonoidCode::land || M::code == MonoidCode::lxor;
  const std::vector<T> xs = logical ? std::vector<T>{T(0), T(1)} : samples<T>();
  const T id = M::identity();
  const bool any = M::code == MonoidCode::any;
  for (T x : xs) {
    // any: x ⊕ y may be either operand, so only "one of the operands" holds; identity and
    // commutativity are not laws of GxB_ANY (any result is allowed).
    if (!any) {
      EXPECT_TRUE(same(m(x, id), x)) << "x ⊕ identity != x for x = " << +x;
      EXPECT_TRUE(same(m(id, x), x)) << "identity ⊕ x != x for x = " << +x;
    }
    if (M::idempotent) EXPECT_TRUE(same(m(x, x), x)) << "not idempotent at x = " << +x;
    if (M::has_terminal) {
      EXPECT_TRUE(same(m(x, M::terminal()), M::terminal())) << "terminal absorbs not at " << +x;
      EXPECT_TRUE(same(m(M::terminal(), x), M::terminal())) << "terminal absorbs not at " << +x;
    }
    for (T y : xs) {
      if (any) {
        const T z = m(x, y);
        EXPECT_TRUE(same(z, x) || same(z, y)) << "any(" << +x << ", " << +y << ") = " << +z;
      } else {
        EXPECT_TRUE(same(m(x, y), m(y, x))) << "not commutative at " << +x << ", " << +y;
      }
      for (T z : xs)
        EXPECT_TRUE(same(m(m(x, y), z), m(x, m(y, z))))
            << "not associative at " << +x << ", " << +y << ", " << +z;
    }
  }
  // A monoid flagged not idempotent must have a witness among the samples.
  if (!M::idempotent) {
    bool witness = false;
    for (T x : xs) witness = witness || !same(m(x, x), x);
    EXPECT_TRUE(witness) << "flagged not idempotent, but x ⊕ x == x on every sample";
  }
}

/// reads_x false: z does not depend on x; reads_x true: some sample pair shows a dependence.
template <class T, class Op>
void check_reads(Op op) {
  const std::vector<T> xs = samples<T>();
  bool depends_x = false, depends_y = false;
  for (T a : xs)
    for (T b : xs)
      for (T y : xs) {
        depends_x = depends_x || !same(op(a, y, 1, 2, 3, 4), op(b, y, 1, 2, 3, 4));
        depends_y = depends_y || !same(op(y, a, 1, 2, 3, 4), op(y, b, 1, 2, 3, 4));
      }
  EXPECT_EQ(Op::reads_x, depends_x) << binary_op_name(Op::code) << ": reads_x trait";
  // GraphBLAS's bool div is first: it never reads y, though the trait conservatively says it does.
  if (!(std::is_same_v<T, bool> && Op::code == BinaryOpCode::div))
    EXPECT_EQ(Op::reads_y, depends_y) << binary_op_name(Op::code) << ": reads_y trait";
}

TEST_P(SemiringLaws, MonoidAndMultiply) {
  const Semiring s = semiring(GetParam().semiring, GetParam().type);
  ASSERT_EQ(s.type, GetParam().type);
  visit_type(s.type, [&](auto tv) {
    using T = decltype(tv);
    sr::visit_monoid<T>(s.add, [&](auto m) { check_monoid<T>(m); });
    sr::visit_binary_op<T>(s.mul, [&](auto op) { check_reads<T>(op); });
    sr::visit_monoid<T>(s.add, [&](auto m) {
      sr::visit_binary_op<T>(s.mul, [&](auto op) {
        using S = sr::semiring<decltype(m), decltype(op)>;
        EXPECT_EQ(S::reads_a, ringblas::reads_x(s.mul));
        EXPECT_EQ(S::reads_b, ringblas::reads_y(s.mul));
        EXPECT_EQ(S::positional, s.positional());
        EXPECT_EQ(S::is_any, s.add == MonoidCode::any);
      });
    });
  });
}

INSTANTIATE_TEST_SUITE_P(Catalog, SemiringLaws, testing::ValuesIn(law_cases()), law_name);

TEST(SemiringLaws, PositionalOpsReturnTheirIndex) {
  EXPECT_EQ(sr::firsti_op<std::int64_t>{}(7, 8, 1, 2, 3, 4), 1);
  EXPECT_EQ(sr::firstj_op<std::int64_t>{}(7, 8, 1, 2, 3, 4), 2);
  EXPECT_EQ(sr::secondi_op<std::int32_t>{}(7, 8, 1, 2, 3, 4), 3);
  EXPECT_EQ(sr::secondj_op<std::int32_t>{}(7, 8, 1, 2, 3, 4), 4);
}

TEST(SemiringLaws, PositionalSemiringNeedsIntegerType) {
  for (Type t : {Type::boolean, Type::fp32, Type::fp64})
    EXPECT_THROW(semiring("any_secondi", t), InvalidValue) << type_name(t);
  EXPECT_NO_THROW(semiring("any_secondi", Type::int32));
}

TEST(SemiringLaws, EveryBinaryOpTraitMatchesBehaviour) {
  for (int c = 0; c <= static_cast<int>(BinaryOpCode::pow); ++c) {
    const auto code = static_cast<BinaryOpCode>(c);
    SCOPED_TRACE(std::string(binary_op_name(code)));
    sr::visit_binary_op<std::int32_t>(code, [](auto op) { check_reads<std::int32_t>(op); });
    sr::visit_binary_op<double>(code, [](auto op) { check_reads<double>(op); });
  }
}

TEST(SemiringLaws, FloatMinMaxIgnoreNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(sr::min_monoid<double>{}(nan, 2.0), 2.0);
  EXPECT_EQ(sr::min_monoid<double>{}(2.0, nan), 2.0);
  EXPECT_EQ(sr::max_monoid<float>{}(nan, 2.0f), 2.0f);
  EXPECT_EQ(sr::max_monoid<float>{}(2.0f, nan), 2.0f);
}

TEST(SemiringLaws, IntegerDivisionByZeroFollowsGraphBLAS) {
  using L = std::numeric_limits<std::int32_t>;
  EXPECT_EQ(sr::div<std::int32_t>(5, 0), L::max());
  EXPECT_EQ(sr::div<std::int32_t>(-5, 0), L::min());
  EXPECT_EQ(sr::div<std::int32_t>(0, 0), 0);
  EXPECT_EQ(sr::div<std::int32_t>(L::min(), -1), L::min());  // wraps
  EXPECT_EQ(sr::add<std::int32_t>(L::max(), 1), L::min());   // wraps
}

}  // namespace
