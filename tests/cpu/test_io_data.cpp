// Every shared SuiteSparse matrix and SNAP graph read and checked against independent numbers:
// sizes and nnz(full) from shared/data/README.md (§1, §2), A·A product counts from
// shared/ANCHORS.md; CSR invariants on each.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "ringblas/ringblas.hpp"

namespace {

using namespace ringblas;

const std::string kData = RINGBLAS_DATA_DIR;

#define REQUIRE_DATA()                                  \
  if (!std::filesystem::exists(kData + "/suitesparse")) \
  GTEST_SKIP() << "shared data not found at " << kData << " (RINGBLAS_DATA_DIR)"

struct Expected {
  const char* file;
  Index rows, cols, stored, full;
  io::Field field;
  io::Symmetry symmetry;
};

using F = io::Field;
using S = io::Symmetry;

// shared/data/README.md §1, copied by hand (rows×cols, stored nnz, nnz(full), type).
const Expected kSuiteSparse[] = {
    {"karate.mtx", 34, 34, 78, 156, F::pattern, S::symmetric},
    {"LFAT5.mtx", 14, 14, 30, 46, F::real, S::symmetric},
    {"west0067.mtx", 67, 67, 294, 294, F::real, S::general},
    {"lp_afiro.mtx", 27, 51, 102, 102, F::real, S::general},
    {"can_96.mtx", 96, 96, 432, 768, F::pattern, S::symmetric},
    {"jazz.mtx", 198, 198, 2742, 5484, F::integer, S::symmetric},
    {"Erdos971.mtx", 472, 472, 1314, 2628, F::pattern, S::symmetric},
    {"west0479.mtx", 479, 479, 1910, 1910, F::real, S::general},
    {"G51.mtx", 1000, 1000, 5909, 11818, F::pattern, S::symmetric},
    {"olm1000.mtx", 1000, 1000, 3996, 3996, F::real, S::general},
    {"dwt_1005.mtx", 1005, 1005, 4813, 8621, F::pattern, S::symmetric},
    {"cage8.mtx.gz", 1015, 1015, 11003, 11003, F::real, S::general},
    {"1138_bus.mtx", 1138, 1138, 2596, 4054, F::real, S::symmetric},
    {"jagmesh7.mtx", 1138, 1138, 4294, 7450, F::pattern, S::symmetric},
    {"qh1484.mtx", 1484, 1484, 6110, 6110, F::real, S::general},
    {"fidapex6.mtx.gz", 1651, 1651, 49533, 49533, F::real, S::general},
    {"bcsstk13.mtx.gz", 2003, 2003, 42943, 83883, F::real, S::symmetric},
    {"data.mtx.gz", 2851, 2851, 15093, 30186, F::pattern, S::symmetric},
    {"zenios.mtx.gz", 2873, 2873, 15032, 27191, F::real, S::symmetric},
    {"3elt.mtx.gz", 4720, 4720, 13722, 27444, F::pattern, S::symmetric},
    {"bcsstk16.mtx.gz", 4884, 4884, 147631, 290378, F::real, S::symmetric},
    {"add32.mtx.gz", 4960, 4960, 23884, 23884, F::real, S::general},
    {"ca-GrQc.mtx.gz", 5242, 5242, 14496, 28980, F::pattern, S::symmetric},
    {"bcspwr10.mtx.gz", 5300, 5300, 13571, 21842, F::pattern, S::symmetric},
    {"rajat01.mtx.gz", 6833, 6833, 43250, 43250, F::pattern, S::general},
    {"Pd.mtx.gz", 8081, 8081, 13036, 13036, F::real, S::general},
    {"hep-th.mtx.gz", 8361, 8361, 15751, 31502, F::real, S::symmetric},
    {"whitaker3.mtx.gz", 9800, 9800, 28989, 57978, F::pattern, S::symmetric},
    {"crack.mtx.gz", 10240, 10240, 30380, 60760, F::pattern, S::symmetric},
    {"fe_4elt2.mtx.gz", 11143, 11143, 32818, 65636, F::pattern, S::symmetric},
    {"bayer10.mtx.gz", 13436, 13436, 94926, 94926, F::real, S::general},
    {"luxembourg_osm.mtx.gz", 114599, 114599, 119666, 239332, F::pattern, S::symmetric},
};

// shared/ANCHORS.md, column "products" of the SpGEMM table (C = A·A).
const std::map<std::string, Index> kProducts = {
    {"cage8.mtx.gz", 129443},
    {"add32.mtx.gz", 182304},
    {"hep-th.mtx.gz", 273668},
    {"fe_4elt2.mtx.gz", 395450},
    {"crack.mtx.gz", 396948},
    {"luxembourg_osm.mtx.gz", 519206},
    {"bayer10.mtx.gz", 663922},
    {"fidapex6.mtx.gz", 1845685},
    {"bcsstk13.mtx.gz", 4554541},
    {"rajat01.mtx.gz", 5373531},
    {"bcsstk16.mtx.gz", 18728606},
    {"wiki-Vote.txt.gz", 29292684},
    {"soc-Epinions1_lwcc_undirected.txt.gz", 149213718},
};

/// Σ_k nnz(A(:,k)) · nnz(A(k,:)): the multiply count of A·A (Gustavson).
Index products(const Matrix& a) {
  const auto rp = a.row_ptr_vector();
  const auto ci = a.col_idx_vector();
  std::vector<Index> col_count(a.ncols(), 0);
  for (Index c : ci) ++col_count[c];
  Index total = 0;
  for (Index k = 0; k < a.nrows() && k < a.ncols(); ++k)
    total += col_count[k] * (rp[k + 1] - rp[k]);
  return total;
}

/// Whether a(i,j) == a(j,i) for every entry (structure and value).
bool is_symmetric(const Matrix& a) {
  const auto rp = a.row_ptr_vector();
  const auto ci = a.col_idx_vector();
  const auto v = a.cast(Type::fp64).values_vector<double>();
  std::vector<std::tuple<Index, Index, double>> e, t;
  for (Index i = 0; i < a.nrows(); ++i)
    for (Index p = rp[i]; p < rp[i + 1]; ++p) {
      e.emplace_back(i, ci[p], v[p]);
      t.emplace_back(ci[p], i, v[p]);
    }
  std::sort(t.begin(), t.end());
  return e == t;
}

/// The file lists the table entries exactly (nothing missing, nothing unlisted).
TEST(IoData, TableCoversSuiteSparseFolder) {
  REQUIRE_DATA();
  std::vector<std::string> on_disk;
  for (const auto& e : std::filesystem::directory_iterator(kData + "/suitesparse"))
    if (e.is_regular_file()) on_disk.push_back(e.path().filename().string());
  std::sort(on_disk.begin(), on_disk.end());
  std::vector<std::string> listed;
  for (const auto& e : kSuiteSparse) listed.push_back(e.file);
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(on_disk, listed);
}

TEST(IoData, SuiteSparseMatricesMatchReadme) {
  REQUIRE_DATA();
  for (const auto& e : kSuiteSparse) {
    SCOPED_TRACE(e.file);
    io::MatrixInfo info;
    const Matrix a = io::read_matrix_market(kData + "/suitesparse/" + e.file, &info);
    EXPECT_NO_THROW(a.check_invariants());
    EXPECT_EQ(a.nrows(), e.rows);
    EXPECT_EQ(a.ncols(), e.cols);
    EXPECT_EQ(info.stored_entries, e.stored);
    EXPECT_EQ(a.nnz(), e.full);
    EXPECT_EQ(info.field, e.field);
    EXPECT_EQ(info.symmetry, e.symmetry);
    EXPECT_EQ(a.type(), e.field == F::real      ? Type::fp64
                        : e.field == F::integer ? Type::int64
                                                : Type::boolean);
    if (auto it = kProducts.find(e.file); it != kProducts.end()) EXPECT_EQ(products(a), it->second);
    // read_graph agrees on the structure and gives fp64.
    const Matrix g = io::read_graph(kData + "/suitesparse/" + e.file);
    EXPECT_EQ(g.type(), Type::fp64);
    EXPECT_EQ(g.col_idx_vector(), a.col_idx_vector());
  }
}

TEST(IoData, SymmetricValuesAreMirrored) {
  REQUIRE_DATA();
  for (const auto& e : kSuiteSparse) {
    if (e.symmetry != S::symmetric) continue;
    SCOPED_TRACE(e.file);
    EXPECT_TRUE(is_symmetric(io::read_matrix_market(kData + "/suitesparse/" + e.file)));
  }
}

struct Snap {
  const char* file;
  Index nodes;
};
// shared/data/README.md §2, column "nodes".
const Snap kSnap[] = {
    {"soc-Epinions1_lwcc_undirected.txt.gz", 75877},
    {"p2p-Gnutella31.txt.gz", 62586},
    {"wiki-Vote.txt.gz", 7115},
    {"CA-HepTh.txt.gz", 9877},
    {"facebook_combined.txt.gz", 4039},
};

TEST(IoData, SnapGraphsMatchReadme) {
  REQUIRE_DATA();
  for (const auto& e : kSnap) {
    SCOPED_TRACE(e.file);
    const Matrix a = io::read_graph(kData + "/snap/" + e.file);
    EXPECT_NO_THROW(a.check_invariants());
    EXPECT_EQ(a.nrows(), e.nodes);
    EXPECT_EQ(a.ncols(), e.nodes);
    EXPECT_EQ(a.type(), Type::fp64);
    for (double v : a.values_vector<double>()) ASSERT_EQ(v, 1.0);
    EXPECT_TRUE(is_symmetric(a));
    if (auto it = kProducts.find(e.file); it != kProducts.end()) EXPECT_EQ(products(a), it->second);
  }
}

TEST(IoData, SnapEdgeCountsFromReadme) {
  REQUIRE_DATA();
  // CA-HepTh: both directions plus 25 self-loops = 2 * 25,998 - 25 entries (README §2).
  EXPECT_EQ(io::read_graph(kData + "/snap/CA-HepTh.txt.gz").nnz(), 2 * 25998 - 25);
  // facebook_combined and the Epinions copy list each undirected edge once.
  EXPECT_EQ(io::read_graph(kData + "/snap/facebook_combined.txt.gz").nnz(), 2 * 88234);
  EXPECT_EQ(io::read_graph(kData + "/snap/soc-Epinions1_lwcc_undirected.txt.gz").nnz(), 2 * 405739);
  // Without header detection the "n m" line of p2p-Gnutella31 would be read as an edge.
  io::EdgeListOptions raw;
  raw.compact_ids = true;
  EXPECT_EQ(io::read_edge_list(kData + "/snap/p2p-Gnutella31.txt.gz", raw, 1).nnz(), 147892);
  EXPECT_EQ(io::read_edge_list(kData + "/snap/p2p-Gnutella31.txt.gz", raw, 1).nrows(), 62586);
}

// ANCHORS.md lists 3,432,134 products for p2p-Gnutella31, which is what the file gives when its
// first line "62586 147892" is taken as an edge: two extra vertices of degree 1 add 1 + 1. The
// README's 62,586 nodes / 147,892 edges say it is a header, so read_graph skips it.
TEST(IoData, GnutellaAnchorCountsTheHeaderAsAnEdge) {
  REQUIRE_DATA();
  const std::string path = kData + "/snap/p2p-Gnutella31.txt.gz";
  io::EdgeListOptions as_edge;
  as_edge.compact_ids = true;
  as_edge.symmetrize = true;
  const Matrix with_header = io::read_edge_list(path, as_edge, 0);
  EXPECT_EQ(with_header.nrows(), 62586 + 2);
  EXPECT_EQ(products(with_header), 3432134);
  EXPECT_EQ(products(io::read_graph(path)), 3432134 - 2);
}

struct Triplet0 {
  const char* file;
  Index rows, cols, entries;
};
// shared/data/README.md §1 (triplet0 table): shape from the max index, number of lines.
const Triplet0 kTriplet0[] = {
    {"mbeacxc.tri0.gz", 492, 490, 49920}, {"fs_183_1.tri0", 183, 183, 1069},
    {"ash219.tri0", 219, 85, 438},        {"bcsstk01.tri0", 48, 48, 224},
    {"ibm32a.tri0", 32, 31, 123},
};

TEST(IoData, Triplet0FilesReadAsEdgeLists) {
  REQUIRE_DATA();
  for (const auto& e : kTriplet0) {
    SCOPED_TRACE(e.file);
    const std::string path = kData + "/suitesparse/triplet0/" + e.file;
    io::EdgeListOptions opt;
    opt.base = 0;
    opt.dup = Dup::sum;
    opt.rectangular = true;
    const Matrix a = io::read_edge_list(path, opt);
    EXPECT_NO_THROW(a.check_invariants());
    EXPECT_EQ(a.nrows(), e.rows);
    EXPECT_EQ(a.ncols(), e.cols);
    EXPECT_LE(a.nnz(), e.entries);
    // Dup::sum keeps the total; compare with the file's own column of values.
    opt.dup = Dup::error;
    double file_sum = 0;
    const std::string text = io::read_file_text(path);
    std::istringstream in(text);
    Index lines = 0, i, j;
    double x;
    while (in >> i >> j >> x) file_sum += x, ++lines;
    EXPECT_EQ(lines, e.entries);
    double sum = 0;
    for (double v : a.values_vector<double>()) sum += v;
    EXPECT_NEAR(sum, file_sum, 1e-9 * std::abs(file_sum) + 1e-12);
    if (a.nnz() == e.entries)
      EXPECT_NO_THROW(io::read_edge_list(path, opt));
    else
      EXPECT_THROW(io::read_edge_list(path, opt), ParseError);
  }
}

}  // namespace
