// mxm, mxv, vxm and dense mxm of the cpu backend against the naive oracle: every catalog semiring
// at its types x mask modes x accumulate x replace x transposes, on the product case catalog.
#include <gtest/gtest.h>

#include "support/op_cases.hpp"
#include "support/random_matrix.hpp"

namespace {

using namespace ringblas;
using namespace ringblas::test;

class OracleMxm : public testing::TestWithParam<SemiringCase> {};

std::uint64_t seed_of(std::size_t shape, Type t, int salt) {
  return 1000003ull * shape + 97ull * static_cast<std::uint64_t>(t) +
         static_cast<std::uint64_t>(salt);
}

TEST_P(OracleMxm, EveryMaskAccumReplaceTranspose) {
  const Semiring s = semiring(GetParam().name, GetParam().type);
  const Type t = s.type;
  Context ctx = cpu_context();
  int failures = 0, cases = 0;
  const auto& catalog = product_catalog();
  for (std::size_t sc = 0; sc < catalog.size(); ++sc) {
    const ProductCase& pc = catalog[sc];
    const Type mask_type = all_types[sc % 5];
    const Matrix mask = random_mask(pc.m, pc.n, 0.5, mask_type, seed_of(sc, t, 1));
    // 32-bit indices in C and A on every other shape: results keep C's index type.
    const IndexType itype = sc % 2 ? IndexType::i32 : IndexType::i64;
    const Matrix C0 = random_matrix(pc.m, pc.n, 0.4, t, seed_of(sc, t, 2), Pattern::random,
                                    ValueKind::general, itype);
    for (int tr = 0; tr < 4; ++tr) {
      const bool ta = tr & 1, tb = tr & 2;
      const Matrix A = ta ? random_matrix(pc.k, pc.m, pc.density, t, seed_of(sc, t, 3), pc.a,
                                          ValueKind::general, itype)
                          : random_matrix(pc.m, pc.k, pc.density, t, seed_of(sc, t, 3), pc.a,
                                          ValueKind::general, itype);
      const Matrix B = tb ? random_matrix(pc.n, pc.k, pc.density, t, seed_of(sc, t, 4), pc.b)
                          : random_matrix(pc.k, pc.n, pc.density, t, seed_of(sc, t, 4), pc.b);
      for (MaskMode mm : all_mask_modes)
        for (int acc = 0; acc < 2; ++acc)
          for (int rep = 0; rep < 2; ++rep) {
            if (mm == MaskMode::none && rep) continue;  // replace without a mask changes nothing
            const Accum accum = acc ? Accum(monoid_op(s.add)) : no_accum;
            const Descriptor d = make_desc(mm, rep, ta, tb);
            const Matrix* mp = mm == MaskMode::none ? nullptr : &mask;
            const std::string what = s.name() + " " + pc.name + " " + describe(mm, accum, d) +
                                     " mask:" + std::string(type_name(mask_type));
            RefMatrix expected = to_ref(C0);
            oracle::mxm(expected, mp, accum, s, A, B, d);
            Matrix C = C0;
            check_case(
                what, expected, C, [&] { mxm(C, mp, accum, s, A, B, d, ctx); }, failures);
            EXPECT_EQ(C.index_type(), itype) << what << ": C's index type changed";
            ++cases;
          }
    }
  }
  EXPECT_GT(cases, 0);
}

INSTANTIATE_TEST_SUITE_P(Catalog, OracleMxm, testing::ValuesIn(semiring_cases()),
                         semiring_case_name);

/// Output typecast: C's type differs from the semiring's (bool C: x != 0; int C from floats:
/// truncation, which the oracle allows at both ends of a float sum's tolerance).
TEST(OracleMxmTypecast, OutputAndInputTypesDifferFromTheSemiring) {
  Context ctx = cpu_context();
  int failures = 0;
  const std::pair<const char*, Type> semirings[] = {
      {"plus_times", Type::int32}, {"plus_times", Type::fp64},  {"min_plus", Type::fp32},
      {"max_times", Type::int64},  {"lor_land", Type::boolean}, {"any_secondi", Type::int64}};
  for (const auto& [name, st] : semirings) {
    const Semiring s = semiring(name, st);
    for (Type in : all_types)
      for (Type out : all_types) {
        const Matrix A = random_matrix(6, 5, 0.5, in, 11 + static_cast<int>(in));
        const Matrix B = random_matrix(5, 7, 0.5, in, 23 + static_cast<int>(in));
        const Matrix C0 = random_matrix(6, 7, 0.3, out, 31);
        const Matrix mask = random_mask(6, 7, 0.6, Type::fp32, 41);
        for (int acc = 0; acc < 2; ++acc) {
          const Accum accum = acc ? Accum(BinaryOpCode::plus) : no_accum;
          const Descriptor d = make_desc(MaskMode::value, false, false, false);
          const std::string what = s.name() + " A,B:" + std::string(type_name(in)) +
                                   " C:" + std::string(type_name(out)) + " " +
                                   describe(MaskMode::value, accum, d);
          RefMatrix expected = to_ref(C0);
          oracle::mxm(expected, &mask, accum, s, A, B, d);
          Matrix C = C0;
          check_case(
              what, expected, C, [&] { mxm(C, &mask, accum, s, A, B, d, ctx); }, failures);
        }
      }
  }
}

/// No mask with desc.mask_complement: GraphBLAS's C<¬∅> admits no position, so C keeps its
/// entries, or loses them all with replace.
TEST(OracleMxmComplementedNoMask, AdmitsNothing) {
  Context ctx = cpu_context();
  int failures = 0;
  for (const char* name : {"plus_times", "min_plus", "any_pair"}) {
    const Semiring s = semiring(name, Type::fp64);
    const Matrix A = random_matrix(5, 4, 0.5, Type::fp64, 51);
    const Matrix B = random_matrix(4, 6, 0.5, Type::fp64, 52);
    const Matrix C0 = random_matrix(5, 6, 0.5, Type::fp64, 53);
    for (int acc = 0; acc < 2; ++acc)
      for (bool rep : {false, true}) {
        Descriptor d;
        d.mask_complement = true;
        d.replace = rep;
        const Accum accum = acc ? Accum(BinaryOpCode::plus) : no_accum;
        const std::string what =
            s.name() + " no mask, complemented " + describe(MaskMode::none, accum, d);
        RefMatrix expected = to_ref(C0);
        oracle::mxm(expected, nullptr, accum, s, A, B, d);
        EXPECT_EQ(expected.nnz(), rep ? 0 : C0.nnz()) << what << ": the oracle itself";
        Matrix C = C0;
        check_case(
            what, expected, C, [&] { mxm(C, nullptr, accum, s, A, B, d, ctx); }, failures);
      }
  }
}

/// A user-defined semiring: max as ⊕ (identity lowest) and "first" as ⊗.
struct max_fn {
  double operator()(double x, double y) const { return x > y ? x : y; }
};
struct first_fn {
  double operator()(double x, double) const { return x; }
};
struct plus_i32 {
  std::int32_t operator()(std::int32_t x, std::int32_t y) const { return x + y; }
};
struct times_i32 {
  std::int32_t operator()(std::int32_t x, std::int32_t y) const { return x * y; }
};

TEST(OracleMxmUser, UserDefinedSemirings) {
  Context ctx = cpu_context();
  int failures = 0;
  const Semiring semirings[] = {
      user_semiring<double>("max_first_user", max_fn{}, first_fn{},
                            -std::numeric_limits<double>::infinity()),
      user_semiring<std::int32_t>("plus_times_user", plus_i32{}, times_i32{}, 0)};
  for (const Semiring& s : semirings) {
    const auto& catalog = product_catalog();
    for (std::size_t sc = 0; sc < catalog.size(); ++sc) {
      const ProductCase& pc = catalog[sc];
      const Matrix A = random_matrix(pc.m, pc.k, pc.density, s.type, sc + 1, pc.a);
      const Matrix B = random_matrix(pc.k, pc.n, pc.density, s.type, sc + 2, pc.b);
      const Matrix C0 = random_matrix(pc.m, pc.n, 0.4, s.type, sc + 3);
      const Matrix mask = random_mask(pc.m, pc.n, 0.5, Type::boolean, sc + 4);
      for (MaskMode mm : all_mask_modes) {
        const Descriptor d = make_desc(mm, mm == MaskMode::complement_value, false, false);
        const Matrix* mp = mm == MaskMode::none ? nullptr : &mask;
        const std::string what = s.name() + " " + pc.name + " " + describe(mm, no_accum, d);
        RefMatrix expected = to_ref(C0);
        oracle::mxm(expected, mp, no_accum, s, A, B, d);
        Matrix C = C0;
        check_case(
            what, expected, C, [&] { mxm(C, mp, no_accum, s, A, B, d, ctx); }, failures);
      }
    }
  }
}

class OracleMxv : public testing::TestWithParam<SemiringCase> {};

TEST_P(OracleMxv, MxvAndVxm) {
  const Semiring s = semiring(GetParam().name, GetParam().type);
  const Type t = s.type;
  Context ctx = cpu_context();
  int failures = 0;
  const auto& catalog = product_catalog();
  for (std::size_t sc = 0; sc < catalog.size(); ++sc) {
    const ProductCase& pc = catalog[sc];
    // mxv: w(m) = A(m x k) u(k); vxm: w(n) = u(k) B(k x n).
    const Vector u = random_vector(pc.k, 0.6, t, seed_of(sc, t, 5));
    const Vector w_m = random_vector(pc.m, 0.4, t, seed_of(sc, t, 6));
    const Vector w_n = random_vector(pc.n, 0.4, t, seed_of(sc, t, 7));
    const Vector mask_m = random_vector_mask(pc.m, 0.6, all_types[sc % 5], seed_of(sc, t, 8));
    const Vector mask_n = random_vector_mask(pc.n, 0.6, all_types[sc % 5], seed_of(sc, t, 9));
    int rot = 0;
    for (MaskMode mm : all_mask_modes)
      for (int acc = 0; acc < 2; ++acc)
        for (int rep = 0; rep < 2; ++rep, ++rot) {
          const bool tr = rot % 2;
          const Accum accum = acc ? Accum(monoid_op(s.add)) : no_accum;
          {
            const Matrix A = tr ? random_matrix(pc.k, pc.m, pc.density, t, seed_of(sc, t, 3), pc.a)
                                : random_matrix(pc.m, pc.k, pc.density, t, seed_of(sc, t, 3), pc.a);
            const Descriptor d = make_desc(mm, rep, tr, false);
            const Vector* mp = mm == MaskMode::none ? nullptr : &mask_m;
            const std::string what =
                "mxv " + s.name() + " " + pc.name + " " + describe(mm, accum, d);
            RefMatrix expected = to_ref(w_m);
            oracle::mxv(expected, mp, accum, s, A, u, d);
            Vector w = w_m;
            check_case(
                what, expected, w, [&] { mxv(w, mp, accum, s, A, u, d, ctx); }, failures);
          }
          {
            const Matrix B = tr ? random_matrix(pc.n, pc.k, pc.density, t, seed_of(sc, t, 4), pc.b)
                                : random_matrix(pc.k, pc.n, pc.density, t, seed_of(sc, t, 4), pc.b);
            const Descriptor d = make_desc(mm, rep, false, tr);
            const Vector* mp = mm == MaskMode::none ? nullptr : &mask_n;
            const std::string what =
                "vxm " + s.name() + " " + pc.name + " " + describe(mm, accum, d);
            RefMatrix expected = to_ref(w_n);
            oracle::vxm(expected, mp, accum, s, u, B, d);
            Vector w = w_n;
            check_case(
                what, expected, w, [&] { vxm(w, mp, accum, s, u, B, d, ctx); }, failures);
          }
        }
  }
}

INSTANTIATE_TEST_SUITE_P(Catalog, OracleMxv, testing::ValuesIn(semiring_cases()),
                         semiring_case_name);

class OracleMxmDense : public testing::TestWithParam<SemiringCase> {};

TEST_P(OracleMxmDense, SparseTimesDense) {
  const Semiring s = semiring(GetParam().name, GetParam().type);
  const Type t = s.type;
  Context ctx = cpu_context();
  int failures = 0;
  const auto& catalog = product_catalog();
  for (std::size_t sc = 0; sc < catalog.size(); ++sc) {
    const ProductCase& pc = catalog[sc];
    for (int tr = 0; tr < 4; ++tr) {
      const bool ta = tr & 1, tb = tr & 2;
      const Layout layout = sc % 2 ? Layout::col_major : Layout::row_major;
      const Matrix A = ta ? random_matrix(pc.k, pc.m, pc.density, t, seed_of(sc, t, 3), pc.a)
                          : random_matrix(pc.m, pc.k, pc.density, t, seed_of(sc, t, 3), pc.a);
      const DenseMatrix B = tb ? random_dense(pc.n, pc.k, t, seed_of(sc, t, 4), layout)
                               : random_dense(pc.k, pc.n, t, seed_of(sc, t, 4), layout);
      const Descriptor d = make_desc(MaskMode::none, false, ta, tb);
      const std::string what = "dense " + s.name() + " " + pc.name + " " +
                               describe(MaskMode::none, no_accum, d) +
                               (layout == Layout::col_major ? " col_major" : " row_major");
      const RefMatrix expected = oracle::mxm_dense(t, s, A, B, d);
      DenseMatrix C(pc.m, pc.n, t, layout);
      // ops.hpp leaves a transposed dense B to the executors: NotImplemented is allowed there.
      check_case(
          what, expected, C, [&] { mxm(C, s, A, B, d, ctx); }, failures, tb);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Catalog, OracleMxmDense, testing::ValuesIn(semiring_cases()),
                         semiring_case_name);

}  // namespace
