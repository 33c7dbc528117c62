// Edge-list, label-triple (mcl --abc) and read_graph readers on small hand-written files:
// comments, weights, bases, symmetrize, compaction, duplicate policies, header detection, errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "ringblas/ringblas.hpp"

namespace {

using namespace ringblas;
using Triple = std::tuple<Index, Index, double>;

std::string write_temp(const std::string& name, const std::string& text) {
  auto dir = std::filesystem::temp_directory_path() /
             ("ringblas_test_edges_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::vector<Triple> triples(const Matrix& a) {
  const auto rp = a.row_ptr_vector();
  const auto ci = a.col_idx_vector();
  const auto v = a.values_vector<double>();
  std::vector<Triple> out;
  for (Index i = 0; i < a.nrows(); ++i)
    for (Index p = rp[i]; p < rp[i + 1]; ++p) out.emplace_back(i, ci[p], v[p]);
  return out;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ParseError& e) {
    return e.what();
  }
  return "no ParseError";
}

TEST(IoEdgeList, CommentsWeightsAndBase) {
  const auto path = write_temp("w.txt", "# comment\n% other comment\n\n1\t2 0.5\n3 1\n  2 2 4e0\n");
  io::EdgeListOptions opt;
  opt.base = 1;
  const Matrix a = io::read_edge_list(path, opt);
  a.check_invariants();
  EXPECT_EQ(a.nrows(), 3);
  EXPECT_EQ(triples(a), (std::vector<Triple>{{0, 1, 0.5}, {1, 1, 4.0}, {2, 0, 1.0}}));
  opt.base = 0;
  EXPECT_EQ(io::read_edge_list(path, opt).nrows(), 4);
}

TEST(IoEdgeList, SymmetrizeCompactAndDuplicates) {
  const auto path = write_temp("d.txt", "10 20 1\n20 10 5\n30 30 2\n10 20 3\n");
  io::EdgeListOptions opt;
  opt.symmetrize = true;
  opt.compact_ids = true;
  opt.dup = Dup::sum;
  // ids 10, 20, 30 -> 0, 1, 2 (messages show the compacted ids); (0,1) gets 1 + 3 from itself and 5 from the mirror; no mirrored
  // loop.
  EXPECT_EQ(triples(io::read_edge_list(path, opt)),
            (std::vector<Triple>{{0, 1, 9}, {1, 0, 9}, {2, 2, 2}}));
  opt.dup = Dup::first;  // file order: line 1 (or its mirror) first
  EXPECT_EQ(triples(io::read_edge_list(path, opt)),
            (std::vector<Triple>{{0, 1, 1}, {1, 0, 1}, {2, 2, 2}}));
  opt.dup = Dup::last;
  EXPECT_EQ(triples(io::read_edge_list(path, opt)),
            (std::vector<Triple>{{0, 1, 3}, {1, 0, 3}, {2, 2, 2}}));
  opt.dup = Dup::max;
  EXPECT_EQ(std::get<2>(triples(io::read_edge_list(path, opt))[0]), 5);
  opt.dup = Dup::min;
  EXPECT_EQ(std::get<2>(triples(io::read_edge_list(path, opt))[0]), 1);
  opt.dup = Dup::error;
  EXPECT_EQ(error_of([&] { io::read_edge_list(path, opt); }),
            path +
                ":2: duplicate entry (0, 1) after symmetric expansion, first given on line 1 "
                "(duplicates are not allowed)");
  opt.nvertices = 5;
  opt.dup = Dup::sum;
  EXPECT_EQ(io::read_edge_list(path, opt).nrows(), 5);
  opt.nvertices = 2;
  EXPECT_NE(error_of([&] {
              io::read_edge_list(path, opt);
            }).find(":3: vertex 2 does not fit in nvertices = 2"),
            std::string::npos);
}

TEST(IoEdgeList, SkipHeaderLines) {
  const auto path = write_temp("h.txt", "nd nw\n0 1\n1 2\n");
  EXPECT_EQ(io::read_edge_list(path, {}, 1).nnz(), 2);
  EXPECT_EQ(error_of([&] { io::read_edge_list(path); }),
            path + ":1: vertex id 'nd' is not an integer");
}

TEST(IoEdgeList, Errors) {
  EXPECT_EQ(error_of([] { io::read_edge_list(write_temp("e1.txt", "0 1\n5\n")); }),
            write_temp("e1.txt", "0 1\n5\n") + ":2: expected 'src dst [weight]', found 1 field");
  const auto e2 = write_temp("e2.txt", "0 1 1.0 extra\n");
  EXPECT_EQ(error_of([&] { io::read_edge_list(e2); }),
            e2 + ":1: unexpected extra field 'extra' (expected 'src dst [weight]')");
  const auto e3 = write_temp("e3.txt", "0 1 heavy\n");
  EXPECT_EQ(error_of([&] { io::read_edge_list(e3); }),
            e3 + ":1: weight 'heavy' is not a real number");
  const auto e4 = write_temp("e4.txt", "1 2\n0 1\n");
  io::EdgeListOptions one;
  one.base = 1;
  EXPECT_EQ(error_of([&] { io::read_edge_list(e4, one); }),
            e4 + ":2: vertex id 0 out of range (ids are 1-based)");
  EXPECT_THROW(io::read_edge_list(e4 + ".missing"), IoError);
  io::EdgeListOptions bad;
  bad.base = 2;
  EXPECT_THROW(io::read_edge_list(e4, bad), InvalidValue);
}

TEST(IoGraph, HeaderDetection) {
  // "n m" that matches the edges that follow: a header.
  const auto nm = write_temp("nm.txt", "3 2\n5 7\n7 9\n");
  const Matrix a = io::read_graph(nm);
  EXPECT_EQ(a.nrows(), 3);
  EXPECT_EQ(triples(a), (std::vector<Triple>{{0, 1, 1}, {1, 0, 1}, {1, 2, 1}, {2, 1, 1}}));
  // "3 2" that does not match (3 edge lines follow): an edge.
  const Matrix b = io::read_graph(write_temp("edge.txt",
                                             "3 2\n5 7\n7 9\n"
                                             "9 5\n"));
  EXPECT_EQ(b.nrows(), 5);
  EXPECT_EQ(b.nnz(), 8);
  // Non-numeric first line: a header.
  EXPECT_EQ(io::read_graph(write_temp("nd.txt", "% c\nnd nw\n0 1\n")).nnz(), 2);
  // Values are 1.0 whatever the weights; ids compacted.
  const Matrix w = io::read_graph(write_temp("w.txt", "# x\n100 200 7.5\n"));
  EXPECT_EQ(triples(w), (std::vector<Triple>{{0, 1, 1}, {1, 0, 1}}));
  // A Matrix Market file is detected by its banner, whatever its name; pattern -> 1.0.
  const Matrix m = io::read_graph(
      write_temp("graph.txt", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n3 1\n"));
  EXPECT_EQ(triples(m), (std::vector<Triple>{{0, 2, 1}, {2, 0, 1}}));
  EXPECT_EQ(m.nrows(), 3);
  // An edge list with no edge is an error (issue 10, case 3), not a 0 x 0 graph.
  const auto empty = write_temp("empty.txt", "# nothing\n");
  EXPECT_EQ(error_of([&] { io::read_graph(empty); }),
            empty + ": no edges: the file is empty or holds only blank and comment lines (an "
                    "empty graph needs its vertex count given)");
  // A malformed first line is an error, never a header (issue 10, case 4).
  const auto neg = write_temp("neg.txt", "0 -1\n1 2\n");
  EXPECT_EQ(error_of([&] { io::read_graph(neg); }),
            neg + ":1: vertex id -1 out of range (ids are 0-based)");
  const auto x = write_temp("x.txt", "1 2 x\n1 2\n");
  EXPECT_EQ(error_of([&] { io::read_graph(x); }), x + ":1: weight 'x' is not a real number");
  // A BOM or blank line before the banner: still Matrix Market (issue 10, case 1).
  const Matrix bom = io::read_graph(write_temp(
      "bom.txt", "\xEF\xBB\xBF\n%%MatrixMarket matrix coordinate real general\n3 3 1\n3 1 -2\n"));
  EXPECT_EQ(triples(bom), (std::vector<Triple>{{2, 0, -2}}));
  const auto bad = write_temp("bad.txt", "%MatrixMarket matrix coordinate real general\n1 1 0\n");
  EXPECT_NE(error_of([&] { io::read_graph(bad); }).find(":1: malformed Matrix Market banner"),
            std::string::npos);
}

TEST(IoAbc, LabelsAndMaxWeight) {
  const auto path =
      write_temp("g.abc", "YAL001C\tYBR123C\t0.3\nYBR123C YAL001C 0.99\nYAL001C YZZ 1\nYQQ YQQ\n");
  std::vector<std::string> labels;
  const Matrix a = io::read_abc(path, &labels);
  a.check_invariants();
  EXPECT_EQ(labels, (std::vector<std::string>{"YAL001C", "YBR123C", "YZZ", "YQQ"}));
  EXPECT_EQ(triples(a),
            (std::vector<Triple>{{0, 1, 0.99}, {0, 2, 1}, {1, 0, 0.99}, {2, 0, 1}, {3, 3, 1}}));
  const Matrix d = io::read_abc(path, nullptr, false);
  EXPECT_EQ(triples(d), (std::vector<Triple>{{0, 1, 0.3}, {0, 2, 1}, {1, 0, 0.99}, {3, 3, 1}}));
  const auto bad = write_temp("bad.abc", "a b c\n");
  EXPECT_EQ(error_of([&] { io::read_abc(bad); }), bad + ":1: weight 'c' is not a real number");
}

TEST(IoAbc, KroganCore) {
  const std::string path = std::string(RINGBLAS_REPO_DATA_DIR) + "/mcl/krogan2006_core.txt.gz";
  std::vector<std::string> labels;
  const Matrix a = io::read_abc(path, &labels);
  a.check_invariants();
  // shared/data/README.md §6: 2,708 proteins, 7,123 edges.
  EXPECT_EQ(labels.size(), 2708u);
  EXPECT_EQ(a.nrows(), 2708);
  Index loops = 0;
  const auto rp = a.row_ptr_vector();
  const auto ci = a.col_idx_vector();
  for (Index i = 0; i < a.nrows(); ++i)
    for (Index p = rp[i]; p < rp[i + 1]; ++p) loops += ci[p] == i;
  EXPECT_EQ((a.nnz() + loops) / 2, 7123);
}

}  // namespace
