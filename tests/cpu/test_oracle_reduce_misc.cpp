// reduce (to vector and to scalar), transpose, extract, assign (also of a scalar to a vector) and
// kronecker of the cpu backend against the naive oracle, over monoids/operators, types, mask modes,
// accumulate, replace and the case catalog.
#include <gtest/gtest.h>

#include "algorithms/graph_vectors.hpp"
#include "ringblas/vector_fill.hpp"
#include "support/op_cases.hpp"
#include "support/random_matrix.hpp"

namespace {

using namespace ringblas;
using namespace ringblas::test;
using ringblas::algorithms::row_view;
using ringblas::algorithms::vector_of_row;

constexpr MonoidCode all_monoids[] = {MonoidCode::plus, MonoidCode::times, MonoidCode::min,
                                      MonoidCode::max,  MonoidCode::lor,   MonoidCode::land,
                                      MonoidCode::lxor, MonoidCode::any};

class OracleReduce : public testing::TestWithParam<TypeCase> {};

TEST_P(OracleReduce, ToVector) {
  const Type t = GetParam().type;
  Context ctx = cpu_context();
  int failures = 0, rot = 0;
  const auto& catalog = matrix_catalog();
  for (MonoidCode mo : all_monoids)
    for (std::size_t sc = 0; sc < catalog.size(); ++sc) {
      const MatrixCase& mc = catalog[sc];
      for (ReduceDim dim : {ReduceDim::rows, ReduceDim::cols})
        for (MaskMode mm : all_mask_modes)
          for (int acc = 0; acc < 2; ++acc, ++rot) {
            const bool ta = rot % 2;
            const Matrix A = ta ? random_matrix(mc.n, mc.m, mc.density, t, 800 + sc, mc.p)
                                : random_matrix(mc.m, mc.n, mc.density, t, 800 + sc, mc.p);
            const Index len = dim == ReduceDim::rows ? mc.m : mc.n;
            const Vector w0 = random_vector(len, 0.4, t, 900 + sc);
            const Vector mask = random_vector_mask(len, 0.6, all_types[sc % 5], 1000 + sc);
            const Accum accum = acc ? Accum(BinaryOpCode::plus) : no_accum;
            const Descriptor d = make_desc(mm, rot % 3 == 0, ta, false);
            const Vector* mp = mm == MaskMode::none ? nullptr : &mask;
            const std::string what = "reduce " + std::string(monoid_name(mo)) + " " +
                                     std::string(type_name(t)) +
                                     (dim == ReduceDim::rows ? " rows " : " cols ") + mc.name +
                                     " " + describe(mm, accum, d);
            RefMatrix expected = to_ref(w0);
            oracle::reduce(expected, mp, accum, mo, A, dim, d);
            Vector w = w0;
            check_case(
                what, expected, w, [&] { reduce(w, mp, accum, mo, A, dim, d, ctx); }, failures);
          }
    }
}

TEST_P(OracleReduce, ToScalar) {
  const Type t = GetParam().type;
  Context ctx = cpu_context();
  int failures = 0;
  const auto& catalog = matrix_catalog();
  for (MonoidCode mo : all_monoids)
    for (std::size_t sc = 0; sc < catalog.size(); ++sc) {
      const MatrixCase& mc = catalog[sc];
      const Matrix A = random_matrix(mc.m, mc.n, mc.density, t, 1100 + sc, mc.p);
      const std::string what = "reduce scalar " + std::string(monoid_name(mo)) + " " +
                               std::string(type_name(t)) + " " + mc.name;
      Scalar r;
      check_case(
          what, oracle::reduce(mo, A), r, [&] { r = reduce(mo, A, ctx); }, failures);
      const Vector u = random_vector(mc.n, mc.density, t, 1200 + sc);
      Scalar rv;
      check_case(
          what + " (vector)", oracle::reduce(mo, u), rv, [&] { rv = reduce(mo, u, ctx); },
          failures);
    }
}

/// The identity of each monoid, as the reduction of an empty matrix (GraphBLAS's definition).
TEST_P(OracleReduce, EmptyGivesIdentity) {
  const Type t = GetParam().type;
  Context ctx = cpu_context();
  int failures = 0;
  for (MonoidCode mo : all_monoids) {
    const Matrix A(3, 4, t);
    Scalar r;
    check_case(
        "reduce of nnz=0 " + std::string(monoid_name(mo)) + " " + std::string(type_name(t)),
        oracle::reduce(mo, A), r, [&] { r = reduce(mo, A, ctx); }, failures);
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, OracleReduce, testing::ValuesIn(type_cases()), type_case_name);

class OracleStructural : public testing::TestWithParam<TypeCase> {};

/// Loops the catalog x mask modes x accumulate x replace for an output of size m x n.
template <class Body>
void for_each_output(Type t, Index m, Index n, std::uint64_t seed, Body body) {
  const Matrix mask = random_mask(m, n, 0.5, all_types[seed % 5], seed);
  const Matrix C0 = random_matrix(m, n, 0.4, t, seed + 1);
  int rot = 0;
  for (MaskMode mm : all_mask_modes)
    for (int acc = 0; acc < 2; ++acc)
      for (int rep = 0; rep < 2; ++rep, ++rot) {
        if (mm == MaskMode::none && rep) continue;
        const Accum accum =
            acc ? Accum(rot % 4 < 2 ? BinaryOpCode::plus : BinaryOpCode::min) : no_accum;
        body(C0, mm == MaskMode::none ? nullptr : &mask, accum, mm, rep != 0, rot);
      }
}

TEST_P(OracleStructural, Transpose) {
  const Type t = GetParam().type;
  Context ctx = cpu_context();
  int failures = 0;
  const auto& catalog = matrix_catalog();
  for (std::size_t sc = 0; sc < catalog.size(); ++sc) {
    const MatrixCase& mc = catalog[sc];
    // Mixed types: A another type than C every other case.
    const Type in = sc % 2 ? all_types[(static_cast<int>(t) + 2) % 5] : t;
    const Matrix A = random_matrix(mc.m, mc.n, mc.density, in, 1300 + sc, mc.p);
    for (bool ta : {false, true}) {
      const Index m = ta ? mc.m : mc.n, n = ta ? mc.n : mc.m;
      for_each_output(
          t, m, n, 1400 + sc,
          [&](const Matrix& C0, const Matrix* mp, Accum accum, MaskMode mm, bool rep, int) {
            const Descriptor d = make_desc(mm, rep, ta, false);
            const std::string what = "transpose " + std::string(type_name(t)) +
                                     " in:" + std::string(type_name(in)) + " " + mc.name + " " +
                                     describe(mm, accum, d);
            RefMatrix expected = to_ref(C0);
            oracle::transpose(expected, mp, accum, A, d);
            Matrix C = C0;
            check_case(
                what, expected, C, [&] { transpose(C, mp, accum, A, d, ctx); }, failures);
          });
    }
  }
}

/// Index lists over n: all, reversed, a repeated index, a strided subset, empty.
std::vector<std::pair<std::string, Indices>> index_lists(Index n) {
  std::vector<std::pair<std::string, Indices>> out = {{"all", Indices::all()}};
  Indices rev, rep, stride, none;
  for (Index i = n - 1; i >= 0; --i) rev.list.push_back(i);
  for (Index i = 0; i < n; i += 2) stride.list.push_back(i);
  if (n > 0) rep.list = {n - 1, 0, n - 1};
  out.push_back({"reversed", rev});
  out.push_back({"strided", stride});
  out.push_back({"repeated", rep});
  out.push_back({"empty", none});
  return out;
}

TEST_P(OracleStructural, Extract) {
  const Type t = GetParam().type;
  Context ctx = cpu_context();
  int failures = 0;
  const auto& catalog = matrix_catalog();
  for (std::size_t sc = 0; sc < catalog.size(); ++sc) {
    const MatrixCase& mc = catalog[sc];
    for (bool ta : {false, true}) {
      const Matrix A = ta ? random_matrix(mc.n, mc.m, mc.density, t, 1500 + sc, mc.p)
                          : random_matrix(mc.m, mc.n, mc.density, t, 1500 + sc, mc.p);
      const auto rows = index_lists(mc.m), cols = index_lists(mc.n);
      for (std::size_t r = 0; r < rows.size(); ++r) {
        const auto& [cname, cl] = cols[(r + sc) % cols.size()];
        const auto& [rname, rl] = rows[r];
        const Index m = rl.count(mc.m), n = cl.count(mc.n);
        for_each_output(
            t, m, n, 1600 + sc,
            [&](const Matrix& C0, const Matrix* mp, Accum accum, MaskMode mm, bool rep, int) {
              const Descriptor d = make_desc(mm, rep, ta, false);
              const std::string what = "extract " + std::string(type_name(t)) + " " + mc.name +
                                       " rows:" + rname + " cols:" + cname + " " +
                                       describe(mm, accum, d);
              RefMatrix expected = to_ref(C0);
              oracle::extract(expected, mp, accum, A, rl, cl, d);
              Matrix C = C0;
              check_case(
                  what, expected, C, [&] { extract(C, mp, accum, A, rl, cl, d, ctx); }, failures);
            });
      }
    }
  }
}

TEST_P(OracleStructural, Assign) {
  const Type t = GetParam().type;
  Context ctx = cpu_context();
  int failures = 0;
  const auto& catalog = matrix_catalog();
  for (std::size_t sc = 0; sc < catalog.size(); ++sc) {
    const MatrixCase& mc = catalog[sc];
    // Assign needs index lists without repeats (GraphBLAS leaves repeats undefined).
    auto rows = index_lists(mc.m), cols = index_lists(mc.n);
    std::erase_if(rows, [](const auto& p) { return p.first == "repeated"; });
    std::erase_if(cols, [](const auto& p) { return p.first == "repeated"; });
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const auto& [cname, cl] = cols[(r + sc) % cols.size()];
      const auto& [rname, rl] = rows[r];
      const Index am = rl.count(mc.m), an = cl.count(mc.n);
      const bool ta = (r + sc) % 2;
      const Matrix A = ta ? random_matrix(an, am, 0.5, t, 1700 + sc, mc.p)
                          : random_matrix(am, an, 0.5, t, 1700 + sc, mc.p);
      for_each_output(
          t, mc.m, mc.n, 1800 + sc,
          [&](const Matrix& C0, const Matrix* mp, Accum accum, MaskMode mm, bool rep, int) {
            const Descriptor d = make_desc(mm, rep, ta, false);
            const std::string what = "assign " + std::string(type_name(t)) + " " + mc.name +
                                     " rows:" + rname + " cols:" + cname + " " +
                                     describe(mm, accum, d);
            RefMatrix expected = to_ref(C0);
            oracle::assign(expected, mp, accum, A, rl, cl, d);
            Matrix C = C0;
            check_case(
                what, expected, C, [&] { assign(C, mp, accum, A, rl, cl, d, ctx); }, failures);
          });
    }
  }
}

// w<m> = w accum s (a scalar to every index of a vector) is the assign of the 1 x n matrix
// holding s (cast to w's type) at every position over the whole row: checked against the
// oracle's matrix assign. Sparse and full w (the graph algorithms' case), three scalar types.
TEST_P(OracleStructural, AssignScalarToVector) {
  const Type t = GetParam().type;
  Context ctx = cpu_context();
  int failures = 0;
  const Index n = 37;
  for (double density : {0.4, 1.0})
    for (const Scalar& s : {Scalar(std::int32_t(3)), Scalar(2.5), Scalar(true)}) {
      const Matrix filled =
          row_view(visit_type(t,
                              [&](auto z) {
                                using T = decltype(z);
                                return full_vector<T>(n, s.as<T>(), Location::host, ctx);
                              }),
                   ctx);
      const Matrix C0 = random_matrix(1, n, density, t, 1902);
      for_each_output(
          t, 1, n, 1901,
          [&](const Matrix&, const Matrix* mp, Accum accum, MaskMode mm, bool rep, int) {
            const Vector mask = mp ? vector_of_row(*mp, ctx) : Vector();
            const Descriptor d = make_desc(mm, rep, false, false);
            const std::string what = "assign scalar " + std::string(type_name(s.type())) +
                                     " into " + std::string(type_name(t)) + ", density " +
                                     std::to_string(density) + " " + describe(mm, accum, d);
            RefMatrix expected = to_ref(C0);
            oracle::assign(expected, mp, accum, filled, Indices::all(), Indices::all(), d);
            Matrix C = C0;
            check_case(
                what, expected, C,
                [&] {
                  Vector w = vector_of_row(C, ctx);
                  assign(w, mp ? &mask : nullptr, accum, s, d, ctx);
                  C = row_view(w, ctx);
                },
                failures);
          });
    }
}

TEST_P(OracleStructural, Kronecker) {
  const Type t = GetParam().type;
  Context ctx = cpu_context();
  int failures = 0;
  const BinaryOpCode ops[] = {BinaryOpCode::times,   BinaryOpCode::plus, BinaryOpCode::first,
                              BinaryOpCode::second,  BinaryOpCode::min,  BinaryOpCode::firsti,
                              BinaryOpCode::secondj, BinaryOpCode::pair};
  const std::pair<Index, Index> shapes[] = {{0, 0}, {2, 0}, {1, 1}, {2, 3}, {3, 2}};
  int k = 0;
  for (BinaryOpCode op : ops)
    for (const auto& [am, an] : shapes)
      for (const auto& [bm, bn] : shapes) {
        ++k;
        const bool ta = k % 3 == 1, tb = k % 4 == 2;
        const Matrix A =
            ta ? random_matrix(an, am, 0.6, t, 1900 + k) : random_matrix(am, an, 0.6, t, 1900 + k);
        const Matrix B =
            tb ? random_matrix(bn, bm, 0.6, t, 2000 + k) : random_matrix(bm, bn, 0.6, t, 2000 + k);
        for_each_output(
            t, am * bm, an * bn, 2100 + k,
            [&](const Matrix& C0, const Matrix* mp, Accum accum, MaskMode mm, bool rep, int rot) {
              if (rot % 3 != k % 3) return;  // a third of the mask settings per shape pair
              const Descriptor d = make_desc(mm, rep, ta, tb);
              const std::string what = "kronecker " + std::string(binary_op_name(op)) + " " +
                                       std::string(type_name(t)) + " A " + std::to_string(am) +
                                       "x" + std::to_string(an) + " B " + std::to_string(bm) + "x" +
                                       std::to_string(bn) + " " + describe(mm, accum, d);
              RefMatrix expected = to_ref(C0);
              oracle::kronecker(expected, mp, accum, op, A, B, d);
              Matrix C = C0;
              check_case(
                  what, expected, C, [&] { kronecker(C, mp, accum, op, A, B, d, ctx); }, failures);
            });
      }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, OracleStructural, testing::ValuesIn(type_cases()),
                         type_case_name);

}  // namespace
