// GPU tests of mxm on the spgemm_hash kernel family (Descriptor.variant = spgemm_hash): every
// manifest semiring x type x mask mode x accumulate/replace against the naive oracle, the
// degenerate catalog, rows in every bin and just over each bin boundary, global-memory rows,
// power-law rows, transposes, mixed types, residency, and the shared .mtx / SNAP files squared
// against the cpu backend (Backend::verify).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "ringblas_generated/cuda_manifest/spgemm_hash.hpp"
#include "support/gpu_fixture.hpp"
#include "support/op_cases.hpp"
#include "support/oracle.hpp"
#include "support/random_matrix.hpp"
#if defined(RINGBLAS_HAS_CUDA)
#include "backend/cuda/common/device_props.hpp"
#include "backend/cuda/spgemm_hash/phase_log.hpp"
#include "backend/cuda/spgemm_hash/spgemm_hash.hpp"
#endif

namespace ringblas::test {
namespace {

/// The spgemm_hash rows of backend/cuda/manifest.def as built.
std::vector<Semiring> built_rows() {
  return cuda::manifest::semirings<cuda::manifest::spgemm_hash>();
}

Descriptor hash_desc(MaskMode m = MaskMode::none, bool replace = false, bool ta = false,
                     bool tb = false) {
  Descriptor d = make_desc(m, replace, ta, tb);
  d.variant = Variant::spgemm_hash;
  return d;
}

const Matrix* mask_for(MaskMode m, const Matrix& M) { return m == MaskMode::none ? nullptr : &M; }

/// C after mxm on the GPU, copied back to the host.
Matrix gpu_mxm(Matrix C, const Matrix* M, Accum accum, const Semiring& s, const Matrix& A,
               const Matrix& B, const Descriptor& d, Context& ctx) {
  mxm(C, M, accum, s, A, B, d, ctx);
  EXPECT_EQ(C.location(), Location::device);
  Matrix h = C.to(Location::host, ctx);
  h.check_invariants();
  return h;
}

/// Runs mxm under Backend::verify (cpu and cuda, compared entry by entry).
void verify_mxm(const std::string& what, const Matrix* M, Accum accum, const Semiring& s,
                const Matrix& A, const Matrix& B, const Descriptor& d, Matrix C) {
  Context ctx(Backend::verify);
  try {
    mxm(C, M, accum, s, A, B, d, ctx);
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": " << e.what();
  }
}

class SpgemmHash : public GpuTest {
 protected:
  /// The hash path's product of bin_matrices(boundary_degrees(), per_row, seed), run over a
  /// poisoned device pool, equals the cpu product exactly: every entry is written.
  static void expect_exact_over_poisoned_pool(Index per_row, std::uint64_t seed);
};

TEST_F(SpgemmHash, ManifestSemiringsMasksAccumReplaceMatchOracle) {
  Context ctx(Backend::cuda);
  int failures = 0, cases = 0;
  std::uint64_t seed = 100;
  for (const Semiring& s : built_rows()) {
    const Matrix A = random_matrix(23, 19, 0.25, s.type, ++seed);
    const Matrix B = random_matrix(19, 17, 0.3, s.type, ++seed);
    const Matrix C0 = random_matrix(23, 17, 0.2, s.type, ++seed);
    const Matrix M = random_mask(23, 17, 0.4, s.type, ++seed);
    for (MaskMode m : {MaskMode::none, MaskMode::value, MaskMode::structure,
                       MaskMode::complement_value, MaskMode::complement_structure}) {
      for (Accum accum : {Accum{}, Accum{BinaryOpCode::plus}, Accum{BinaryOpCode::min}}) {
        for (bool replace : {false, true}) {
          const Descriptor d = hash_desc(m, replace);
          const std::string what = s.name() + " " + describe(m, accum, d);
          RefMatrix ref = to_ref(C0);
          oracle::mxm(ref, mask_for(m, M), accum, s, A, B, d);
          Matrix got;
          check_case(what, ref, got,
                     [&] { got = gpu_mxm(C0, mask_for(m, M), accum, s, A, B, d, ctx); },
                     failures);
          ++cases;
        }
      }
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(cases, 500);
}

TEST_F(SpgemmHash, DegenerateCatalogMatchesOracle) {
  Context ctx(Backend::cuda);
  int failures = 0;
  const std::pair<const char*, Type> rings[] = {
      {"plus_times", Type::fp64}, {"min_plus", Type::int32}, {"lor_land", Type::boolean},
      {"any_secondi", Type::int64}, {"plus_pair", Type::fp32}};
  std::uint64_t seed = 900;
  for (const ProductCase& pc : product_catalog()) {
    for (auto [name, t] : rings) {
      const Semiring s = semiring(name, t);
      for (bool ta : {false, true}) {
        const Matrix A = ta ? random_matrix(pc.k, pc.m, pc.density, t, ++seed, pc.a)
                            : random_matrix(pc.m, pc.k, pc.density, t, ++seed, pc.a);
        const Matrix B = random_matrix(pc.k, pc.n, pc.density, t, ++seed, pc.b);
        const Matrix C0(pc.m, pc.n, t);
        const Descriptor d = hash_desc(MaskMode::none, false, ta, false);
        RefMatrix ref = to_ref(C0);
        oracle::mxm(ref, nullptr, no_accum, s, A, B, d);
        Matrix got;
        check_case(pc.name + " " + s.name() + (ta ? " tA" : ""), ref, got,
                   [&] { got = gpu_mxm(C0, nullptr, no_accum, s, A, B, d, ctx); }, failures);
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST_F(SpgemmHash, TransposesMixedTypesAndIndexWidthsMatchOracle) {
  Context ctx(Backend::cuda);
  int failures = 0;
  std::uint64_t seed = 1700;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (IndexType it : {IndexType::i32, IndexType::i64}) {
        const Matrix A = ta ? random_matrix(13, 21, 0.3, Type::fp32, ++seed, Pattern::random,
                                            ValueKind::integral, it)
                            : random_matrix(21, 13, 0.3, Type::fp32, ++seed, Pattern::random,
                                            ValueKind::integral, it);
        const Matrix B = tb ? random_matrix(11, 13, 0.3, Type::int32, ++seed)
                            : random_matrix(13, 11, 0.3, Type::int32, ++seed);
        const Matrix C0 = random_matrix(21, 11, 0.3, Type::int64, ++seed);
        const Matrix M = random_mask(21, 11, 0.5, Type::fp64, ++seed);
        for (const char* name : {"plus_times", "min_plus", "any_secondi", "max_times"}) {
          const Semiring s = semiring(name, std::string(name) == "any_secondi" ? Type::int32
                                                                                : Type::fp64);
          const Descriptor d = hash_desc(MaskMode::value, false, ta, tb);
          RefMatrix ref = to_ref(C0);
          oracle::mxm(ref, &M, BinaryOpCode::plus, s, A, B, d);
          Matrix got;
          check_case(s.name() + describe(MaskMode::value, BinaryOpCode::plus, d), ref, got,
                     [&] { got = gpu_mxm(C0, &M, BinaryOpCode::plus, s, A, B, d, ctx); },
                     failures);
        }
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

/// A (m x K) whose row i has degrees[i] distinct entries `stride` columns apart, B (K x n) with
/// `per_row` entries per row; with per_row = 1 and stride 7 every product lands in a different
/// column (products = nnz) spread over a wide span (hash tables); with stride 1 a row's columns
/// span about its degree (direct tables) and per_row > 1 products collide.
void bin_matrices(const std::vector<Index>& degrees, Index per_row, Matrix& A, Matrix& B,
                  std::uint64_t seed, Index stride = 7) {
  const Index K = 50000, n = 50000;
  Rng rng(seed);
  std::vector<Index> ar, ac, br, bc;
  std::vector<double> av, bv;
  for (Index i = 0; i < Index(degrees.size()); ++i) {
    const Index start = rng.between(0, K - 1);
    for (Index e = 0; e < degrees[std::size_t(i)]; ++e) {
      ar.push_back(i);
      ac.push_back((start + e * stride) % K);
      av.push_back(double(rng.between(1, 4)));
    }
  }
  for (Index k = 0; k < K; ++k)
    for (Index t = 0; t < per_row; ++t) {
      br.push_back(k);
      bc.push_back(per_row == 1 && stride != 1 ? (k * 7) % n : (k + t) % n);
      bv.push_back(double(rng.between(1, 4)));
    }
  A = Matrix::from_triplets(Index(degrees.size()), K, ar, ac, av);
  B = Matrix::from_triplets(K, n, br, bc, bv);
}

const std::vector<Index>& boundary_degrees() {
  static const std::vector<Index> d = {0,    1,    31,   32,    33,    511,   512,   513,
                                       1023, 1024, 1025, 2047,  2048,  2049,  4095,  4096,
                                       4097, 8191, 8192, 8193,  12288, 12289, 16384, 16385,
                                       20000, 32768, 32769, 40000, 3,   0,     700,
                                       48,    63,    64,    65,    127,   128,   129};
  return d;
}

TEST_F(SpgemmHash, RowsInEveryBinAndOverEachBoundaryMatchCpu) {
  for (auto [per_row, stride] : {std::pair<Index, Index>{1, 7}, {3, 7}, {1, 1}, {5, 1}}) {
    Matrix A, B;
    bin_matrices(boundary_degrees(), per_row, A, B, 77 + std::uint64_t(per_row), stride);
    const Matrix C0(A.nrows(), B.ncols(), Type::fp64);
    const std::string tag =
        "per_row=" + std::to_string(per_row) + " stride=" + std::to_string(stride);
    verify_mxm(tag + " plus_times", nullptr, no_accum, semiring("plus_times", Type::fp64), A, B,
               hash_desc(), C0);
    verify_mxm(tag + " min_plus fp32", nullptr, no_accum, semiring("min_plus", Type::fp32), A,
               B, hash_desc(), Matrix(A.nrows(), B.ncols(), Type::fp32));
    verify_mxm(tag + " plus_pair int64", nullptr, no_accum, semiring("plus_pair", Type::int64),
               A, B, hash_desc(), Matrix(A.nrows(), B.ncols(), Type::int64));
    verify_mxm(tag + " any_secondi", nullptr, no_accum, semiring("any_secondi", Type::int64), A,
               B, hash_desc(), Matrix(A.nrows(), B.ncols(), Type::int64));
    const Matrix M = random_mask(A.nrows(), B.ncols(), 0.3, Type::boolean, 5);
    verify_mxm(tag + " masked", &M, no_accum, semiring("plus_times", Type::fp64), A, B,
               hash_desc(MaskMode::structure), C0);
    verify_mxm(tag + " complemented", &M, BinaryOpCode::plus, semiring("max_times", Type::fp64),
               A, B, hash_desc(MaskMode::complement_value, true), C0);
  }
}

/// A with at most one entry per row: a diagonal with some rows empty (row scaling, MCL's
/// broadcasts) or one entry at a random column (a gather); `extra_row` >= 0 gives that row a
/// second entry, which sends the product down the general pipeline.
Matrix single_term_matrix(Index m, Index n, bool diagonal, Index extra_row, std::uint64_t seed) {
  std::vector<Index> rows, cols;
  std::vector<double> vals;
  std::uint64_t x = seed;
  auto next = [&] { return x = x * 6364136223846793005ULL + 1442695040888963407ULL, x >> 33; };
  for (Index i = 0; i < m; ++i) {
    if (next() % 5 == 0) continue;  // an empty row
    rows.push_back(i);
    cols.push_back(diagonal ? i % n : Index(next() % std::uint64_t(n)));
    vals.push_back(double(next() % 7) - 2.0);  // zeros and negatives among the values
    if (i == extra_row) {
      rows.push_back(i);
      cols.push_back((cols.back() + 1) % n);
      vals.push_back(3.0);
    }
  }
  return Matrix::from_triplets(m, n, rows, cols, vals);
}

/// The single-term path (every row of A at most one entry) against the cpu, and that it ran:
/// several semirings (positional and value-ignoring multiplies included), empty rows in A and B,
/// a long row in B, an empty A; masked products and an A with one row of two entries take the
/// general pipeline and must agree as well.
TEST_F(SpgemmHash, SingleTermRowsGatherTheRowsOfB) {
  const Index m = 700, k = 500, n = 900;
  const Matrix B = random_matrix(k, n, 0.02, Type::fp64, 71, Pattern::dense_row);
  const std::vector<std::string> names = {"plus_times", "plus_first", "min_plus", "any_secondi",
                                          "plus_pair"};
  for (int variant = 0; variant < 4; ++variant) {
    const bool diagonal = variant % 2 == 0, two_entries = variant >= 2;
    const Matrix A = single_term_matrix(diagonal ? k : m, k, diagonal, two_entries ? 5 : -1,
                                        100 + std::uint64_t(variant));
    for (const std::string& name : names) {
      const Type t = name == "any_secondi" ? Type::int64 : Type::fp64;
      const std::string what = name + (diagonal ? " diagonal" : " gather") +
                               (two_entries ? " (a row of two: general path)" : "");
      std::ostringstream trace;
      Context ctx(Backend::verify);
      ctx.trace = true;
      ctx.trace_out = &trace;
      Matrix C(A.nrows(), n, t);
      try {
        mxm(C, nullptr, no_accum, semiring(name, t), A, B, hash_desc(), ctx);
      } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": " << e.what();
      }
      EXPECT_EQ(trace.str().find("single-term rows") != std::string::npos, !two_entries)
          << what << "\n" << trace.str();
    }
  }
  // A mask goes through the general pipeline; an A without entries gives an empty C.
  const Matrix D = single_term_matrix(k, k, true, -1, 9);
  const Matrix M = random_mask(k, n, 0.3, Type::boolean, 10);
  verify_mxm("diagonal masked", &M, BinaryOpCode::plus, semiring("plus_times", Type::fp64), D, B,
             hash_desc(MaskMode::value), random_matrix(k, n, 0.05, Type::fp64, 11));
  const Matrix empty = Matrix::from_triplets<double>(k, k, {}, {}, {});
  verify_mxm("empty A", nullptr, no_accum, semiring("plus_times", Type::fp64), empty, B,
             hash_desc(), Matrix(k, n, Type::fp64));
}

void SpgemmHash::expect_exact_over_poisoned_pool(Index per_row, std::uint64_t seed) {
  Context ctx(Backend::cuda);
  Matrix A, B;
  bin_matrices(boundary_degrees(), per_row, A, B, seed);
  Context cpu(Backend::cpu);
  const Semiring s = semiring("plus_times", Type::fp64);
  Matrix want(A.nrows(), B.ncols(), Type::fp64);
  mxm(want, nullptr, no_accum, s, A, B, {}, cpu);
  poison_device_pool(std::size_t(256) << 20, ctx);
  const Matrix got = gpu_mxm(Matrix(A.nrows(), B.ncols(), Type::fp64), nullptr, no_accum, s, A, B,
                             hash_desc(), ctx);
  EXPECT_EQ(got.row_ptr_vector(), want.row_ptr_vector());
  EXPECT_EQ(got.col_idx_vector(), want.col_idx_vector());
  EXPECT_EQ(got.values_vector<double>(), want.values_vector<double>());
}

TEST_F(SpgemmHash, PoisonedPoolDoesNotLeakIntoTheResult) { expect_exact_over_poisoned_pool(3, 31); }

/// R-MAT edges (a = 0.57, b = c = 0.19), duplicates combined: power-law rows.
Matrix rmat(int scale, Index edges_per_vertex, std::uint64_t seed) {
  const Index n = Index(1) << scale;
  Rng rng(seed);
  std::vector<Index> r, c;
  std::vector<double> v;
  for (Index e = 0; e < edges_per_vertex * n; ++e) {
    Index i = 0, j = 0;
    for (int bit = 0; bit < scale; ++bit) {
      const double u = rng.uniform();
      const int q = u < 0.57 ? 0 : u < 0.76 ? 1 : u < 0.95 ? 2 : 3;
      i = 2 * i + (q >> 1);
      j = 2 * j + (q & 1);
    }
    r.push_back(i);
    c.push_back(j);
    v.push_back(rng.uniform() + 0.001);
  }
  return Matrix::from_triplets(n, n, r, c, v, Dup::first, IndexType::i32);
}

TEST_F(SpgemmHash, PowerLawRowsMatchCpu) {
  const Matrix A = rmat(13, 16, 4242);
  const Matrix C0(A.nrows(), A.ncols(), Type::fp64);
  verify_mxm("rmat13 plus_times", nullptr, no_accum, semiring("plus_times", Type::fp64), A, A,
             hash_desc(), C0);
  verify_mxm("rmat13 min_plus", nullptr, no_accum, semiring("min_plus", Type::fp64), A, A,
             hash_desc(), C0);
  verify_mxm("rmat13 plus_pair tB", nullptr, no_accum, semiring("plus_pair", Type::fp64), A, A,
             hash_desc(MaskMode::none, false, false, true), C0);
  verify_mxm("rmat13 masked accum", &A, BinaryOpCode::plus, semiring("plus_times", Type::fp64),
             A, A, hash_desc(MaskMode::structure, true), A);
}

#if defined(RINGBLAS_HAS_CUDA)
/// Sets spgemm_hash's tuning for one scope and restores the previous one.
struct TuningScope {
  cuda::spgemm_hash::tuning saved = cuda::spgemm_hash::current_tuning();
  explicit TuningScope(const cuda::spgemm_hash::tuning& t) { cuda::spgemm_hash::set_tuning(t); }
  ~TuningScope() { cuda::spgemm_hash::set_tuning(saved); }
};

/// C = A B against the cpu: plus_times fp64, plus_pair int64, plus_times under a structural mask
/// and max_times with accumulate and replace under a complemented valued mask (a random mask of
/// density 0.3 from `mask_seed`).
void verify_products_and_masks(const std::string& tag, const Matrix& A, const Matrix& B,
                               std::uint64_t mask_seed) {
  const Matrix C0(A.nrows(), B.ncols(), Type::fp64);
  verify_mxm(tag + " plus_times", nullptr, no_accum, semiring("plus_times", Type::fp64), A, B,
             hash_desc(), C0);
  verify_mxm(tag + " plus_pair int64", nullptr, no_accum, semiring("plus_pair", Type::int64), A, B,
             hash_desc(), Matrix(A.nrows(), B.ncols(), Type::int64));
  const Matrix M = random_mask(A.nrows(), B.ncols(), 0.3, Type::boolean, mask_seed);
  verify_mxm(tag + " masked", &M, no_accum, semiring("plus_times", Type::fp64), A, B,
             hash_desc(MaskMode::structure), C0);
  verify_mxm(tag + " complemented", &M, BinaryOpCode::plus, semiring("max_times", Type::fp64), A, B,
             hash_desc(MaskMode::complement_value, true), C0);
}

/// The issue-14 paths (bitmap symbolic rows, windowed dense numeric rows, bins on side streams,
/// the wide pwarp bins for rows of 33-128 products, the lean host path; session 8: bucket rank
/// sort of hash rows, wide pwarp bins only without block rows, the one-block scan +
/// classification), each alone, all together, forced
/// onto every eligible row (min nnz 1, up to 64 windows), and all off, against the cpu backend:
/// rows in every bin over a 50,000-column span (stride 7: hash rows, 1-4 windows of 16384 columns;
/// stride 1: direct rows), empty rows, one dense row, power-law rows, masks and a complemented
/// valued mask with accumulate and replace.
TEST_F(SpgemmHash, Issue14PathsAloneAndTogetherMatchCpu) {
  using cuda::spgemm_hash::tuning;
  tuning forced = tuning::defaults();
  forced.dense_windows = 64;
  forced.dense_min_nnz = 1;
  tuning bitmap = tuning::previous(), windows = tuning::previous(), streams = tuning::previous();
  bitmap.bitmap_symbolic = true;
  windows.dense_windows = forced.dense_windows;
  windows.dense_min_nnz = forced.dense_min_nnz;
  streams.concurrent_bins = true;
  tuning wide = tuning::previous(), lean = tuning::previous(), every_stream = tuning::defaults();
  wide.wide_pwarp = 128;  // both wide partial-warp bins (off in the defaults)
  lean.lean_host = true;
  every_stream.concurrent_min_kernels = 0;
  tuning defaults_wide = tuning::defaults();
  defaults_wide.wide_pwarp = 128;
  defaults_wide.wide_pwarp_alone = false;  // the wide bins beside block rows too
  // Session 9's defaults (no wide bins, no bucket rank): the paths every matrix took before
  // session 10 flipped new-both-r3 on.
  tuning session9 = tuning::defaults();
  session9.wide_pwarp = 0;
  session9.wide_pwarp_alone = false;
  session9.bucket_sort_min = 0;
  session9.bucket_max_ratio = 0;
  session9.sync_free_rows = session9.fused_scan_rows = 0;
  session9.one_workspace = false;
  // Session 10's first defaults: new-both-r3 with the synced symbolic phase (sync 1 kept).
  tuning synced = tuning::defaults();
  synced.sync_free_rows = synced.fused_scan_rows = 0;
  synced.one_workspace = false;
  tuning bucket = tuning::defaults(), bucket512 = tuning::defaults();
  bucket.bucket_sort_min = 1;  // every hash row of bins 0-4
  bucket512.bucket_sort_min = 512;
  tuning crowded = bucket, unlimited = bucket;
  crowded.bucket_limit = 1;  // most rows give up and take the bitonic sort
  unlimited.bucket_limit = 1 << 30;
  unlimited.bucket_entries = 4;
  tuning alone64 = tuning::defaults(), alone128 = tuning::defaults();
  alone64.wide_pwarp = 64;
  alone64.wide_pwarp_alone = alone128.wide_pwarp_alone = true;
  alone128.wide_pwarp = 128;
  tuning both = alone128;
  both.bucket_sort_min = 1;
  // Session 9: bucket rank only for rows of few products per output (rmat13's rows mix ratios,
  // so bins take the bucket kernel with rows that sort in it as without buckets, or not at all).
  tuning ratio12 = bucket, ratio2 = bucket, both_ratio3 = both;
  ratio12.bucket_max_ratio = 1.2;
  ratio2.bucket_max_ratio = 2;
  both_ratio3.bucket_max_ratio = 3;
  // Session 9: partial-warp rows spread B rows over lanes, alone, with the wide bins, with
  // them only without block rows.
  tuning split = tuning::defaults(), wide_split = defaults_wide, alone_split = alone128;
  split.pwarp_split = wide_split.pwarp_split = alone_split.pwarp_split = 1;
  tuning flat = split, wide_flat = wide_split;
  flat.pwarp_split = wide_flat.pwarp_split = 2;
  tuning fused = tuning::defaults(), fused_all = both;
  fused.fused_scan_rows = fused_all.fused_scan_rows = 1 << 20;  // rmat13: two tiles of rows
  // Session 10: every call sync-free (rows past k_symbolic_small's bins: the symbolic phase again
  // with the sync), the plan's arrays in one allocation, with and without the lean host path.
  tuning lean10 = fused, one_slow = tuning::previous();
  lean10.sync_free_rows = 1 << 20;
  lean10.one_workspace = one_slow.one_workspace = true;
  const std::pair<const char*, tuning> cases[] = {{"defaults", tuning::defaults()},
                                                  {"session9", session9},
                                                  {"synced", synced},
                                                  {"previous", tuning::previous()},
                                                  {"session4", tuning::session4()},
                                                  {"forced", forced},
                                                  {"bitmap", bitmap},
                                                  {"windows", windows},
                                                  {"streams", streams},
                                                  {"wide pwarp", wide},
                                                  {"defaults + wide pwarp", defaults_wide},
                                                  {"lean host", lean},
                                                  {"streams from one kernel", every_stream},
                                                  {"bucket rank", bucket},
                                                  {"bucket rank from 512", bucket512},
                                                  {"bucket rank, limit 1", crowded},
                                                  {"bucket rank, no limit, nnz/4", unlimited},
                                                  {"wide alone 64", alone64},
                                                  {"wide alone 128", alone128},
                                                  {"bucket + wide alone", both},
                                                  {"bucket rank, ratio 1.2", ratio12},
                                                  {"bucket rank, ratio 2", ratio2},
                                                  {"bucket ratio 3 + wide alone", both_ratio3},
                                                  {"pwarp split", split},
                                                  {"wide pwarp + split", wide_split},
                                                  {"wide alone 128 + split", alone_split},
                                                  {"pwarp flat", flat},
                                                  {"wide pwarp + flat", wide_flat},
                                                  {"fused scan", fused},
                                                  {"fused scan + bucket + wide alone", fused_all},
                                                  {"sync-free + one workspace + fused", lean10},
                                                  {"one workspace, previous", one_slow}};
  const Matrix P = rmat(13, 16, 4243);
  for (const auto& [name, t] : cases) {
    TuningScope scope(t);
    for (auto [per_row, stride] : {std::pair<Index, Index>{1, 7}, {3, 7}, {2, 1}}) {
      Matrix A, B;
      bin_matrices(boundary_degrees(), per_row, A, B, 91 + std::uint64_t(per_row), stride);
      const std::string tag = std::string(name) + " per_row=" + std::to_string(per_row) +
                              " stride=" + std::to_string(stride);
      verify_mxm(tag + " min_plus fp32", nullptr, no_accum, semiring("min_plus", Type::fp32), A,
                 B, hash_desc(), Matrix(A.nrows(), B.ncols(), Type::fp32));
      verify_products_and_masks(tag, A, B, 6);
    }
    const Matrix C0(P.nrows(), P.ncols(), Type::fp64);
    verify_mxm(std::string(name) + " rmat13 plus_times", nullptr, no_accum,
               semiring("plus_times", Type::fp64), P, P, hash_desc(), C0);
    verify_mxm(std::string(name) + " rmat13 masked accum", &P, BinaryOpCode::plus,
               semiring("plus_times", Type::fp64), P, P, hash_desc(MaskMode::structure, true), P);
  }
}

/// Rows spanning more than 8 windows of 16384 columns (300,000 columns) with more outputs than a
/// shared table holds still take the numeric global path under the defaults, while their
/// symbolic pass counts in the last bin's bitmap (span <= 1M columns); a row spanning 2M
/// columns takes the symbolic global path too.
TEST_F(SpgemmHash, Issue14WideRowsKeepTheGlobalPath) {
  TuningScope scope(cuda::spgemm_hash::tuning::defaults());
  for (const Index n : {Index(300000), Index(2000000)}) {
    const Index K = 20000;
    std::vector<Index> ar, ac, br, bc;
    std::vector<double> av, bv;
    for (Index i = 0; i < 3; ++i)
      for (Index k = i; k < K; k += 1 + i) {
        ar.push_back(i);
        ac.push_back(k);
        av.push_back(double(1 + (k % 3)));
      }
    for (Index k = 0; k < K; ++k) {
      br.push_back(k);
      bc.push_back((k * 97) % n);
      bv.push_back(double(1 + (k % 4)));
      br.push_back(k);
      bc.push_back((k * 97 + 1) % n);
      bv.push_back(1.0);
    }
    const Matrix A = Matrix::from_triplets(3, K, ar, ac, av);
    const Matrix B = Matrix::from_triplets(K, n, br, bc, bv);
    verify_mxm("wide rows n=" + std::to_string(n), nullptr, no_accum,
               semiring("plus_times", Type::fp64), A, B, hash_desc(),
               Matrix(3, n, Type::fp64));
    const Matrix M = random_mask(3, n, 0.2, Type::boolean, 8);
    verify_mxm("wide rows masked n=" + std::to_string(n), &M, no_accum,
               semiring("min_plus", Type::fp64), A, B, hash_desc(MaskMode::structure),
               Matrix(3, n, Type::fp64));
  }
}

/// The windowed path on a result that is poisoned before the kernels run: every entry written.
TEST_F(SpgemmHash, Issue14WindowedRowsOverPoisonedPool) {
  using cuda::spgemm_hash::tuning;
  tuning forced = tuning::defaults();
  forced.dense_windows = 64;
  forced.dense_min_nnz = 1;
  TuningScope scope(forced);
  expect_exact_over_poisoned_pool(2, 32);
}

/// Bucket rank sort (tuning::bucket_sort_min) on a poisoned result: every entry written; with
/// tuning::bucket_max_ratio 2 too (per_row 3: rows of ratio ~1 and ~3 by stride).
TEST_F(SpgemmHash, BucketRankRowsOverPoisonedPool) {
  cuda::spgemm_hash::tuning t = cuda::spgemm_hash::tuning::defaults();
  t.bucket_sort_min = 1;
  for (const double ratio : {0.0, 2.0}) {
    t.bucket_max_ratio = ratio;
    TuningScope scope(t);
    expect_exact_over_poisoned_pool(1, 33);
    expect_exact_over_poisoned_pool(3, 34);
  }
}

/// Rows whose columns crowd a few buckets of their span: A's row i reaches B rows 0 .. d_i - 1,
/// B(k, k) puts them in columns 0 .. d_i - 1, and B(0, n - 1) stretches every span to n, so a
/// hash table of bins 0-2 holds d_i columns in the first d_i / (n / buckets) buckets (far over
/// policy::bucket_limit: bucket_sort_table gives up and the row takes compaction and the bitonic
/// sort; with no limit it counts over the crowded buckets), next to rows of random columns over
/// the same span (the bucket path); rows of bins 3-4 (512 and 1024 threads) hold the span's
/// bitmap (1875 words x 2) in their table and take the bitmap rank, crowded or not. With and
/// without a mask.
TEST_F(SpgemmHash, BucketRankFallsBackOnCrowdedBuckets) {
  cuda::spgemm_hash::tuning t = cuda::spgemm_hash::tuning::defaults();
  t.bucket_sort_min = 1;
  cuda::spgemm_hash::tuning unlimited = t;  // the crowded buckets ranked by counting after all
  unlimited.bucket_limit = 1 << 30;
  const Index n = 60000, K = 60000;
  const std::vector<Index> degrees = {40, 300, 700, 1500, 3000, 6000, 0, 2};
  Rng rng(55);
  std::vector<Index> ar, ac, br, bc;
  std::vector<double> av, bv;
  Index row = 0;
  for (const Index d : degrees) {
    for (Index k = 0; k < d; ++k) {  // the crowded row
      ar.push_back(row);
      ac.push_back(k);
      av.push_back(double(rng.between(1, 4)));
    }
    ++row;
    // A row of the same size over B rows spread at random: distinct columns (r0 + 7919 e) mod K
    // (7919 is prime and does not divide K), so that A has no duplicate entry.
    const Index r0 = rng.between(0, K - 1);
    for (Index e = 0; e < d; ++e) {
      ar.push_back(row);
      ac.push_back((r0 + 7919 * e) % K);
      av.push_back(double(rng.between(1, 4)));
    }
    ++row;
  }
  for (Index k = 0; k < K; ++k) {
    br.push_back(k);
    bc.push_back(k < 8000 ? k : rng.between(0, n - 1));
    bv.push_back(double(rng.between(1, 4)));
  }
  br.push_back(0);
  bc.push_back(n - 1);
  bv.push_back(1.0);
  const Matrix A = Matrix::from_triplets(row, K, ar, ac, av);
  const Matrix B = Matrix::from_triplets(K, n, br, bc, bv);
  const Matrix C0(A.nrows(), n, Type::fp64);
  const Matrix M = random_mask(A.nrows(), n, 0.3, Type::boolean, 12);
  cuda::spgemm_hash::tuning ratio = t;  // session 9: only rows of <= 1.5 products per output
  ratio.bucket_max_ratio = 1.5;
  for (const auto& tu : {t, unlimited, ratio}) {
    TuningScope scope(tu);
    const std::string limit = " limit " + std::to_string(tu.bucket_limit) + " ratio " +
                              std::to_string(tu.bucket_max_ratio);
    verify_mxm("crowded plus_times" + limit, nullptr, no_accum, semiring("plus_times", Type::fp64),
               A, B, hash_desc(), C0);
    verify_mxm("crowded min_plus fp32" + limit, nullptr, no_accum, semiring("min_plus", Type::fp32),
               A, B, hash_desc(), Matrix(A.nrows(), n, Type::fp32));
    verify_mxm("crowded any_secondi" + limit, nullptr, no_accum,
               semiring("any_secondi", Type::int64), A, B, hash_desc(),
               Matrix(A.nrows(), n, Type::int64));
    verify_mxm("crowded masked" + limit, &M, no_accum, semiring("plus_times", Type::fp64), A, B,
               hash_desc(MaskMode::structure), C0);
  }
}

/// tuning::pwarp_split: rows of 1-5 A entries over B rows of 7-120 entries whose columns overlap
/// (several lanes share a B row and insert into the same slots), most of 7-128 products (the
/// pwarp and wide pwarp bins; rows of at most a group of entries walk flat under mode 2), some more
/// (block rows), against the cpu: lanes per entry and flat, alone, with the wide bins always, and
/// with them only without block rows; with and without a mask.
TEST_F(SpgemmHash, PwarpSplitRowsMatchCpu) {
  using cuda::spgemm_hash::tuning;
  const Index K = 64, n = 300, m = 200;
  Rng rng(77);
  std::vector<Index> ar, ac, br, bc;
  std::vector<double> av, bv;
  const Index lens[] = {7, 16, 30, 60, 120};
  for (Index k = 0; k < K; ++k) {
    const Index start = rng.between(0, n - 1);
    for (Index e = 0; e < lens[k % 5]; ++e) {  // distinct: 2 e < n
      br.push_back(k);
      bc.push_back((start + 2 * e) % n);
      bv.push_back(double(rng.between(1, 4)));
    }
  }
  for (Index i = 0; i < m; ++i) {
    const Index k0 = rng.between(0, K - 1);
    for (Index e = 0; e <= i % 5; ++e) {  // distinct: 5 e < K
      ar.push_back(i);
      ac.push_back((k0 + 5 * e) % K);
      av.push_back(double(rng.between(1, 4)));
    }
  }
  const Matrix A = Matrix::from_triplets(m, K, ar, ac, av);
  const Matrix B = Matrix::from_triplets(K, n, br, bc, bv);
  tuning split = tuning::defaults();
  split.pwarp_split = 1;
  tuning wide = split, alone = split;
  wide.wide_pwarp = alone.wide_pwarp = 128;
  wide.wide_pwarp_alone = false;
  alone.wide_pwarp_alone = true;
  split.wide_pwarp = 0;  // the narrow pwarp bins alone (the defaults have wide ones since s10)
  split.wide_pwarp_alone = false;
  tuning flat = split, wide_flat = wide, alone_flat = alone;
  flat.pwarp_split = wide_flat.pwarp_split = alone_flat.pwarp_split = 2;
  const Matrix M = random_mask(m, n, 0.3, Type::boolean, 14);
  const Matrix C0(m, n, Type::fp64);
  const std::pair<const char*, tuning> cases[] = {
      {"split", split}, {"split + wide 128", wide},     {"split + wide alone 128", alone},
      {"flat", flat},   {"flat + wide 128", wide_flat}, {"flat + wide alone 128", alone_flat}};
  for (const auto& [name, t] : cases) {
    TuningScope scope(t);
    const std::string tag = name;
    verify_mxm(tag + " plus_times", nullptr, no_accum, semiring("plus_times", Type::fp64), A, B,
               hash_desc(), C0);
    verify_mxm(tag + " min_plus fp32", nullptr, no_accum, semiring("min_plus", Type::fp32), A, B,
               hash_desc(), Matrix(m, n, Type::fp32));
    verify_mxm(tag + " plus_pair int64", nullptr, no_accum, semiring("plus_pair", Type::int64), A,
               B, hash_desc(), Matrix(m, n, Type::int64));
    verify_mxm(tag + " masked", &M, BinaryOpCode::plus, semiring("max_times", Type::fp64), A, B,
               hash_desc(MaskMode::structure, true), C0);
  }
}

/// The "<phase> rows per bin: ..." note of one cuda call (phase log on for the call).
std::string bin_notes(const Matrix& A, const Matrix& B) {
  namespace pl = cuda::spgemm_hash::phase_log;
  Context ctx(Backend::cuda);
  pl::enable(true);
  Matrix C(A.nrows(), B.ncols(), Type::fp64);
  mxm(C, nullptr, no_accum, semiring("plus_times", Type::fp64), A, B, hash_desc(), ctx);
  pl::take();
  std::string out;
  for (const auto& n : pl::take_notes()) out += n + "\n";
  pl::enable(false);
  return out;
}

/// The rows a "<phase> rows per bin: ..." note puts in the block bins and the global bin.
long block_rows_of_note(const std::string& notes, const std::string& phase) {
  const std::string head = phase + " rows per bin: ";
  const std::size_t at = notes.find(head);
  if (at == std::string::npos) return -1;
  const std::size_t blocks = notes.find("blocks", at);
  std::istringstream in(notes.substr(blocks + 6, notes.find('\n', blocks) - blocks - 6));
  long sum = 0, x = 0;
  std::string word;
  while (in >> word)
    if (std::istringstream(word) >> x) sum += x;
  return sum;
}

/// tuning::wide_pwarp_alone: the wide pwarp bins take rows of 33-128 products when no row needs
/// a block (rows of 0-128 products), and none when one does (rows of 200, 300 and 513 products
/// join them): the wide rows then go through the block bins in both phases (symbolic: block bin
/// 0's launch reads the wide bins' lists behind its own rows). Both against the cpu, with a mask.
TEST_F(SpgemmHash, WidePwarpBinsOnlyWithoutBlockRows) {
  cuda::spgemm_hash::tuning t = cuda::spgemm_hash::tuning::defaults();
  t.wide_pwarp = 128;
  t.wide_pwarp_alone = true;
  t.sync_free_rows = 0;  // the synced symbolic phase's note (SyncFreeSmallCallsMatchCpu: the other)
  TuningScope scope(t);
  const std::vector<Index> small = {0, 1, 31, 32, 33, 48, 63, 64, 65, 100, 127, 128, 3, 0, 90};
  std::vector<Index> mixed = small;
  for (const Index d : {200, 513, 300}) mixed.push_back(d);
  for (const bool blocks : {false, true}) {
    for (const Index stride : {Index(7), Index(1)}) {
      Matrix A, B;
      bin_matrices(blocks ? mixed : small, 1, A, B, 40 + std::uint64_t(stride), stride);
      const std::string tag = std::string(blocks ? "with" : "without") + " block rows, stride " +
                              std::to_string(stride);
      // Products = outputs = degree: pwarp 1, 3, 31, 32; pwarp2 33-64; pwarp3 65-128.
      const std::string bins = blocks ? "pwarp 4, pwarp2 0, pwarp3 0, blocks "
                                      : "pwarp 4, pwarp2 4, pwarp3 5, blocks 0 0 0 0 0 0, global 0";
      const std::string notes = bin_notes(A, B);
      for (const char* phase : {"symbolic", "numeric"}) {
        EXPECT_NE(notes.find(std::string(phase) + " rows per bin: " + bins), std::string::npos)
            << tag << ": " << phase << " bins should read " << bins << "\n"
            << notes;
        // 9 rows of 33-128 products, and the 3 larger ones with block rows.
        EXPECT_EQ(block_rows_of_note(notes, phase), blocks ? 12 : 0) << tag << "\n" << notes;
      }
      const Matrix C0(A.nrows(), B.ncols(), Type::fp64);
      verify_mxm(tag, nullptr, no_accum, semiring("plus_times", Type::fp64), A, B, hash_desc(), C0);
      const Matrix M = random_mask(A.nrows(), B.ncols(), 0.3, Type::boolean, 13);
      verify_mxm(tag + " masked", &M, BinaryOpCode::plus, semiring("max_times", Type::fp64), A, B,
                 hash_desc(MaskMode::structure, true), C0);
    }
  }
}

/// Session 10 (spgemm_notes.md, "Round 8"): tuning::sync_free_rows (the symbolic phase of calls
/// of up to that many rows without the host reading the analysis' counters: k_symbolic_small),
/// sync_free_bins 3 (rows of block bins 3-4 take the synced symbolic phase too), one_workspace
/// (the plan's arrays in one allocation) and sync-free + one workspace with the fused scan, on top
/// of the defaults (wide bins only without block rows), of session 9's (no wide bins) and of the
/// wide bins beside block rows, against the cpu: rows in the partial-warp bins only (a mesh),
/// in every bin k_symbolic_small takes (block bins 0-4), and past them (the last block bin: the
/// symbolic phase again with the sync), with empty rows, masks and a complemented valued mask with
/// accumulate; calls of n rows at the threshold (sync-free) and of n = threshold + 1 (synced),
/// which path ran read from the phase log. Modes nosync2 / lean11 / nosync2g1 (nosync1b3 /
/// lean10 with tuning::sync_free_big_grid 32 / 32 / 1): block bins 3-4 in grid-stride kernels
/// after k_symbolic_small, no rerun for them: rows in bins 3 and 4 (`blocks`, read from the
/// note), block rows with bins 3-4 empty (`low`: rows of at most 512 products stay in bins 0-2),
/// and with nosync2g1 more rows in bins 3 and 4 than the grid has blocks (`many`: 200 each, a
/// grid of one block per SM), so that a block takes several rows.
TEST_F(SpgemmHash, SyncFreeSmallCallsMatchCpu) {
  using cuda::spgemm_hash::tuning;
  std::vector<Index> mesh = {0, 1, 31, 32, 33, 48, 63, 64, 65, 100, 127, 128, 3, 0, 90};
  std::vector<Index> blocks = mesh, past, low = mesh, many = mesh;
  for (const Index d : {129, 200, 511, 512, 513, 1023, 1025, 2047, 2049, 4095, 4097, 8191, 8192})
    blocks.push_back(d);
  past = blocks;
  for (const Index d : {8193, 16385, 40000}) past.push_back(d);
  for (const Index d : {129, 200, 511, 512}) low.push_back(d);
  for (int i = 0; i < 200; ++i)
    for (const Index d : {Index(2100), Index(4200), Index(700)}) many.push_back(d);
  // Rows of block bins 3 and 4 in the note of the phase that ran (other notes name the symbolic
  // phase's launches, so the rows-per-bin note is looked up by its head).
  auto bins34 = [](const std::string& notes) {
    std::size_t at = notes.find("symbolic (sync-free) rows per bin");
    if (at == std::string::npos) at = notes.find("symbolic rows per bin");
    const std::size_t blocks_at = notes.find("blocks", at);
    std::istringstream in(notes.substr(blocks_at + 6));
    long c[6] = {};
    for (long& x : c) in >> x;
    return std::pair<long, long>{c[3], c[4]};
  };
  tuning session9 = tuning::defaults(), beside = tuning::defaults();
  session9.wide_pwarp = 0;
  session9.wide_pwarp_alone = false;
  beside.wide_pwarp = 128;
  beside.wide_pwarp_alone = false;
  const std::pair<const char*, tuning> bases[] = {
      {"defaults", tuning::defaults()}, {"session9", session9}, {"wide beside blocks", beside}};
  for (const auto& [base_name, base] : bases)
    for (const std::string mode :
         {"nosync1", "nosync1b3", "onealloc", "lean10", "nosync2", "lean11", "nosync2g1"})
      for (const std::vector<Index>* rows : {&mesh, &blocks, &past, &low, &many})
        for (const Index stride : {Index(7), Index(1)})
          for (const Index above : {Index(0), Index(1)}) {
            const bool sync_free = mode != "onealloc";
            const bool big = mode == "nosync2" || mode == "lean11" || mode == "nosync2g1";
            const bool lean = mode == "lean10" || mode == "lean11";
            if (above && !sync_free) continue;
            if (rows == &low && !big) continue;
            if (rows == &many &&
                (mode != "nosync2g1" || above || base_name != std::string("defaults")))
              continue;
            Matrix A, B;
            bin_matrices(*rows, 1, A, B, 60 + std::uint64_t(stride + rows->size()), stride);
            tuning t = base;
            // Each mode on the synced form of its base (the defaults are new-lean10 since s10).
            t.sync_free_rows = t.fused_scan_rows = 0;
            t.one_workspace = false;
            if (sync_free) t.sync_free_rows = int(A.nrows() - above);
            const bool b3 = mode == "nosync1b3";
            if (b3 || big) t.sync_free_bins = 3;
            if (big) t.sync_free_big_grid = mode == "nosync2g1" ? 1 : 32;
            t.one_workspace = mode == "onealloc" || lean;
            if (lean) t.fused_scan_rows = 4096;
            TuningScope scope(t);
            const std::string tag = std::string(base_name) + " " + mode + ", " +
                                    std::to_string(A.nrows()) + " rows, threshold " +
                                    std::to_string(t.sync_free_rows) + ", stride " +
                                    std::to_string(stride);
            const std::string notes = bin_notes(A, B);
            // blocks: rows of up to 8192 products (block bins 0-4); past: the last block bin.
            const bool expect_free = sync_free && !above && rows != &past && (!b3 || rows == &mesh);
            EXPECT_EQ(notes.find("symbolic (sync-free) rows per bin") != std::string::npos,
                      expect_free)
                << tag << "\n"
                << notes;
            if (rows == &low) EXPECT_EQ(bins34(notes), (std::pair<long, long>{0, 0})) << tag;
            if (rows == &blocks || rows == &many) {
              const auto [b3rows, b4rows] = bins34(notes);
              EXPECT_GT(b3rows, rows == &many ? 100 : 0) << tag << "\n" << notes;
              EXPECT_GT(b4rows, rows == &many ? 100 : 0) << tag << "\n" << notes;
            }
            EXPECT_EQ(notes.find("symbolic rows per bin") != std::string::npos, !expect_free)
                << tag << "\n"
                << notes;
            verify_products_and_masks(tag, A, B, 17);
          }
}

/// Session 11 (spgemm_notes.md, "Round 9"): tuning::pwarp_threads (partial-warp blocks of 64 or
/// 128 threads, and 0: by the grid), pwarp_spread (the pwarp bin in the wide bins' 8- or 16-thread
/// shape, pwarp_spread_group, up to that many rows per SM) and sync_free_threads 512
/// (k_symbolic_small in 512-thread blocks), alone and together (new-lean12, new-lean12g16), on the
/// sync-free and the synced symbolic phase, against the cpu: partial-warp rows of 0-32 products
/// over B rows of 1 entry and of 4 (the spread's lanes share B rows), rows in every block bin
/// k_symbolic_small takes and past it (the rerun with the sync), empty rows, masks and a
/// complemented valued mask with accumulate; then pwarp bins of as many rows as the grid rule's
/// steps (2 blocks per SM of 256 / 128 threads) and one more, and of pwarp_spread's rows and one
/// more. The phase log says which shapes ran: k_symbolic_small's block, and each pwarp-bin
/// launch's threads per row and block (the rule recomputed here from its rows and the SM count).
TEST_F(SpgemmHash, PwarpBlocksSpreadAndWideSyncFreeMatchCpu) {
  using cuda::spgemm_hash::tuning;
  const std::vector<Index> mesh = {0, 1, 31, 32, 33, 48, 63, 64, 65, 100, 127, 128, 3, 0, 90};
  std::vector<Index> blocks = mesh, past;
  for (const Index d : {129, 200, 511, 512, 513, 1023, 1025, 2047, 2049, 4095, 4097, 8191, 8192})
    blocks.push_back(d);
  past = blocks;
  for (const Index d : {8193, 16385}) past.push_back(d);
  std::vector<Index> short_rows;  // x 4 products each (B rows of 4): the pwarp bin and a few more
  for (int i = 0; i < 40; ++i) short_rows.push_back(Index(i % 9));
  for (const Index d : {20, 130, 600}) short_rows.push_back(d);
  auto with = [](int threads, int spread, int sf_threads, int group = 8) {
    tuning t = tuning::defaults();
    t.pwarp_threads = threads;
    t.pwarp_spread = spread;
    t.pwarp_spread_group = group;
    t.sync_free_threads = sf_threads;
    return t;
  };
  const std::pair<const char*, tuning> modes[] = {
      {"pw64", with(64, 0, 256)},
      {"pw128", with(128, 0, 256)},
      {"pw by grid", with(0, 0, 256)},
      {"pwg8 always", with(256, 1 << 20, 256)},
      {"pwg16 always at 64 threads", with(64, 1 << 20, 256, 16)},
      {"bins34", with(256, 0, 512)},
      {"lean12", with(0, 128, 512)},
      {"lean12g16", with(0, 128, 512, 16)}};
  const std::pair<const std::vector<Index>*, Index> sets[] = {
      {&mesh, 1}, {&blocks, 1}, {&past, 1}, {&short_rows, 4}};
  const long sms = long(cuda::device_props(0).sm_count);
  // Checks every "<phase> pwarp launch: bin 1, <rows> rows, <g> threads per row, blocks of <b>"
  // line of `notes` against tuning t; returns how many there were.
  auto check_pwarp_launches = [&](const std::string& notes, const tuning& t,
                                  const std::string& tag) {
    std::istringstream in(notes);
    std::string line;
    int seen = 0;
    while (std::getline(in, line)) {
      const std::size_t at = line.find(" pwarp launch: bin 1, ");
      if (at == std::string::npos) continue;
      ++seen;
      long rows = 0, group = 0, threads = 0;
      std::string w;
      std::istringstream fields(line.substr(at + 22));
      fields >> rows >> w >> group >> w >> w >> w >> w >> w >> threads;
      const bool spread = t.pwarp_spread > 0 && rows <= long(t.pwarp_spread) * sms;
      EXPECT_EQ(group, spread ? long(t.pwarp_spread_group) : 4L) << tag << ": " << line;
      long expect = t.pwarp_threads;
      if (expect == 0) {
        expect = 256;
        while (expect > 64 && (rows + expect / group - 1) / (expect / group) < 2 * sms) expect /= 2;
      }
      EXPECT_EQ(threads, expect) << tag << ": " << line;
    }
    return seen;
  };
  for (const auto& [mode, base] : modes)
    for (const auto& [rows, per_row] : sets)
      for (const bool sync_free : {true, false}) {
        Matrix A, B;
        bin_matrices(*rows, per_row, A, B, 90 + std::uint64_t(rows->size()), 7);
        tuning t = base;
        t.sync_free_rows = sync_free ? int(A.nrows()) : 0;
        TuningScope scope(t);
        const std::string tag = std::string(mode) + (sync_free ? " sync-free, " : " synced, ") +
                                std::to_string(A.nrows()) + " rows x " + std::to_string(per_row);
        const std::string notes = bin_notes(A, B);
        EXPECT_EQ(notes.find("symbolic (sync-free) rows per bin") != std::string::npos,
                  sync_free && rows != &past)
            << tag << "\n"
            << notes;
        const std::size_t small = notes.find("k_symbolic_small: ");
        EXPECT_EQ(small != std::string::npos, sync_free) << tag << "\n" << notes;
        if (small != std::string::npos) {
          const std::string line = notes.substr(small, notes.find('\n', small) - small);
          EXPECT_NE(line.find("blocks of " + std::to_string(t.sync_free_threads)),
                    std::string::npos)
              << tag << ": " << line;
        }
        // Every set has pwarp rows: at least the numeric launch of the pwarp bin.
        EXPECT_GE(check_pwarp_launches(notes, t, tag), 1) << tag << "\n" << notes;
        // Masks and the other semirings on the default shape only: 64 calls of all four took
        // over 190 s on the H100 (session 11); each mode's launches differ in shape, not in how
        // a row is summed or masked.
        if (std::string(mode) == "lean12g16")
          verify_products_and_masks(tag, A, B, 19);
        else
          verify_mxm(tag + " plus_times", nullptr, no_accum, semiring("plus_times", Type::fp64), A,
                     B, hash_desc(), Matrix(A.nrows(), B.ncols(), Type::fp64));
      }
  // The grid rule's steps and the spread's threshold: pwarp bins of m rows of 3 products.
  const Index per_block = 256 / 4, want = 2 * Index(sms);  // rows per 256-thread block, blocks
  for (const Index m :
       {per_block / 2 * (want - 1), per_block / 2 * (want - 1) + 1, per_block * (want - 1),
        per_block * (want - 1) + 1, Index(sms), Index(sms) + 1}) {
    const std::vector<Index> rows(std::size_t(m), 3);
    Matrix A, B;
    bin_matrices(rows, 1, A, B, 7 + std::uint64_t(m), 7);
    // The mask over the products' positions (those of every other entry of a row) and one more
    // column per row: random_mask draws every position of the 8,416-16,833 x 50,000 shape
    // (~22 s per mask on the GPU machine's host, which made this test run past 190 s).
    const Matrix M = [&] {
      const std::vector<Index> ap = A.row_ptr_vector(), ac = A.col_idx_vector();
      const std::vector<Index> bp = B.row_ptr_vector(), bc = B.col_idx_vector();
      std::vector<Index> mr, mc;
      for (Index i = 0; i < A.nrows(); ++i) {
        for (Index e = ap[std::size_t(i)]; e < ap[std::size_t(i) + 1]; e += 2)
          for (Index f = bp[std::size_t(ac[std::size_t(e)])];
               f < bp[std::size_t(ac[std::size_t(e)]) + 1]; ++f) {
            mr.push_back(i);
            mc.push_back(bc[std::size_t(f)]);
          }
        mr.push_back(i);
        mc.push_back(B.ncols() - 1 - (i % 5));
      }
      return Matrix::from_triplets(A.nrows(), B.ncols(), mr, mc,
                                   std::vector<double>(mr.size(), 1.0), Dup::first);
    }();
    for (const auto& [mode, t] : {std::pair<const char*, tuning>{"pw by grid", with(0, 0, 256)},
                                  {"pwg8 one row per SM", with(256, 1, 256)},
                                  {"pwg16 one row per SM", with(256, 1, 256, 16)},
                                  {"lean12 one row per SM", with(0, 1, 512)}}) {
      TuningScope scope(t);
      const std::string tag = std::string(mode) + ", " + std::to_string(m) + " pwarp rows";
      const std::string notes = bin_notes(A, B);
      EXPECT_GE(check_pwarp_launches(notes, t, tag), 1) << tag << "\n" << notes;
      const Matrix C0(A.nrows(), B.ncols(), Type::fp64);
      verify_mxm(tag, nullptr, no_accum, semiring("plus_times", Type::fp64), A, B, hash_desc(), C0);
      verify_mxm(tag + " masked", &M, BinaryOpCode::plus, semiring("max_times", Type::fp64), A, B,
                 hash_desc(MaskMode::structure, true), C0);
    }
  }
}
#endif

TEST_F(SpgemmHash, DeviceResidentInputsNeedNoCopies) {
  Context ctx(Backend::cuda);
  const Matrix A = random_matrix(300, 200, 0.05, Type::fp64, 3).to(Location::device, ctx);
  const Matrix B = random_matrix(200, 250, 0.05, Type::fp64, 4).to(Location::device, ctx);
  Matrix C = Matrix(300, 250, Type::fp64).to(Location::device, ctx);
  ctx.transfers = {};
  std::ostringstream trace;
  ctx.trace = true;
  ctx.trace_out = &trace;
  mxm(C, nullptr, no_accum, semiring("plus_times", Type::fp64), A, B, hash_desc(), ctx);
  EXPECT_EQ(ctx.transfers.host_to_device, 0u);
  EXPECT_EQ(ctx.transfers.device_to_host, 0u);
  EXPECT_EQ(C.location(), Location::device);
  EXPECT_NE(trace.str().find("mxm: spgemm_hash"), std::string::npos) << trace.str();
  // Chained: C (300x250) feeds C·Bᵀ (300x200) without leaving the device.
  Matrix D = Matrix(300, 200, Type::fp64).to(Location::device, ctx);
  ctx.transfers = {};
  mxm(D, nullptr, no_accum, semiring("plus_times", Type::fp64), C, B,
      hash_desc(MaskMode::none, false, false, true), ctx);
  EXPECT_EQ(ctx.transfers.host_to_device + ctx.transfers.device_to_host, 0u);
  EXPECT_EQ(D.location(), Location::device);
  EXPECT_GT(D.nnz(), 0);
}

TEST_F(SpgemmHash, UnsupportedCombinationsThrowBeforeTouchingC) {
  Context ctx(Backend::cuda);
  const Matrix A = random_matrix(6, 5, 0.5, Type::int32, 1);
  const Matrix B = random_matrix(5, 4, 0.5, Type::int32, 2);
  const Matrix C0 = random_matrix(6, 4, 0.5, Type::int32, 3);
  Matrix C = C0;
  const Semiring user = user_semiring<std::int32_t>(
      "my_plus_times", [](std::int32_t x, std::int32_t y) { return x + y; },
      [](std::int32_t x, std::int32_t y) { return x * y; }, 0);
  EXPECT_THROW(mxm(C, nullptr, no_accum, user, A, B, hash_desc(), ctx), NotImplemented);
  EXPECT_THROW(mxm(C, nullptr, BinaryOpCode::firsti, semiring("plus_times", Type::int32), A, B,
                   hash_desc(), ctx),
               NotImplemented);
  EXPECT_EQ(C.location(), Location::host);
  EXPECT_EQ(C.values_vector<std::int32_t>(), C0.values_vector<std::int32_t>());
  // Every catalog semiring x type either matches the oracle or throws NotImplemented untouched.
  int failures = 0;
  for (const SemiringCase& sc : semiring_cases()) {
    const Semiring s = semiring(sc.name, sc.type);
    const Matrix a = random_matrix(9, 8, 0.4, sc.type, 11);
    const Matrix b = random_matrix(8, 7, 0.4, sc.type, 12);
    const Matrix c0 = random_matrix(9, 7, 0.3, sc.type, 13);
    RefMatrix ref = to_ref(c0);
    oracle::mxm(ref, nullptr, no_accum, s, a, b, hash_desc());
    Matrix got = c0;
    bool unsupported = false;
    try {
      mxm(got, nullptr, no_accum, s, a, b, hash_desc(), ctx);
    } catch (const NotImplemented&) {
      unsupported = true;
      EXPECT_EQ(got.location(), Location::host) << s.name();
      EXPECT_EQ(got.nnz(), c0.nnz()) << s.name();
    }
    if (!unsupported) {
      const std::string msg = compare(ref, got.to(Location::host, ctx), s.name());
      if (!msg.empty() && ++failures < 10) ADD_FAILURE() << msg;
    }
  }
  EXPECT_EQ(failures, 0);
}

#if defined(RINGBLAS_HAS_CUDA)
/// Sets the device budget of spgemm_hash for one scope (test-only knob).
struct BudgetScope {
  explicit BudgetScope(std::size_t bytes) {
    cuda::spgemm_hash::detail::set_workspace_budget_for_testing(bytes);
  }
  ~BudgetScope() { cuda::spgemm_hash::detail::set_workspace_budget_for_testing(0); }
};

/// C = A·B on the cpu backend (fp64 plus_times).
Matrix cpu_product(const Matrix& A, const Matrix& B) {
  Context cpu(Backend::cpu);
  Matrix want(A.nrows(), B.ncols(), Type::fp64);
  mxm(want, nullptr, no_accum, semiring("plus_times", Type::fp64), A, B, {}, cpu);
  return want;
}

TEST_F(SpgemmHash, GlobalRowsInChunksUnderASmallBudgetAndOutOfMemoryBeyond) {
  // Products = nnz = 149,390 (C: 1,792,680 bytes); five rows over 16,384 entries spanning most of
  // the 50,000 columns take the global path with direct tables of 50,000 x 12 bytes. A budget of
  // 3.3 MB leaves room for two such tables next to C: the global rows go two at a time.
  // The issue-14 paths keep rows spanning up to 1M columns (symbolic bitmap) and 8 x 16384
  // columns (numeric windows) in shared memory, so the global path is reached here with them off
  // (Issue14PathsAloneAndTogetherMatchCpu runs these rows with them on).
#if defined(RINGBLAS_HAS_CUDA)
  TuningScope previous(cuda::spgemm_hash::tuning::previous());
#endif
  Matrix A, B;
  bin_matrices({40000, 20000, 33000, 5, 40000, 16385}, 1, A, B, 9);
  Context ctx(Backend::cuda);
  std::ostringstream trace;
  ctx.trace = true;
  ctx.trace_out = &trace;
  const Semiring s = semiring("plus_times", Type::fp64);
  const Matrix want = cpu_product(A, B);
  {
    BudgetScope budget(3300000);
    Matrix got = gpu_mxm(Matrix(A.nrows(), B.ncols(), Type::fp64), nullptr, no_accum, s, A, B,
                         hash_desc(), ctx);
    EXPECT_EQ(got.row_ptr_vector(), want.row_ptr_vector());
    EXPECT_EQ(got.col_idx_vector(), want.col_idx_vector());
    EXPECT_EQ(got.values_vector<double>(), want.values_vector<double>());
    EXPECT_NE(trace.str().find("global rows in chunks of 2"), std::string::npos) << trace.str();
    EXPECT_EQ(trace.str().find("row chunks"), std::string::npos) << trace.str();
  }
  {
    // A single row's table (50,000 slots) can never fit 100 KB: OutOfMemory, C untouched.
    BudgetScope budget(100000);
    Matrix C(A.nrows(), B.ncols(), Type::fp64);
    EXPECT_THROW(mxm(C, nullptr, no_accum, s, A, B, hash_desc(), ctx), OutOfMemory);
    EXPECT_EQ(C.location(), Location::host);
    EXPECT_EQ(C.nnz(), 0);
  }
}

TEST_F(SpgemmHash, RowChunksWhenCDoesNotFitTheBudget) {
  Context ctx(Backend::cuda);
  const Semiring s = semiring("plus_times", Type::fp64);
  {
    // Consecutive columns times 8 entries per B row: products 116,040 (bound on C 1.39 MB) but
    // nnz(C) about 14,500 (174 KB). A 1 MB budget splits the rows (each chunk's bound within
    // half of it); the concatenated C fits and returns to the device.
    Matrix A, B;
    bin_matrices({4000, 3000, 2500, 5, 4000, 1000}, 8, A, B, 21, 1);
    const Matrix want = cpu_product(A, B);
    std::ostringstream trace;
    ctx.trace = true;
    ctx.trace_out = &trace;
    BudgetScope budget(1000000);
    Matrix C(A.nrows(), B.ncols(), Type::fp64);
    mxm(C, nullptr, no_accum, s, A, B, hash_desc(), ctx);
    EXPECT_EQ(C.location(), Location::device);
    const Matrix got = C.to(Location::host, ctx);
    EXPECT_EQ(got.row_ptr_vector(), want.row_ptr_vector());
    EXPECT_EQ(got.col_idx_vector(), want.col_idx_vector());
    EXPECT_EQ(got.values_vector<double>(), want.values_vector<double>());
    EXPECT_NE(trace.str().find("row chunks, concatenated on the host"), std::string::npos)
        << trace.str();
    EXPECT_EQ(trace.str().find("left on the host"), std::string::npos) << trace.str();
    // Masked and accumulated into a non-empty C through the chunked path.
    const Matrix M = random_mask(A.nrows(), B.ncols(), 0.5, Type::boolean, 8);
    verify_mxm("chunked masked accum", &M, BinaryOpCode::plus, s, A, B,
               hash_desc(MaskMode::structure), want);
    ctx.trace = false;
  }
  {
    // No compression (C: 1.79 MB) under a 1.5 MB budget: chunks, and C stays on the host.
    Matrix A, B;
    bin_matrices({40000, 20000, 33000, 5, 40000, 16385}, 1, A, B, 9);
    const Matrix want = cpu_product(A, B);
    std::ostringstream trace;
    ctx.trace = true;
    ctx.trace_out = &trace;
    BudgetScope budget(1500000);
    Matrix C(A.nrows(), B.ncols(), Type::fp64);
    mxm(C, nullptr, no_accum, s, A, B, hash_desc(), ctx);
    EXPECT_EQ(C.location(), Location::host);
    C.check_invariants();
    EXPECT_EQ(C.row_ptr_vector(), want.row_ptr_vector());
    EXPECT_EQ(C.col_idx_vector(), want.col_idx_vector());
    EXPECT_EQ(C.values_vector<double>(), want.values_vector<double>());
    EXPECT_NE(trace.str().find("left on the host"), std::string::npos) << trace.str();
    // The mask is applied inside the kernel, so the masked T (about half of C) fits the budget
    // and goes through the device write-back: it must match the cpu executor (seen on an H200:
    // this case computes rather than throwing OutOfMemory).
    const Matrix M = random_mask(A.nrows(), B.ncols(), 0.5, Type::boolean, 8);
    verify_mxm("chunked, masked", &M, no_accum, s, A, B, hash_desc(MaskMode::structure),
               Matrix(A.nrows(), B.ncols(), Type::fp64));
    ctx.trace = false;
  }
}

TEST_F(SpgemmHash, RowChunksKeepPositionalRowIds) {
  // any_firsti gives every entry of row i the value i: each chunk must see A's global row ids.
  bool built = false;
  for (const auto& e : cuda::spgemm_hash::manifest())
    built = built || (e.name == "any_firsti" && e.type == Type::int64);
  if (!built) GTEST_SKIP() << "any_firsti is not in the built manifest (RINGBLAS_ALL_SEMIRINGS)";
  Matrix A, B;
  bin_matrices({4000, 3000, 2500, 5, 4000, 1000}, 8, A, B, 23, 1);
  const Semiring s = semiring("any_firsti", Type::int64);
  Context ctx(Backend::cuda), cpu(Backend::cpu);
  Matrix want(A.nrows(), B.ncols(), Type::int64);
  mxm(want, nullptr, no_accum, s, A, B, {}, cpu);
  BudgetScope budget(1000000);
  Matrix got(A.nrows(), B.ncols(), Type::int64);
  mxm(got, nullptr, no_accum, s, A, B, hash_desc(), ctx);
  const Matrix h = got.to(Location::host, ctx);
  EXPECT_EQ(h.col_idx_vector(), want.col_idx_vector());
  EXPECT_EQ(h.values_vector<std::int64_t>(), want.values_vector<std::int64_t>());
}
#endif

std::vector<std::string> data_files() {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const char* sub : {"suitesparse", "snap"}) {
    const fs::path dir = fs::path(RINGBLAS_DATA_DIR) / sub;
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      const bool mtx = name.size() > 4 && (name.ends_with(".mtx") || name.ends_with(".mtx.gz"));
      const bool snap = std::string(sub) == "snap" && name.ends_with(".txt.gz");
      if (e.is_regular_file() && (mtx || snap)) out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// A·op(A) on the GPU against the cpu backend: structure exact, each value within 1e-10 of
/// (|A|·|op(A)|)(i, j), the scale of its terms (stiffness matrices cancel to results far below
/// their terms, where a result-relative tolerance would only measure summation order).
void expect_square_matches_cpu(const std::string& what, const Matrix& A, bool tb) {
  Context cpu(Backend::cpu), gpu(Backend::cuda);
  const Semiring s = semiring("plus_times", Type::fp64);
  Descriptor dc;
  dc.transpose_b = tb;
  const Descriptor dg = hash_desc(MaskMode::none, false, false, tb);
  const Index n = tb ? A.nrows() : A.ncols();
  std::vector<double> av = A.values_vector<double>();
  for (double& x : av) x = std::fabs(x);
  const Matrix absA = Matrix::from_csr(A.nrows(), A.ncols(), A.row_ptr_vector(), A.col_idx_vector(), av);
  Matrix want(A.nrows(), n, Type::fp64), mag(A.nrows(), n, Type::fp64), got(A.nrows(), n, Type::fp64);
  mxm(want, nullptr, no_accum, s, A, A, dc, cpu);
  mxm(mag, nullptr, no_accum, s, absA, absA, dc, cpu);
  try {
    mxm(got, nullptr, no_accum, s, A, A, dg, gpu);
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": " << e.what();
    return;
  }
  got = got.to(Location::host, gpu);
  ASSERT_EQ(got.row_ptr_vector(), want.row_ptr_vector()) << what;
  ASSERT_EQ(got.col_idx_vector(), want.col_idx_vector()) << what;
  const auto g = got.values_vector<double>(), w = want.values_vector<double>(),
             m = mag.values_vector<double>();
  for (std::size_t k = 0; k < g.size(); ++k)
    if (!(std::fabs(g[k] - w[k]) <= 1e-10 * m[k])) {
      ADD_FAILURE() << what << ": entry " << k << ": " << g[k] << " vs " << w[k]
                    << " (terms of magnitude " << m[k] << ")";
      return;
    }
}

TEST_F(SpgemmHash, SharedMatricesSquaredMatchCpu) {
  const std::vector<std::string> files = data_files();
  if (files.empty()) GTEST_SKIP() << "no matrices under " << RINGBLAS_DATA_DIR;
  int run = 0;
  for (const std::string& path : files) {
    Matrix A;
    try {
      A = io::read_graph(path).cast(Type::fp64);
    } catch (const std::exception& e) {
      ADD_FAILURE() << path << ": " << e.what();
      continue;
    }
    if (A.nrows() == A.ncols()) expect_square_matches_cpu(path + " A*A", A, false);
    expect_square_matches_cpu(path + " A*A'", A, true);
    ++run;
  }
  EXPECT_GT(run, 0);
}

}  // namespace
}  // namespace ringblas::test
