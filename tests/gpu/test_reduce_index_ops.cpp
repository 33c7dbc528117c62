// GPU tests of reduce (to a vector by rows and columns, to a scalar), transpose, extract and
// assign (also of a scalar into a full vector) on the cuda executor, each checked against the cpu
// executor (Backend::verify): every monoid x value type, mask modes x accumulator x replace x
// transpose_a, typecasting, the shared matrix catalog (0x0, m x 0, nnz 0, 1x1, empty rows, one
// dense row), larger random shapes and real matrices from ../shared/data. The device pool is
// poisoned first so that an unwritten output shows up.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "backend/cuda/reduce/reduction.hpp"
#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/op_cases.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

constexpr MonoidCode all_monoids[] = {MonoidCode::plus, MonoidCode::times, MonoidCode::min,
                                      MonoidCode::max,  MonoidCode::lor,   MonoidCode::land,
                                      MonoidCode::lxor, MonoidCode::any};

/// The catalog plus a few larger shapes (several blocks, power-law-free but uneven rows).
std::vector<MatrixCase> shapes() {
  std::vector<MatrixCase> out = matrix_catalog();
  out.push_back({"rand_300x200", 300, 200, Pattern::random, 0.05});
  out.push_back({"dense_row_500x400", 500, 400, Pattern::dense_row, 0.01});
  out.push_back({"empty_rows_257x1030", 257, 1030, Pattern::empty_rows, 0.02});
  // Rows of ~270 entries: the warp-per-row reduction (rows averaging over 64 entries).
  out.push_back({"long_rows_20x900", 20, 900, Pattern::random, 0.3});
  return out;
}

/// The accumulator used for the k-th combination: none, the monoid's own op, or min.
Accum accum_for(int k, MonoidCode m) {
  switch (k % 3) {
    case 0:
      return no_accum;
    case 1:
      return monoid_op(m);
    default:
      return BinaryOpCode::min;
  }
}

std::string what(const std::string& name, const Error& e) { return name + ": " + e.what(); }

/// The reduce family's paths (backend/cuda/reduce/reduction.hpp), back to the defaults after
/// each test.
cuda::reduction::paths& reduce_paths() { return cuda::reduction::paths_now(); }

class ReduceIndexOps : public PoisonedPoolTest<std::size_t(64) << 20> {
 protected:
  void TearDown() override {
    reduce_paths() = {};
    PoisonedPoolTest::TearDown();
  }
};

/// Every shape x monoid x type x dimension x transpose_a x mask mode, with accumulators and
/// replace, on Backend::verify (the path switches as the caller set them).
void reduce_to_vector_sweep() {
  int seed = 100;
  for (const MatrixCase& c : shapes())
    for (MonoidCode mo : all_monoids)
      for (Type t : all_types) {
        ++seed;
        const Type at = all_types[seed % 5];  // A's type differs from w's: typecasting
        const Matrix A = random_matrix(c.m, c.n, c.density, at, seed, c.p, ValueKind::integral);
        for (ReduceDim dim : {ReduceDim::rows, ReduceDim::cols})
          for (bool ta : {false, true}) {
            const Index n = (dim == ReduceDim::rows) != ta ? c.m : c.n;
            const Vector mask = random_vector_mask(n, 0.5, Type::int32, seed + 1);
            const Vector w0 = random_vector(n, 0.4, t, seed + 2, ValueKind::integral);
            for (MaskMode mm : all_mask_modes) {
              const int k = seed + int(mm) + int(dim) + (ta ? 1 : 0);
              const Accum acc = accum_for(k, mo);
              const Descriptor d = make_desc(mm, k % 2 == 0, ta, false);
              Vector w = w0;
              Context ctx(Backend::verify);
              try {
                reduce(w, mm == MaskMode::none ? nullptr : &mask, acc, mo, A, dim, d, ctx);
              } catch (const Error& e) {
                ADD_FAILURE() << what(c.name, e) << " " << monoid_name(mo) << " w:" << type_name(t)
                              << " A:" << type_name(at)
                              << (dim == ReduceDim::rows ? " rows " : " cols ")
                              << describe(mm, acc, d);
              }
            }
          }
      }
}

TEST_F(ReduceIndexOps, ReduceToVectorEveryMonoidTypeMaskAccumReplace) { reduce_to_vector_sweep(); }

/// The same with the row kernel's 16-byte schedule and the fused output (the kernel's empty-row
/// count): the fused output must be taken only where it is legal, or a masked / accumulated
/// result differs from the cpu's.
TEST_F(ReduceIndexOps, ReduceToVectorSweepVecKernelFusedOutput) {
  reduce_paths().rows = cuda::reduction::row_kernel::vec;
  reduce_paths().output = cuda::reduction::rows_output::fused;
  reduce_to_vector_sweep();
}

/// The same with the columns' atomics by ranges of 64 columns (up to 17 passes here, each row's
/// cursor carried between them; `ranges` proper takes ranges of half of L2, one pass on these).
TEST_F(ReduceIndexOps, ReduceToVectorSweepColumnRanges) {
  reduce_paths().cols = cuda::reduction::column_method::ranges64;
  reduce_to_vector_sweep();
}

/// Reduce by columns names the path reduction::cols takes: monoid atomics for plus, the
/// transpose for `any` and for lor on fp64 (their identity seed is not neutral) whatever the
/// column method; every result verified against the cpu.
TEST_F(ReduceIndexOps, ColumnTraceNamesTheTransposeWhereTheSeedIsNotNeutral) {
  const Matrix A = random_matrix(50, 70, 0.2, Type::fp64, 41, Pattern::random, ValueKind::integral);
  for (const auto method : {cuda::reduction::column_method::atomic,
                            cuda::reduction::column_method::ranges}) {
    reduce_paths().cols = method;
    for (const auto& [monoid, transposed] :
         {std::pair{MonoidCode::plus, false}, {MonoidCode::any, true}, {MonoidCode::lor, true}}) {
      std::ostringstream trace;
      Context ctx(Backend::verify);
      ctx.trace = true;
      ctx.trace_out = &trace;
      Vector w(A.ncols(), Type::fp64);
      reduce(w, nullptr, no_accum, monoid, A, ReduceDim::cols, {}, ctx);
      const bool says_transpose =
          trace.str().find("columns (transpose, then rows)") != std::string::npos;
      EXPECT_EQ(says_transpose, transposed) << monoid_name(monoid) << "\n" << trace.str();
      EXPECT_NE(trace.str().find("verify passed"), std::string::npos) << trace.str();
    }
  }
}

/// Runs reduce by rows (plus) on Backend::verify with tracing and returns the trace.
std::string verified_trace(Vector& w, const Vector* mask, Accum accum, const Matrix& A,
                           const Descriptor& d) {
  std::ostringstream trace;
  Context ctx(Backend::verify);
  ctx.trace = true;
  ctx.trace_out = &trace;
  reduce(w, mask, accum, MonoidCode::plus, A, ReduceDim::rows, d, ctx);
  return trace.str();
}

/// The fused output replaces the write-back only where the write-back would copy t: no mask and
/// no accumulator, or an accumulator into an empty w; with and without empty rows (t as it
/// stands, or the compaction with the kernel's count). Every result verified against the cpu.
TEST_F(ReduceIndexOps, FusedOutputOnlyWhereTheWriteBackCopiesT) {
  reduce_paths().output = cuda::reduction::rows_output::fused;
  const Index n = 60;
  const Matrix full_rows =
      random_matrix(n, 40, 0.3, Type::fp64, 31, Pattern::random, ValueKind::integral);
  const Matrix some_empty =
      random_matrix(n, 40, 0.3, Type::fp64, 32, Pattern::empty_rows, ValueKind::integral);
  const Vector mask = random_vector_mask(n, 0.5, Type::int32, 33);
  const Vector w_entries = random_vector(n, 0.4, Type::fp64, 34, ValueKind::integral);
  struct Case {
    const char* name;
    const Vector* mask;
    bool complement;
    Accum accum;
    bool w_empty, fused;
  };
  const Case cases[] = {
      {"no mask, no accum, w with entries", nullptr, false, no_accum, false, true},
      {"no mask, no accum, empty w", nullptr, false, no_accum, true, true},
      {"accum into an empty w", nullptr, false, BinaryOpCode::plus, true, true},
      {"accum into w with entries", nullptr, false, BinaryOpCode::plus, false, false},
      {"mask", &mask, false, no_accum, true, false},
      {"complemented mask", &mask, true, no_accum, false, false},
      {"complemented null mask (admits nothing)", nullptr, true, no_accum, false, false},
  };
  for (const Case& c : cases)
    for (const Matrix* A : {&full_rows, &some_empty}) {
      Vector w = c.w_empty ? Vector(n, Type::fp64) : w_entries;
      Descriptor d;
      d.mask_complement = c.complement;
      std::string trace;
      try {
        trace = verified_trace(w, c.mask, c.accum, *A, d);
      } catch (const Error& e) {
        ADD_FAILURE() << c.name << (A == &some_empty ? ", empty rows: " : ": ") << e.what();
        continue;
      }
      EXPECT_EQ(trace.find("fused output") != std::string::npos, c.fused) << c.name << "\n"
                                                                          << trace;
    }
}

/// Rows of every length 0..40 (8 lanes a row) and 65..264 (a warp a row): every head / middle /
/// tail split of the 16-byte loads, as the rows start at every offset modulo 16 bytes; more
/// rows than the vec kernel's resident groups on an H100 (its grid-stride loop turns more than
/// once); monoids of each kind, the types of 1, 4 and 8 bytes, both index widths; with and
/// without empty rows (the fused output's count across blocks). Verified against the cpu.
TEST_F(ReduceIndexOps, VecKernelAndFusedOutputEveryRowSplit) {
  reduce_paths().rows = cuda::reduction::row_kernel::vec;
  reduce_paths().output = cuda::reduction::rows_output::fused;
  for (bool long_rows : {false, true}) {
    std::vector<Index> lengths;
    const Index nrows = long_rows ? 9000 : 40000;
    for (Index r = 0; r < nrows; ++r)
      lengths.push_back(long_rows ? 65 + (r * 37) % 200 : (r * 7 + r / 131) % 41);
    const Matrix some_empty = rows_of_lengths(lengths, 400, Type::fp64, 41);
    for (Index& len : lengths) len += len == 0 ? 1 : 0;
    const Matrix none_empty = rows_of_lengths(lengths, 400, Type::fp64, 42);
    for (const Matrix* shape : {&some_empty, &none_empty})
      for (IndexType it : {IndexType::i32, IndexType::i64})
        for (Type t : {Type::boolean, Type::int32, Type::fp32, Type::fp64})
          for (MonoidCode mo : {MonoidCode::plus, MonoidCode::min, MonoidCode::lor,
                                MonoidCode::land, MonoidCode::any}) {
            const Matrix A = shape->cast(t).with_index_type(it);
            Vector w(A.nrows(), t);
            Context ctx(Backend::verify);
            try {
              reduce(w, nullptr, no_accum, mo, A, ReduceDim::rows, {}, ctx);
            } catch (const Error& e) {
              ADD_FAILURE() << (long_rows ? "long rows " : "short rows ")
                            << (shape == &some_empty ? "with empty rows " : "none empty ")
                            << type_name(t) << " " << monoid_name(mo) << ": " << e.what();
            }
          }
  }
}

TEST_F(ReduceIndexOps, ReduceToScalarEveryMonoidType) {
  int seed = 500;
  for (const MatrixCase& c : shapes())
    for (MonoidCode mo : all_monoids)
      for (Type t : all_types) {
        ++seed;
        const Matrix A = random_matrix(c.m, c.n, c.density, t, seed, c.p, ValueKind::integral);
        const Vector u = random_vector(c.m * 3 + c.n, c.density, t, seed, ValueKind::integral);
        Context ctx(Backend::verify);
        try {
          reduce(mo, A, ctx);
          reduce(mo, u, ctx);
        } catch (const Error& e) {
          ADD_FAILURE() << what(c.name, e) << " " << monoid_name(mo) << " " << type_name(t);
        }
      }
}

/// verify accepts any value for the any monoid, so this checks on its own that each result is
/// one of the entries reduced (short rows, long rows for the warp-per-row path, columns, scalars),
/// on the paths the reduce switches select (`paths` names them).
void any_keeps_an_entry(const char* paths) {
  Context ctx(Backend::cuda);
  for (Index ncols : {Index(9), Index(700)}) {
    const Index nrows = 23;
    std::vector<Index> ri, ci;
    std::vector<double> v;
    for (Index i = 0; i < nrows; ++i)
      for (Index j = 0; j < ncols; ++j)
        if ((i * 7 + j * 3) % 4 != 0 && i != 5) {
          ri.push_back(i);
          ci.push_back(j);
          v.push_back(double(1 + i * 10000 + j));  // value names its position
        }
    const Matrix A = Matrix::from_triplets(nrows, ncols, ri, ci, v);
    for (ReduceDim dim : {ReduceDim::rows, ReduceDim::cols}) {
      const Index n = dim == ReduceDim::rows ? nrows : ncols;
      Vector w(n, Type::fp64);
      reduce(w, nullptr, no_accum, MonoidCode::any, A, dim, {}, ctx);
      const Vector h = w.to(Location::host, ctx);
      std::vector<int> seen(std::size_t(n), 0);
      for (std::size_t k = 0; k < ri.size(); ++k)
        seen[std::size_t(dim == ReduceDim::rows ? ri[k] : ci[k])] = 1;
      Index expected = 0;
      for (int x : seen) expected += x;
      ASSERT_EQ(h.nnz(), expected) << "ncols " << ncols << ", " << paths;
      for (Index k = 0; k < h.nnz(); ++k) {
        const Index pos = h.indices().as<Index>()[k];
        const double x = h.values().as<double>()[k];
        const Index i = Index(x - 1) / 10000, j = Index(x - 1) % 10000;
        EXPECT_EQ(dim == ReduceDim::rows ? i : j, pos) << "ncols " << ncols << ": any gave " << x;
        EXPECT_NE((i * 7 + j * 3) % 4, 0) << "not an entry: " << x;
      }
    }
    const double x = reduce(MonoidCode::any, A, ctx).as<double>();
    EXPECT_TRUE(std::find(v.begin(), v.end(), x) != v.end()) << "scalar any gave " << x;
  }
}

TEST_F(ReduceIndexOps, AnyMonoidKeepsAnEntryOfTheRowOrColumn) {
  any_keeps_an_entry("default paths");
  // Row 5 is empty: the fused output compacts.
  reduce_paths().rows = cuda::reduction::row_kernel::vec;
  reduce_paths().output = cuda::reduction::rows_output::fused;
  any_keeps_an_entry("vec kernel, fused output");
}

TEST_F(ReduceIndexOps, ReduceAllMaskedOutAndComplementedNullMask) {
  const Matrix A = random_matrix(40, 30, 0.2, Type::fp64, 7);
  const Vector empty_mask(40, Type::boolean);
  const Vector w0 = random_vector(40, 0.5, Type::fp64, 8);
  for (bool replace : {false, true})
    for (const Vector* m : {&empty_mask, static_cast<const Vector*>(nullptr)}) {
      Descriptor d;
      d.replace = replace;
      d.mask_complement = m == nullptr;  // C<!NULL> admits nothing
      Vector w = w0;
      Context ctx(Backend::verify);
      EXPECT_NO_THROW(
          reduce(w, m, BinaryOpCode::plus, MonoidCode::plus, A, ReduceDim::rows, d, ctx));
    }
}

TEST_F(ReduceIndexOps, TransposeEveryTypeMaskAccumReplace) {
  int seed = 900;
  for (const MatrixCase& c : shapes())
    for (Type t : all_types)
      for (bool ta : {false, true}) {
        ++seed;
        const Type at = all_types[seed % 5];
        const Matrix A = random_matrix(c.m, c.n, c.density, at, seed, c.p, ValueKind::integral,
                                       seed % 2 ? IndexType::i32 : IndexType::i64);
        const Index r = ta ? c.m : c.n, cc = ta ? c.n : c.m;
        const Matrix mask = random_mask(r, cc, 0.5, Type::int32, seed + 1);
        const Matrix C0 =
            random_matrix(r, cc, 0.3, t, seed + 2, Pattern::random, ValueKind::integral);
        for (MaskMode mm : all_mask_modes) {
          const int k = seed + int(mm);
          const Accum acc = k % 3 == 0 ? no_accum : Accum(BinaryOpCode::plus);
          const Descriptor d = make_desc(mm, k % 2 == 0, ta, false);
          Matrix C = C0;
          Context ctx(Backend::verify);
          try {
            transpose(C, mm == MaskMode::none ? nullptr : &mask, acc, A, d, ctx);
          } catch (const Error& e) {
            ADD_FAILURE() << what(c.name, e) << " " << type_name(t) << " A:" << type_name(at) << " "
                          << describe(mm, acc, d);
          }
        }
      }
}

/// Row or column index lists: all, sorted, unsorted with repeats, empty.
std::vector<Indices> index_lists(Index n, int seed) {
  std::vector<Indices> out{Indices::all()};
  Rng rng(std::uint64_t(seed) * 7919 + 1);
  Indices sorted, shuffled, empty;
  for (Index i = 0; i < n; i += 2) sorted.list.push_back(i);
  for (Index k = 0; k < n + 2 && n > 0; ++k) shuffled.list.push_back(rng.between(0, n - 1));
  out.push_back(sorted);
  out.push_back(shuffled);
  out.push_back(empty);
  return out;
}

TEST_F(ReduceIndexOps, ExtractIndexListsMaskAccumReplace) {
  int seed = 1300;
  for (const MatrixCase& c : shapes())
    for (Type t : {Type::boolean, Type::int32, Type::fp64})
      for (bool ta : {false, true}) {
        ++seed;
        const Matrix A =
            random_matrix(c.m, c.n, c.density, all_types[seed % 5], seed, c.p, ValueKind::integral);
        const Index ar = ta ? c.n : c.m, ac = ta ? c.m : c.n;
        for (const Indices& I : index_lists(ar, seed))
          for (const Indices& J : index_lists(ac, seed + 1)) {
            const Index r = I.count(ar), cc = J.count(ac);
            const Matrix mask = random_mask(r, cc, 0.5, Type::boolean, seed + 3);
            const Matrix C0 =
                random_matrix(r, cc, 0.3, t, seed + 4, Pattern::random, ValueKind::integral);
            for (MaskMode mm : all_mask_modes) {
              const int k = seed + int(mm) + int(I.list.size() + J.list.size());
              const Accum acc = k % 3 == 0 ? no_accum : Accum(BinaryOpCode::max);
              const Descriptor d = make_desc(mm, k % 2 == 0, ta, false);
              Matrix C = C0;
              Context ctx(Backend::verify);
              try {
                extract(C, mm == MaskMode::none ? nullptr : &mask, acc, A, I, J, d, ctx);
              } catch (const Error& e) {
                ADD_FAILURE() << what(c.name, e) << " " << type_name(t)
                              << " I:" << (I.all_ ? "all" : std::to_string(I.list.size()))
                              << " J:" << (J.all_ ? "all" : std::to_string(J.list.size())) << " "
                              << describe(mm, acc, d);
              }
            }
          }
      }
}

/// Index lists without repeats (GraphBLAS leaves assign with repeated indices undefined).
std::vector<Indices> distinct_lists(Index n, int seed) {
  std::vector<Indices> out{Indices::all()};
  Rng rng(std::uint64_t(seed) * 104729 + 3);
  Indices sorted, permuted, empty;
  std::vector<Index> perm;
  for (Index i = 0; i < n; ++i) perm.push_back(i);
  for (Index i = n - 1; i > 0; --i)
    std::swap(perm[std::size_t(i)], perm[std::size_t(rng.between(0, i))]);
  for (Index i = 1; i < n; i += 2) sorted.list.push_back(i);
  for (Index i = 0; i < (n + 1) / 2; ++i) permuted.list.push_back(perm[std::size_t(i)]);
  out.push_back(sorted);
  out.push_back(permuted);
  out.push_back(empty);
  return out;
}

TEST_F(ReduceIndexOps, AssignIndexListsMaskAccumReplace) {
  int seed = 1700;
  for (const MatrixCase& c : shapes())
    for (Type t : {Type::boolean, Type::int64, Type::fp32})
      for (bool ta : {false, true}) {
        ++seed;
        const Matrix C0 = random_matrix(c.m, c.n, c.density, t, seed, c.p, ValueKind::integral);
        const Matrix mask = random_mask(c.m, c.n, 0.5, Type::int32, seed + 3);
        for (const Indices& I : distinct_lists(c.m, seed))
          for (const Indices& J : distinct_lists(c.n, seed + 1)) {
            const Index r = I.count(c.m), cc = J.count(c.n);
            const Matrix A = random_matrix(ta ? cc : r, ta ? r : cc, 0.4, all_types[seed % 5],
                                           seed + 4, Pattern::random, ValueKind::integral);
            for (MaskMode mm : all_mask_modes) {
              const int k = seed + int(mm) + int(I.list.size() * 3 + J.list.size());
              const Accum acc = k % 3 == 0 ? no_accum : Accum(BinaryOpCode::plus);
              const Descriptor d = make_desc(mm, k % 2 == 0, ta, false);
              Matrix C = C0;
              Context ctx(Backend::verify);
              try {
                assign(C, mm == MaskMode::none ? nullptr : &mask, acc, A, I, J, d, ctx);
              } catch (const Error& e) {
                ADD_FAILURE() << what(c.name, e) << " " << type_name(t)
                              << " I:" << (I.all_ ? "all" : std::to_string(I.list.size()))
                              << " J:" << (J.all_ ? "all" : std::to_string(J.list.size())) << " "
                              << describe(mm, acc, d);
              }
            }
          }
      }
}

TEST_F(ReduceIndexOps, AssignWithRepeatedIndicesIsNotImplementedOnCuda) {
  Matrix C = random_matrix(6, 6, 0.5, Type::fp64, 1);
  const Matrix A = random_matrix(2, 2, 1.0, Type::fp64, 2, Pattern::full);
  Indices I{{1, 1}, false}, J{{0, 3}, false};
  Context ctx(Backend::cuda);
  EXPECT_THROW(assign(C, nullptr, no_accum, A, I, J, {}, ctx), NotImplemented);
}

// w<m> = w accum s into a full device w, the index_ops scatter forced (Variant::assign) and
// verified against the cpu: every w and mask type, value and structural masks (a third of the
// mask's values zero), empty, sparse and all-entries masks, scalars of three types (typecast to
// w's), no accumulator and five accumulators; sizes of one and several blocks.
TEST_F(ReduceIndexOps, AssignScalarIntoFullVectorScatter) {
  int seed = 2100;
  const Accum accums[] = {no_accum,
                          BinaryOpCode::plus,
                          BinaryOpCode::min,
                          BinaryOpCode::times,
                          BinaryOpCode::second,
                          BinaryOpCode::minus};
  for (Index n : {Index{1}, Index{1000}})
    for (Type t : all_types)
      for (double density : {0.0, 0.3, 1.0})
        for (const Scalar& s : {Scalar(std::int32_t(3)), Scalar(2.5), Scalar(true)}) {
          ++seed;
          Context ctx(Backend::verify);
          const Vector w0 =
              random_vector(n, 1.0, t, seed, ValueKind::integral).to(Location::device, ctx);
          ASSERT_EQ(w0.nnz(), n);
          const Vector mask = random_vector_mask(n, density, all_types[seed % 5], seed + 1)
                                  .to(Location::device, ctx);
          for (MaskMode mm : {MaskMode::value, MaskMode::structure})
            for (const Accum& acc : accums) {
              Descriptor d = make_desc(mm, false, false, false);
              d.variant = Variant::assign;
              Vector w = w0;
              try {
                assign(w, &mask, acc, s, d, ctx);
              } catch (const Error& e) {
                ADD_FAILURE() << e.what() << ": n " << n << " " << type_name(t) << " density "
                              << density << " scalar " << type_name(s.type()) << " "
                              << describe(mm, acc, d);
              }
              EXPECT_EQ(w.location(), Location::device);
              EXPECT_EQ(w.nnz(), n);
            }
        }
}

// The scatter's limits (can_implement): a complemented mask, replace, a w that is not full, a
// host w or no mask are refused when forced; `automatic` takes the scatter for a full device w
// (w stays on the device, nothing copied from the host).
TEST_F(ReduceIndexOps, AssignScalarScatterLimitsAndAutomaticChoice) {
  Context ctx(Backend::cuda);
  const Index n = 300;
  const Vector full = random_vector(n, 1.0, Type::int64, 1, ValueKind::integral);
  const Vector sparse = random_vector(n, 0.5, Type::int64, 2, ValueKind::integral);
  const Vector mask = random_vector_mask(n, 0.2, Type::boolean, 3).to(Location::device, ctx);
  auto refused = [&](Vector w, const Vector* m, Descriptor d) {
    d.variant = Variant::assign;
    EXPECT_THROW(assign(w, m, no_accum, Scalar(Index{7}), d, ctx), NotImplemented);
  };
  refused(full.to(Location::device, ctx), &mask,
          make_desc(MaskMode::complement_structure, false, false, false));
  refused(full.to(Location::device, ctx), &mask,
          make_desc(MaskMode::structure, true, false, false));
  refused(sparse.to(Location::device, ctx), &mask, {});
  refused(full, &mask, {});
  refused(full.to(Location::device, ctx), nullptr, {});
  Vector w = full.to(Location::device, ctx);
  ctx.transfers = {};
  assign(w, &mask, BinaryOpCode::plus, Scalar(Index{7}),
         make_desc(MaskMode::structure, false, false, false), ctx);
  EXPECT_EQ(ctx.transfers.host_to_device, 0u);
  EXPECT_EQ(ctx.transfers.device_to_host, 0u);
  EXPECT_EQ(w.location(), Location::device);
  // The same result as the cpu executor.
  Vector expected = full;
  Context cpu(Backend::cpu);
  assign(expected, &mask, BinaryOpCode::plus, Scalar(Index{7}),
         make_desc(MaskMode::structure, false, false, false), cpu);
  const Vector got = w.to(Location::host, ctx);
  EXPECT_EQ(got.indices_vector(), expected.indices_vector());
  EXPECT_EQ(got.values_vector<std::int64_t>(), expected.values_vector<std::int64_t>());
}

/// A small run of every operation on the catalog shapes with masks, accumulator and replace:
/// the subset to run under compute-sanitizer (memcheck, racecheck) in seconds.
TEST_F(ReduceIndexOps, SanitizerSubset) {
  int seed = 2100;
  for (const MatrixCase& c : matrix_catalog()) {
    ++seed;
    const Matrix A = random_matrix(c.m, c.n, c.density, Type::fp32, seed, c.p, ValueKind::integral);
    const Vector vmask = random_vector_mask(c.m, 0.5, Type::int32, seed);
    const Matrix tmask = random_mask(c.n, c.m, 0.5, Type::boolean, seed);
    const Matrix amask = random_mask(c.m, c.n, 0.5, Type::boolean, seed);
    Indices I, J;
    for (Index i = c.m - 1; i >= 0; i -= 2) I.list.push_back(i);
    for (Index j = 0; j < c.n; ++j) J.list.push_back((j * 5) % std::max<Index>(c.n, 1));
    Context ctx(Backend::verify);
    const Descriptor d = make_desc(MaskMode::complement_structure, true, false, false);
    try {
      Vector w = random_vector(c.m, 0.5, Type::fp64, seed, ValueKind::integral);
      reduce(w, &vmask, BinaryOpCode::plus, MonoidCode::max, A, ReduceDim::rows, d, ctx);
      Vector wc = random_vector(c.n, 0.5, Type::int32, seed, ValueKind::integral);
      reduce(wc, nullptr, BinaryOpCode::plus, MonoidCode::times, A, ReduceDim::cols, {}, ctx);
      reduce(MonoidCode::min, A, ctx);
      Matrix T =
          random_matrix(c.n, c.m, 0.3, Type::fp64, seed + 1, Pattern::random, ValueKind::integral);
      transpose(T, &tmask, BinaryOpCode::minus, A, d, ctx);
      Matrix E = random_matrix(I.count(c.m), J.count(c.n), 0.3, Type::int64, seed + 2,
                               Pattern::random, ValueKind::integral);
      extract(E, nullptr, BinaryOpCode::max, A, I, J, {}, ctx);
      Matrix Z =
          random_matrix(c.m, c.n, 0.3, Type::fp64, seed + 3, Pattern::random, ValueKind::integral);
      Indices Ia, Ja;
      for (Index i = 0; i < c.m; i += 2) Ia.list.push_back(i);
      for (Index j = c.n - 1; j >= 0; j -= 3) Ja.list.push_back(j);
      const Matrix B = random_matrix(Ia.count(c.m), Ja.count(c.n), 0.5, Type::fp32, seed + 4,
                                     Pattern::random, ValueKind::integral);
      assign(Z, &amask, BinaryOpCode::plus, B, Ia, Ja,
             make_desc(MaskMode::value, true, false, false), ctx);
    } catch (const Error& e) {
      ADD_FAILURE() << what(c.name, e);
    }
  }
}

std::vector<std::string> real_matrices() {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const char* name :
       {"1138_bus.mtx", "Erdos971.mtx", "G51.mtx", "bcsstk13.mtx.gz", "ca-GrQc.mtx.gz"}) {
    const fs::path p = fs::path(RINGBLAS_DATA_DIR) / "suitesparse" / name;
    if (fs::exists(p)) out.push_back(p.string());
  }
  return out;
}

TEST_F(ReduceIndexOps, RealMatrices) {
  const std::vector<std::string> files = real_matrices();
  if (files.empty()) GTEST_SKIP() << "no shared matrices under " << RINGBLAS_DATA_DIR;
  for (const std::string& f : files) {
    const Matrix A = io::read_matrix_market(f).cast(Type::fp64);
    Context ctx(Backend::verify);
    try {
      for (MonoidCode mo : {MonoidCode::plus, MonoidCode::max, MonoidCode::any})
        for (ReduceDim dim : {ReduceDim::rows, ReduceDim::cols}) {
          Vector w(dim == ReduceDim::rows ? A.nrows() : A.ncols(), Type::fp64);
          reduce(w, nullptr, no_accum, mo, A, dim, {}, ctx);
        }
      reduce(MonoidCode::plus, A, ctx);
      Matrix C(A.ncols(), A.nrows(), Type::fp64);
      transpose(C, nullptr, no_accum, A, {}, ctx);
      Indices I, J;
      for (Index i = A.nrows() - 1; i >= 0; i -= 3) I.list.push_back(i);
      for (Index j = 0; j < A.ncols(); j += 2) J.list.push_back(j);
      Matrix E(I.count(A.nrows()), J.count(A.ncols()), Type::fp64);
      extract(E, nullptr, no_accum, A, I, J, {}, ctx);
      Matrix Z = A;
      assign(Z, &A, BinaryOpCode::plus, E, I, J, {}, ctx);
    } catch (const Error& e) {
      ADD_FAILURE() << what(f, e);
    }
  }
}

/// A chain on device-resident operands: mxm, mxv, reduce, transpose, extract (all indices) and
/// assign (all indices), traced. No data crosses between host and device; the only transfers
/// are the sizes the write-backs must know (8 bytes or less each) and the scalar result.
TEST_F(ReduceIndexOps, DeviceResidentChainMakesNoHostCopies) {
  Context ctx(Backend::cuda);
  ctx.trace = true;
  const Index n = 300;
  const Matrix A = random_matrix(n, n, 0.03, Type::fp64, 11).to(Location::device, ctx);
  const Vector u = random_vector(n, 0.5, Type::fp64, 12).to(Location::device, ctx);
  Matrix B = Matrix(n, n, Type::fp64).to(Location::device, ctx);
  Matrix T = Matrix(n, n, Type::fp64).to(Location::device, ctx);
  Vector w = Vector(n, Type::fp64).to(Location::device, ctx);
  Vector r = Vector(n, Type::fp64).to(Location::device, ctx);
  ctx.transfers = {};
  const Semiring s = semiring("plus_times", Type::fp64);
  mxm(B, nullptr, no_accum, s, A, A, {}, ctx);
  mxv(w, nullptr, no_accum, s, B, u, {}, ctx);
  reduce(r, &w, BinaryOpCode::plus, MonoidCode::max, B, ReduceDim::cols, {}, ctx);
  transpose(T, &A, BinaryOpCode::plus, B, {}, ctx);
  Matrix E = T;
  extract(E, nullptr, BinaryOpCode::plus, T, Indices::all(), Indices::all(), {}, ctx);
  assign(E, &B, no_accum, A, Indices::all(), Indices::all(), {}, ctx);
  const Scalar total = reduce(MonoidCode::plus, E, ctx);
  EXPECT_EQ(total.type(), Type::fp64);
  const TransferCounters c = ctx.transfers;
  EXPECT_EQ(c.host_to_device, 0u) << "host-to-device copies in the chain";
  EXPECT_EQ(c.bytes_host_to_device, 0u);
  EXPECT_LE(c.bytes_device_to_host, 8 * c.device_to_host)
      << "a device-to-host transfer larger than a size or the scalar result";
  EXPECT_EQ(E.location(), Location::device);
  EXPECT_EQ(r.location(), Location::device);
  EXPECT_EQ(w.location(), Location::device);
  EXPECT_EQ(B.location(), Location::device);
}

}  // namespace
}  // namespace ringblas::test
