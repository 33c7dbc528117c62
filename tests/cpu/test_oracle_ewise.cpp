// ewise_add and ewise_mult (matrix and vector) of the cpu backend against the naive oracle: every
// binary operator x every type x mask modes x accumulate x replace x transposes x case catalog.
#include <gtest/gtest.h>

#include "support/op_cases.hpp"
#include "support/random_matrix.hpp"

namespace {

using namespace ringblas;
using namespace ringblas::test;

struct OpCase {
  BinaryOpCode op;
  Type type;
};
std::vector<OpCase> op_cases() {
  std::vector<OpCase> out;
  for (int c = 0; c <= static_cast<int>(BinaryOpCode::pow); ++c)
    for (Type t : all_types) out.push_back({static_cast<BinaryOpCode>(c), t});
  return out;
}
void PrintTo(const OpCase& c, std::ostream* os) {
  *os << binary_op_name(c.op) << "_" << type_name(c.type);
}
std::string op_case_name(const testing::TestParamInfo<OpCase>& p) {
  return std::string(binary_op_name(p.param.op)) + "_" + std::string(type_name(p.param.type));
}

/// Accumulators tried in turn (positional accumulators are not supported by the cpu backend).
constexpr BinaryOpCode accums[] = {BinaryOpCode::plus,  BinaryOpCode::min,   BinaryOpCode::second,
                                   BinaryOpCode::times, BinaryOpCode::minus, BinaryOpCode::max};

class OracleEwise : public testing::TestWithParam<OpCase> {};

TEST_P(OracleEwise, MatrixAddAndMult) {
  const auto [op, t] = GetParam();
  Context ctx = cpu_context();
  int failures = 0, rot = 0;
  const auto& catalog = matrix_catalog();
  for (std::size_t sc = 0; sc < catalog.size(); ++sc) {
    const MatrixCase& mc = catalog[sc];
    const Matrix mask = random_mask(mc.m, mc.n, 0.5, all_types[sc % 5], 100 + sc);
    const Matrix C0 = random_matrix(mc.m, mc.n, 0.4, t, 200 + sc);
    for (MaskMode mm : all_mask_modes)
      for (int acc = 0; acc < 2; ++acc)
        for (int rep = 0; rep < 2; ++rep, ++rot) {
          if (mm == MaskMode::none && rep) continue;
          const bool ta = rot % 4 == 1 || rot % 4 == 3, tb = rot % 4 >= 2;
          // A and B of another type every third case: inputs are cast to the operator's type.
          const Type in = rot % 3 == 2 ? all_types[(static_cast<int>(t) + 3) % 5] : t;
          const Matrix A = ta ? random_matrix(mc.n, mc.m, mc.density, in, 300 + sc, mc.p)
                              : random_matrix(mc.m, mc.n, mc.density, in, 300 + sc, mc.p);
          const Matrix B = tb ? random_matrix(mc.n, mc.m, 0.5, in, 400 + sc)
                              : random_matrix(mc.m, mc.n, 0.5, in, 400 + sc);
          const Accum accum = acc ? Accum(accums[rot % 6]) : no_accum;
          const Descriptor d = make_desc(mm, rep, ta, tb);
          const Matrix* mp = mm == MaskMode::none ? nullptr : &mask;
          const std::string tail = std::string(binary_op_name(op)) + " " +
                                   std::string(type_name(t)) + " in:" + std::string(type_name(in)) +
                                   " " + mc.name + " " + describe(mm, accum, d);
          {
            RefMatrix expected = to_ref(C0);
            oracle::ewise_add(expected, mp, accum, op, A, B, d);
            Matrix C = C0;
            check_case(
                "ewise_add " + tail, expected, C,
                [&] { ewise_add(C, mp, accum, op, A, B, d, ctx); }, failures);
          }
          {
            RefMatrix expected = to_ref(C0);
            oracle::ewise_mult(expected, mp, accum, op, A, B, d);
            Matrix C = C0;
            check_case(
                "ewise_mult " + tail, expected, C,
                [&] { ewise_mult(C, mp, accum, op, A, B, d, ctx); }, failures);
          }
        }
  }
}

TEST_P(OracleEwise, VectorAddAndMult) {
  const auto [op, t] = GetParam();
  Context ctx = cpu_context();
  int failures = 0, rot = 0;
  for (Index n : {0, 1, 7, 16}) {
    const Vector u = random_vector(n, 0.5, t, 10 + n), v = random_vector(n, 0.5, t, 20 + n);
    const Vector w0 = random_vector(n, 0.4, t, 30 + n);
    const Vector mask = random_vector_mask(n, 0.6, all_types[n % 5], 40 + n);
    for (MaskMode mm : all_mask_modes)
      for (int acc = 0; acc < 2; ++acc)
        for (int rep = 0; rep < 2; ++rep, ++rot) {
          const Accum accum = acc ? Accum(accums[rot % 6]) : no_accum;
          const Descriptor d = make_desc(mm, rep, false, false);
          const Vector* mp = mm == MaskMode::none ? nullptr : &mask;
          const std::string tail = std::string(binary_op_name(op)) + " " +
                                   std::string(type_name(t)) + " n=" + std::to_string(n) + " " +
                                   describe(mm, accum, d);
          {
            RefMatrix expected = to_ref(w0);
            oracle::ewise_add(expected, mp, accum, op, u, v, d);
            Vector w = w0;
            check_case(
                "ewise_add(vector) " + tail, expected, w,
                [&] { ewise_add(w, mp, accum, op, u, v, d, ctx); }, failures);
          }
          {
            RefMatrix expected = to_ref(w0);
            oracle::ewise_mult(expected, mp, accum, op, u, v, d);
            Vector w = w0;
            check_case(
                "ewise_mult(vector) " + tail, expected, w,
                [&] { ewise_mult(w, mp, accum, op, u, v, d, ctx); }, failures);
          }
        }
  }
}

INSTANTIATE_TEST_SUITE_P(AllOps, OracleEwise, testing::ValuesIn(op_cases()), op_case_name);

}  // namespace
