// apply (unary, bound binary, index-unary) and select of the cpu backend against the naive oracle,
// over every operator and type, mask modes, accumulate, replace, transpose_a and the case catalog.
#include <gtest/gtest.h>

#include "semirings/unary_ops.hpp"
#include "support/op_cases.hpp"
#include "support/random_matrix.hpp"

namespace {

using namespace ringblas;
using namespace ringblas::test;

class OracleApply : public testing::TestWithParam<TypeCase> {};

/// Loops the catalog x mask modes x accumulate x replace (transpose_a alternating) and calls
/// body(what-prefix, C0, mask, accum, desc, A-shape-transposed) for each.
template <class Body>
void for_each_setting(Type t, Body body) {
  const auto& catalog = matrix_catalog();
  int rot = 0;
  for (std::size_t sc = 0; sc < catalog.size(); ++sc) {
    const MatrixCase& mc = catalog[sc];
    const Matrix mask = random_mask(mc.m, mc.n, 0.5, all_types[sc % 5], 500 + sc);
    const Matrix C0 = random_matrix(mc.m, mc.n, 0.4, t, 600 + sc);
    for (MaskMode mm : all_mask_modes)
      for (int acc = 0; acc < 2; ++acc)
        for (int rep = 0; rep < 2; ++rep, ++rot) {
          if (mm == MaskMode::none && rep) continue;
          const bool ta = rot % 2;
          const Matrix A = ta ? random_matrix(mc.n, mc.m, mc.density, t, 700 + sc, mc.p)
                              : random_matrix(mc.m, mc.n, mc.density, t, 700 + sc, mc.p);
          const Accum accum =
              acc ? Accum(rot % 4 < 2 ? BinaryOpCode::plus : BinaryOpCode::max) : no_accum;
          const Descriptor d = make_desc(mm, rep, ta, false);
          body(mc.name + " " + describe(mm, accum, d), C0, mm == MaskMode::none ? nullptr : &mask,
               accum, d, A);
        }
  }
}

TEST_P(OracleApply, Unary) {
  const Type t = GetParam().type;
  Context ctx = cpu_context();
  int failures = 0;
  for (int c = 0; c <= static_cast<int>(UnaryOpCode::log); ++c) {
    const auto op = static_cast<UnaryOpCode>(c);
    if (sr::unary_float_only(op) && !is_float(t)) continue;
    for_each_setting(t, [&](const std::string& where, const Matrix& C0, const Matrix* mp,
                            Accum accum, const Descriptor& d, const Matrix& A) {
      const std::string what =
          "apply " + std::string(unary_op_name(op)) + " " + std::string(type_name(t)) + " " + where;
      RefMatrix expected = to_ref(C0);
      oracle::apply(expected, mp, accum, op, A, d);
      Matrix C = C0;
      check_case(
          what, expected, C, [&] { apply(C, mp, accum, op, A, d, ctx); }, failures);
    });
  }
}

TEST_P(OracleApply, UnaryVector) {
  const Type t = GetParam().type;
  Context ctx = cpu_context();
  int failures = 0;
  for (int c = 0; c <= static_cast<int>(UnaryOpCode::log); ++c) {
    const auto op = static_cast<UnaryOpCode>(c);
    if (sr::unary_float_only(op) && !is_float(t)) continue;
    for (Index n : {0, 1, 9}) {
      const Vector u = random_vector(n, 0.6, t, 50 + n), w0 = random_vector(n, 0.4, t, 60 + n);
      const Vector mask = random_vector_mask(n, 0.6, Type::int32, 70 + n);
      for (MaskMode mm : all_mask_modes) {
        const Descriptor d = make_desc(mm, mm == MaskMode::value, false, false);
        const Vector* mp = mm == MaskMode::none ? nullptr : &mask;
        const Accum accum = mm == MaskMode::structure ? Accum(BinaryOpCode::plus) : no_accum;
        const std::string what = "apply(vector) " + std::string(unary_op_name(op)) + " " +
                                 std::string(type_name(t)) + " n=" + std::to_string(n) + " " +
                                 describe(mm, accum, d);
        RefMatrix expected = to_ref(w0);
        oracle::apply(expected, mp, accum, op, u, d);
        Vector w = w0;
        check_case(
            what, expected, w, [&] { apply(w, mp, accum, op, u, d, ctx); }, failures);
      }
    }
  }
}

TEST_P(OracleApply, BoundBinary) {
  const Type t = GetParam().type;
  Context ctx = cpu_context();
  int failures = 0;
  const BinaryOpCode ops[] = {BinaryOpCode::plus,  BinaryOpCode::minus,  BinaryOpCode::times,
                              BinaryOpCode::div,   BinaryOpCode::min,    BinaryOpCode::max,
                              BinaryOpCode::first, BinaryOpCode::second, BinaryOpCode::lxor,
                              BinaryOpCode::pair,  BinaryOpCode::pow};
  for (BinaryOpCode op : ops)
    for (BindSide side : {BindSide::first, BindSide::second}) {
      // The bound scalar in another type than C: GraphBLAS casts it to the operator's type.
      const Scalar bound = side == BindSide::first ? Scalar(3) : Scalar(-2.0);
      for_each_setting(t, [&](const std::string& where, const Matrix& C0, const Matrix* mp,
                              Accum accum, const Descriptor& d, const Matrix& A) {
        const std::string what =
            "apply bind" + std::string(side == BindSide::first ? "1st " : "2nd ") +
            std::string(binary_op_name(op)) + " " + std::string(type_name(t)) + " " + where;
        RefMatrix expected = to_ref(C0);
        oracle::apply(expected, mp, accum, op, side, bound, A, d);
        Matrix C = C0;
        check_case(
            what, expected, C, [&] { apply(C, mp, accum, op, side, bound, A, d, ctx); }, failures);
      });
    }
}

TEST_P(OracleApply, IndexUnary) {
  const Type t = GetParam().type;
  Context ctx = cpu_context();
  int failures = 0;
  for (auto op :
       {IndexUnaryOpCode::rowindex, IndexUnaryOpCode::colindex, IndexUnaryOpCode::diagindex})
    for (Index thunk : {0, 1, -2}) {
      for_each_setting(t, [&](const std::string& where, const Matrix& C0, const Matrix* mp,
                              Accum accum, const Descriptor& d, const Matrix& A) {
        const std::string what = "apply index op " + std::to_string(static_cast<int>(op)) +
                                 " thunk " + std::to_string(thunk) + " " +
                                 std::string(type_name(t)) + " " + where;
        RefMatrix expected = to_ref(C0);
        oracle::apply(expected, mp, accum, op, thunk, A, d);
        Matrix C = C0;
        check_case(
            what, expected, C, [&] { apply(C, mp, accum, op, thunk, A, d, ctx); }, failures);
      });
    }
}

TEST_P(OracleApply, Select) {
  const Type t = GetParam().type;
  Context ctx = cpu_context();
  int failures = 0;
  for (int c = 0; c <= static_cast<int>(SelectOpCode::col_topk); ++c) {
    const auto op = static_cast<SelectOpCode>(c);
    const bool topk = op == SelectOpCode::row_topk || op == SelectOpCode::col_topk;
    const bool positional = c <= static_cast<int>(SelectOpCode::offdiag);
    std::vector<Scalar> thunks;
    if (topk)
      thunks = {Scalar(Index(0)), Scalar(Index(1)), Scalar(Index(3))};
    else if (positional)
      thunks = {Scalar(Index(0)), Scalar(Index(-1)), Scalar(Index(2))};
    else
      thunks = {Scalar(0.5), Scalar(std::int32_t(1)), Scalar(-0.25)};
    for (const Scalar& thunk : thunks)
      for_each_setting(t, [&](const std::string& where, const Matrix& C0, const Matrix* mp,
                              Accum accum, const Descriptor& d, const Matrix& A) {
        const std::string what = "select " + std::string(select_op_name(op)) + " thunk " +
                                 std::to_string(thunk.as<double>()) + " " +
                                 std::string(type_name(t)) + " " + where;
        RefMatrix expected = to_ref(C0);
        oracle::select(expected, mp, accum, op, thunk, A, d);
        Matrix C = C0;
        check_case(
            what, expected, C, [&] { select(C, mp, accum, op, thunk, A, d, ctx); }, failures);
      });
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, OracleApply, testing::ValuesIn(type_cases()), type_case_name);

}  // namespace
