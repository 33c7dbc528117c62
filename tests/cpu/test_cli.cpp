// The `ringblas` command-line tool: help and usage errors (exit 2), ringblas errors (exit 1) for
// bad, missing and mismatched files, `info` output, and `mxm` options checked against a
// reference product computed in the test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ringblas/ringblas.hpp"
#include "test_cli_support.hpp"

namespace {

using namespace ringblas;
using namespace ringblas::test_cli;

// The small matrices kept in the repository (tests/data/README.md): these tests run on a fresh
// clone.
const std::string kData = RINGBLAS_REPO_DATA_DIR;
const std::string kKarate = kData + "/suitesparse/karate.mtx";
const std::string kAfiro = kData + "/suitesparse/lp_afiro.mtx";

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

Rows transposed(const Rows& a) {
  Rows t{a.ncols, a.nrows, std::vector<std::vector<std::pair<long, double>>>(a.ncols)};
  for (long i = 0; i < a.nrows; ++i)
    for (const auto& [j, v] : a.rows[i]) t.rows[j].emplace_back(i, v);
  return t;
}

TEST(Cli, HelpAndUsageErrors) {
  const auto help = run_cli({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_TRUE(contains(help.out, "info")) << help.out;
  EXPECT_TRUE(contains(help.out, "mxm")) << help.out;
  EXPECT_EQ(run_cli({}).code, 2);
  const auto unknown = run_cli({"frobnicate"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_TRUE(contains(unknown.err, "unknown command 'frobnicate'")) << unknown.err;
  const auto mxm_help = run_cli({"mxm", "--help"});
  EXPECT_EQ(mxm_help.code, 0);
  EXPECT_TRUE(contains(mxm_help.out, "--semiring")) << mxm_help.out;
  const auto bad_opt = run_cli({"mxm", "a.mtx", "b.mtx", "--bogus"});
  EXPECT_EQ(bad_opt.code, 2);
  EXPECT_TRUE(contains(bad_opt.err, "unknown option '--bogus'")) << bad_opt.err;
  EXPECT_TRUE(contains(bad_opt.err, "usage: ringblas mxm")) << bad_opt.err;
  const auto no_value = run_cli({"mxm", "a.mtx", "b.mtx", "--semiring"});
  EXPECT_EQ(no_value.code, 2);
  EXPECT_TRUE(contains(no_value.err, "option --semiring needs a value")) << no_value.err;
  EXPECT_EQ(run_cli({"mxm", "a.mtx"}).code, 2);
  EXPECT_EQ(run_cli({"mxm", "a.mtx", "b.mtx", "c.mtx"}).code, 2);
  EXPECT_EQ(run_cli({"info"}).code, 2);
  EXPECT_EQ(run_cli({"mxm", "a.mtx", "b.mtx", "--complement"}).code, 2);
}

TEST(Cli, InfoMatchesTheFile) {
  const auto r = run_cli({"info", kKarate});
  ASSERT_EQ(r.code, 0) << r.err;
  // shared/data/README.md §1: karate is 34 x 34, 78 stored, 156 full, pattern symmetric.
  EXPECT_TRUE(contains(r.out, "rows: 34\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "cols: 34\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "nnz: 156\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "stored_entries: 78\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "field: pattern\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "symmetry: symmetric\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "type: bool\n")) << r.out;
  // Row lengths against the rows counted here.
  const Rows a = to_rows(io::read_matrix_market(kKarate));
  std::size_t lo = a.rows[0].size(), hi = 0;
  for (const auto& row : a.rows) lo = std::min(lo, row.size()), hi = std::max(hi, row.size());
  EXPECT_TRUE(contains(r.out, "row_length_min: " + std::to_string(lo) + "\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "row_length_max: " + std::to_string(hi) + "\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "row_length_mean: 4.588\n")) << r.out;  // 156 / 34

  // An edge list as given: one entry per edge line; its header line 'nd nw' skipped and said so.
  const auto g = run_cli({"info", kData + "/snap/facebook_combined.txt.gz"});
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_TRUE(contains(g.out, "rows: 4039\n")) << g.out;  // README §2 nodes
  EXPECT_TRUE(contains(g.out, "nnz: 88234\n")) << g.out;  // edge lines
  EXPECT_TRUE(contains(g.err, "facebook_combined.txt.gz:1: line 'nd nw' is not an edge")) << g.err;
  const auto s = run_cli({"info", kData + "/snap/facebook_combined.txt.gz", "--symmetric"});
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_TRUE(contains(s.out, "nnz: " + std::to_string(2 * 88234) + "\n")) << s.out;
}

TEST(Cli, ErrorsExitOne) {
  const auto wrong = run_cli({"info", kData + "/debian_pkgs/wrong.mtx"});
  EXPECT_EQ(wrong.code, 1);
  EXPECT_TRUE(contains(wrong.err, "wrong.mtx:3: row index 0 out of range 1..2")) << wrong.err;
  const auto missing = run_cli({"info", kData + "/no-such-file.mtx"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_TRUE(contains(missing.err, "no-such-file.mtx: cannot open")) << missing.err;
  const auto mismatch = run_cli({"mxm", kKarate, kAfiro});
  EXPECT_EQ(mismatch.code, 1);
  EXPECT_TRUE(contains(mismatch.err, "34")) << mismatch.err;
  EXPECT_TRUE(contains(mismatch.err, "27")) << mismatch.err;
  // Unknown names given on the command line are bad usage (exit 2) and say what is valid.
  const auto bad_ring = run_cli({"mxm", kKarate, kKarate, "--semiring", "plus_nonsense"});
  EXPECT_EQ(bad_ring.code, 2);
  EXPECT_TRUE(contains(bad_ring.err, "plus_nonsense") || contains(bad_ring.err, "nonsense")) << bad_ring.err;
  EXPECT_EQ(run_cli({"mxm", kKarate, kKarate, "--type", "complex"}).code, 2);
  const auto bad_backend = run_cli({"mxm", kKarate, kKarate, "--backend", "quantum"});
  EXPECT_EQ(bad_backend.code, 2);
  EXPECT_TRUE(contains(bad_backend.err, "valid: auto, cpu, cuda, verify")) << bad_backend.err;
  const auto bad_mask = run_cli({"mxm", kKarate, kKarate, "--mask", kAfiro});
  EXPECT_EQ(bad_mask.code, 1);
  const auto bad_out = run_cli({"mxm", kKarate, kKarate, "-o", kData + "/no-such-dir/c.mtx"});
  EXPECT_EQ(bad_out.code, 1);
  EXPECT_TRUE(contains(bad_out.err, "cannot open for writing")) << bad_out.err;
}

TEST(Cli, MxmSummaryAndOutput) {
  const Rows a = to_rows(io::read_matrix_market(kKarate));
  const auto ref = reference_product(a, a, Ring::plus_pair);
  Index nnz = 0;
  for (const auto& row : ref) nnz += static_cast<Index>(row.size());
  const auto r = run_cli({"mxm", kKarate, kKarate});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "C: 34 x 34, nnz " + std::to_string(nnz) + ", type fp64, semiring plus_times_fp64\n");
  EXPECT_TRUE(contains(r.err, "nnz(C) = " + std::to_string(nnz))) << r.err;
  EXPECT_TRUE(contains(r.err, " ms")) << r.err;

  // bool with pattern inputs -> pattern output of the same structure.
  const auto path = (temp_dir() / "karate2.mtx").string();
  const auto b = run_cli({"mxm", kKarate, kKarate, "--type", "bool", "-o", path});
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_TRUE(b.out.empty()) << b.out;
  io::MatrixInfo info;
  const Rows c = to_rows(io::read_matrix_market(path, &info));
  EXPECT_EQ(info.field, io::Field::pattern);
  ASSERT_EQ(c.nrows, 34);
  for (long i = 0; i < 34; ++i) {
    ASSERT_EQ(c.rows[i].size(), ref[i].size()) << "row " << i;
    auto it = ref[i].begin();
    for (const auto& [j, v] : c.rows[i]) EXPECT_EQ(j, (it++)->first);
  }
}

TEST(Cli, MxmTransposeAndMask) {
  // Aᵀ·A of the rectangular lp_afiro (27 x 51) is 51 x 51.
  const Rows a = to_rows(io::read_matrix_market(kAfiro));
  const auto ref = reference_product(transposed(a), a, Ring::plus_times);
  const auto path = (temp_dir() / "afiro_ata.mtx").string();
  const auto r = run_cli({"mxm", kAfiro, kAfiro, "--transpose-a", "-o", path});
  ASSERT_EQ(r.code, 0) << r.err;
  const Rows c = to_rows(io::read_matrix_market(path));
  ASSERT_EQ(c.nrows, 51);
  ASSERT_EQ(c.ncols, 51);
  for (long i = 0; i < 51; ++i) {
    ASSERT_EQ(c.rows[i].size(), ref[i].size()) << "row " << i;
    for (const auto& [j, v] : c.rows[i]) {
      const auto& e = ref[i].at(j);
      EXPECT_NEAR(v, e.value, 1e-9 * e.abs_sum * a.nrows) << i << "," << j;
    }
  }
  // C<¬A, struct> = A·A on karate: the two-hop pairs that are not edges.
  const Rows k = to_rows(io::read_matrix_market(kKarate));
  const auto two_hop = reference_product(k, k, Ring::plus_pair);
  const auto mpath = (temp_dir() / "karate_masked.mtx").string();
  const auto m = run_cli({"mxm", kKarate, kKarate, "--semiring", "plus_pair", "--mask", kKarate,
                          "--complement", "--structural", "-o", mpath});
  ASSERT_EQ(m.code, 0) << m.err;
  const Rows cm = to_rows(io::read_matrix_market(mpath));
  for (long i = 0; i < 34; ++i) {
    std::map<long, double> want;
    for (const auto& [j, e] : two_hop[i]) want[j] = e.value;
    for (const auto& [j, v] : k.rows[i]) want.erase(j);
    std::map<long, double> got(cm.rows[i].begin(), cm.rows[i].end());
    EXPECT_EQ(got, want) << "row " << i;
  }
}

}  // namespace
