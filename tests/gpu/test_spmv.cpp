// GPU tests of mxv / vxm on the spmv_pull and spmv_push kernels (Descriptor.variant forced) and
// the automatic choice: every spmv manifest semiring x both directions x mask modes (value,
// structural, complemented) x accumulator x replace x input density (empty, sparse, full),
// transposes, full masks (admitted by position), BFS steps with C<¬visited> and positional
// parents, pair products over a full input (row lengths only); against the cpu backend.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "ringblas_generated/cuda_manifest/spmv.hpp"
#include "support/gpu_fixture.hpp"
#include "support/op_cases.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

std::vector<Semiring> spmv_semirings() {
  return cuda::manifest::semirings<cuda::manifest::spmv>();
}

/// One mxv (or vxm) on the GPU with `v` forced, checked against the cpu backend.
std::string verify_spmv(bool vxm_dir, const Semiring& s, const Matrix& A, const Vector& u, Vector w,
                        const Vector* mask, Accum accum, Descriptor d, Variant v) {
  d.variant = v;
  Context ctx(Backend::verify);
  try {
    if (vxm_dir) vxm(w, mask, accum, s, u, A, d, ctx);
    else mxv(w, mask, accum, s, A, u, d, ctx);
  } catch (const Error& e) {
    return std::string(vxm_dir ? "vxm " : "mxv ") + std::string(variant_name(v)) + " " + s.name() + ": " + e.what();
  }
  return "";
}

Accum accum_for(const Semiring& s) {
  if (s.type == Type::boolean) return BinaryOpCode::lor;
  return s.add == MonoidCode::min ? Accum(BinaryOpCode::min) : Accum(BinaryOpCode::plus);
}

class Spmv : public GpuTest {};

TEST_F(Spmv, EverySemiringMaskAccumReplaceDensity) {
  const Index m = 120, n = 90;
  int seed = 0;
  for (const Semiring& s : spmv_semirings())
    for (bool vxm_dir : {false, true})
      for (Variant v : {Variant::spmv_pull, Variant::spmv_push}) {
        const Matrix A = random_matrix(m, n, 0.06, s.type, ++seed, Pattern::dense_row, ValueKind::integral);
        const Index in = vxm_dir ? m : n, out = vxm_dir ? n : m;
        const Vector mask = random_vector_mask(out, 0.4, Type::int32, ++seed);
        const Vector w0 = random_vector(out, 0.3, s.type, ++seed, ValueKind::integral);
        for (double density : {0.0, 0.05, 1.0}) {
          const Vector u = random_vector(in, density, s.type, ++seed, ValueKind::integral);
          for (MaskMode mm : all_mask_modes) {
            const bool replace = (seed + int(mm)) % 2 == 0;
            const Accum acc = int(mm) % 2 ? accum_for(s) : no_accum;
            const Vector* mp = mm == MaskMode::none ? nullptr : &mask;
            EXPECT_EQ(verify_spmv(vxm_dir, s, A, u, w0, mp, acc, make_desc(mm, replace, false, false), v), "")
                << "density " << density << ", " << mask_mode_name(mm) << (replace ? ", replace" : "")
                << (acc ? ", accum" : "");
          }
        }
      }
}

TEST_F(Spmv, TransposesAndMixedTypes) {
  const Semiring s = semiring("plus_times", Type::fp64);
  const Matrix A = random_matrix(70, 50, 0.1, Type::fp32, 3, Pattern::empty_rows, ValueKind::integral);
  for (Variant v : {Variant::spmv_pull, Variant::spmv_push, Variant::automatic}) {
    const Vector u70 = random_vector(70, 0.3, Type::int64, 4, ValueKind::integral);
    const Vector u50 = random_vector(50, 0.3, Type::int64, 5, ValueKind::integral);
    EXPECT_EQ(verify_spmv(false, s, A, u70, Vector(50, Type::fp32), nullptr, no_accum, make_desc(MaskMode::none, false, true, false), v), "");
    EXPECT_EQ(verify_spmv(true, s, A, u50, Vector(70, Type::fp64), nullptr, no_accum, make_desc(MaskMode::none, false, false, true), v), "");
    EXPECT_EQ(verify_spmv(false, s, A, u50, Vector(70, Type::int64), nullptr, no_accum, {}, v), "");
  }
}

TEST_F(Spmv, BfsStepsWithComplementedVisitedMask) {
  // Level-synchronous BFS from vertex 0 on a random graph: q<¬visited, replace> = q ⊕.⊗ A with
  // parents by min_secondi (deterministic) and any_secondi (any parent), both directions.
  const Index n = 2000;
  const Matrix A = random_matrix(n, n, 4.0 / double(n), Type::boolean, 9);
  for (const char* name : {"min_secondi", "any_secondi"})
    for (Variant v : {Variant::spmv_pull, Variant::spmv_push, Variant::automatic}) {
      const Semiring s = semiring(name, Type::int64);
      Context cuda(Backend::cuda);
      Vector q = Vector::from_entries<std::int64_t>(n, {0}, {0});
      Vector visited = q;
      for (int level = 0; level < 12 && q.nnz() > 0; ++level) {
        Descriptor d = make_desc(MaskMode::complement_structure, true, false, false);
        EXPECT_EQ(verify_spmv(true, s, A, q, q, &visited, no_accum, d, v), "") << name << " level " << level;
        d.variant = v;
        Vector next(n, Type::int64);
        vxm(next, &visited, no_accum, s, q, A, d, cuda);
        if (next.location() != Location::host) next = next.to(Location::host, cuda);
        for (Index i : next.indices_vector())
          for (Index j : visited.indices_vector()) ASSERT_NE(i, j) << "revisited " << i;
        Vector merged(n, Type::int64);
        Context cpu(Backend::cpu);
        ewise_add(merged, nullptr, no_accum, BinaryOpCode::first, visited, next, {}, cpu);
        visited = merged;
        q = next;
      }
    }
}

// w accum= A ⊕.⊗ u into a full w without a mask (FastSV, PageRank): w stays full, written back
// without compaction; every semiring, both kernels, both directions.
TEST_F(Spmv, AccumulateIntoFullOutputWithoutMask) {
  const Index m = 80, n = 60;
  int seed = 500;
  for (const Semiring& s : spmv_semirings())
    for (bool vxm_dir : {false, true})
      for (Variant v : {Variant::spmv_pull, Variant::spmv_push}) {
        const Matrix A = random_matrix(m, n, 0.05, s.type, ++seed, Pattern::empty_rows,
                                       ValueKind::integral);
        const Index in = vxm_dir ? m : n, out = vxm_dir ? n : m;
        const Vector u = random_vector(in, 0.3, s.type, ++seed, ValueKind::integral);
        const Vector w0 = random_vector(out, 1.0, s.type, ++seed, ValueKind::integral);
        EXPECT_EQ(verify_spmv(vxm_dir, s, A, u, w0, nullptr, accum_for(s), {}, v), "");
      }
}

// A full mask (every position stored, a third of them zero: BFS's ⟨¬depth⟩) is admitted by
// position (mask_admit reads no indices): value and structural, complemented or not, int32 and
// boolean masks, with and without replace; both kernels, both directions.
TEST_F(Spmv, FullMaskAdmittedByPosition) {
  const Index m = 90, n = 70;
  int seed = 700;
  for (const Semiring& s : {semiring("plus_times", Type::int64), semiring("min_plus", Type::fp64),
                            semiring("any_pair", Type::boolean)})
    for (Type mt : {Type::int32, Type::boolean})
      for (bool vxm_dir : {false, true})
        for (Variant v : {Variant::spmv_pull, Variant::spmv_push}) {
          const Matrix A =
              random_matrix(m, n, 0.08, s.type, ++seed, Pattern::empty_rows, ValueKind::integral);
          const Index in = vxm_dir ? m : n, out = vxm_dir ? n : m;
          const Vector mask = random_vector_mask(out, 1.0, mt, ++seed);
          ASSERT_EQ(mask.nnz(), out);
          const Vector u = random_vector(in, 0.2, s.type, ++seed, ValueKind::integral);
          const Vector w0 = random_vector(out, 0.3, s.type, ++seed, ValueKind::integral);
          for (MaskMode mm : all_mask_modes)
            for (bool replace : {false, true}) {
              if (mm == MaskMode::none) continue;
              EXPECT_EQ(verify_spmv(vxm_dir, s, A, u, w0, &mask, no_accum,
                                    make_desc(mm, replace, false, false), v),
                        "")
                  << s.name() << ", " << mask_mode_name(mm) << (replace ? ", replace" : "");
            }
        }
}

TEST_F(Spmv, PairOverFullInputFoldsRowLengths) {
  // A ⊕.pair u with u full (degrees: A +.pair 1): the pull takes each row's result from its
  // length alone. Rows from empty to 4999 entries (many lane rounds), every pair semiring of the
  // manifest, without and with masks and an accumulator; both directions (vxm's pull reads Aᵀ,
  // made by the launcher).
  const Index m = 300, n = 5000;
  std::vector<Index> rows, cols;
  for (Index i = 0; i < m; ++i) {
    const Index len = (i * i * 7) % (i % 3 == 0 ? n : 40);
    for (Index j = 0; j < len; ++j) rows.push_back(i), cols.push_back((j * 13 + i) % n);
  }
  const Matrix A = Matrix::from_triplets<double>(m, n, rows, cols,
                                                 std::vector<double>(rows.size(), 2.5));
  int seed = 900;
  int checked = 0;
  for (const Semiring& s : spmv_semirings()) {
    if (s.mul != BinaryOpCode::pair) continue;
    for (bool vxm_dir : {false, true}) {
      const Index in = vxm_dir ? m : n, out = vxm_dir ? n : m;
      const Vector u = random_vector(in, 1.0, s.type, ++seed, ValueKind::integral);
      ASSERT_EQ(u.nnz(), in);
      const Vector mask = random_vector_mask(out, 0.4, Type::int32, ++seed);
      const Vector w0 = random_vector(out, 0.3, s.type, ++seed, ValueKind::integral);
      for (MaskMode mm : {MaskMode::none, MaskMode::complement_value, MaskMode::structure}) {
        const Accum acc = mm == MaskMode::structure ? accum_for(s) : no_accum;
        const Vector* mp = mm == MaskMode::none ? nullptr : &mask;
        EXPECT_EQ(verify_spmv(vxm_dir, s, A, u, w0, mp, acc, make_desc(mm, false, false, false),
                              Variant::spmv_pull),
                  "")
            << mask_mode_name(mm);
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 3 * 2 * 3);  // plus_pair int64 and fp64, any_pair boolean
}

TEST_F(Spmv, VariantsOfOtherFamiliesAreRejected) {
  const Semiring s = semiring("plus_times", Type::fp64);
  const Matrix A = random_matrix(10, 10, 0.3, Type::fp64, 1);
  Vector w(10);
  Descriptor d;
  d.variant = Variant::spmm_subwarp;
  Context ctx(Backend::cuda);
  EXPECT_THROW(mxv(w, nullptr, no_accum, s, A, random_vector(10, 0.5, Type::fp64, 2), d, ctx), NotImplemented);
}

}  // namespace
}  // namespace ringblas::test
