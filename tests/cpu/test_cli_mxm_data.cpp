// `ringblas mxm A A` on every square shared SuiteSparse matrix with plus_times, min_plus and
// plus_pair, checked entry by entry against the test's own sparse accumulator, and nnz(A·A)
// against shared/ANCHORS.md where it lists one. Matrices over ~5M products are skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "test_cli_support.hpp"

namespace {

using namespace ringblas;
using namespace ringblas::test_cli;

const std::string kData = RINGBLAS_DATA_DIR;
constexpr long kMaxProducts = 5'000'000;

// shared/ANCHORS.md, column "nnz(C)" of the SpGEMM table (C = A·A).
const std::map<std::string, Index> kAnchorNnz = {
    {"cage8.mtx.gz", 55175},     {"add32.mtx.gz", 102422},    {"hep-th.mtx.gz", 171460},
    {"fe_4elt2.mtx.gz", 212095}, {"crack.mtx.gz", 226256},    {"luxembourg_osm.mtx.gz", 393261},
    {"bayer10.mtx.gz", 413731},  {"fidapex6.mtx.gz", 210167}, {"bcsstk13.mtx.gz", 396773},
};

long count_products(const Rows& a) {
  long total = 0;
  for (const auto& row : a.rows)
    for (const auto& [k, v] : row) total += static_cast<long>(a.rows[k].size());
  return total;
}

/// Compares C (read from the CLI's output) with the reference; returns the number of mismatches
/// reported (at most a few, to keep the log short).
int compare(const Rows& a, const Rows& c, const std::vector<std::map<long, RefEntry>>& ref,
            Ring ring, const std::string& what) {
  int bad = 0;
  if (c.nrows != a.nrows || c.ncols != a.ncols) {
    ADD_FAILURE() << what << ": C is " << c.nrows << " x " << c.ncols;
    return 1;
  }
  for (long i = 0; i < c.nrows && bad < 5; ++i) {
    if (c.rows[i].size() != ref[i].size()) {
      ADD_FAILURE() << what << ": row " << i << " has " << c.rows[i].size() << " entries, expected "
                    << ref[i].size();
      ++bad;
      continue;
    }
    auto it = ref[i].begin();
    for (const auto& [j, v] : c.rows[i]) {
      const auto& [rj, e] = *it++;
      if (j != rj) {
        ADD_FAILURE() << what << ": row " << i << " has column " << j << ", expected " << rj;
        ++bad;
        break;
      }
      // Exact for min_plus and plus_pair; plus_times within 1e-9 · row length · Σ|a·b|.
      const double tol =
          ring == Ring::plus_times
              ? 1e-9 * static_cast<double>(std::max<std::size_t>(1, a.rows[i].size())) * e.abs_sum
              : 0.0;
      if (!(std::abs(v - e.value) <= tol)) {
        ADD_FAILURE() << what << ": C(" << i << "," << j << ") = " << v << ", expected " << e.value;
        ++bad;
      }
    }
  }
  return bad;
}

TEST(CliMxmData, SquareSuiteSparseMatricesSquared) {
  if (!std::filesystem::exists(kData + "/suitesparse"))
    GTEST_SKIP() << "shared data not found at " << kData << " (RINGBLAS_DATA_DIR)";
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(kData + "/suitesparse"))
    if (e.is_regular_file()) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  const std::pair<const char*, Ring> rings[] = {{"plus_times", Ring::plus_times},
                                                {"min_plus", Ring::min_plus},
                                                {"plus_pair", Ring::plus_pair}};
  int checked = 0;
  for (const auto& file : files) {
    const std::string path = kData + "/suitesparse/" + file;
    const Rows a = to_rows(io::read_matrix_market(path));
    if (a.nrows != a.ncols) continue;
    const long products = count_products(a);
    if (products > kMaxProducts) {
      std::printf("[ skipped  ] %s: %ld products\n", file.c_str(), products);
      continue;
    }
    for (const auto& [name, ring] : rings) {
      const std::string what = file + " " + name;
      SCOPED_TRACE(what);
      const auto out = (temp_dir() / (file + "." + name + ".mtx")).string();
      const auto r = run_cli({"mxm", path, path, "--semiring", name, "-o", out});
      ASSERT_EQ(r.code, 0) << r.err;
      const Rows c = to_rows(io::read_matrix_market(out));
      const auto ref = reference_product(a, a, ring);
      compare(a, c, ref, ring, what);
      if (auto it = kAnchorNnz.find(file); it != kAnchorNnz.end()) {
        Index nnz = 0;
        for (const auto& row : c.rows) nnz += static_cast<Index>(row.size());
        EXPECT_EQ(nnz, it->second) << "ANCHORS nnz(C)";
      }
      std::filesystem::remove(out);
    }
    ++checked;
  }
  EXPECT_GE(checked, 25) << "fewer square matrices than the README lists";
}

}  // namespace
