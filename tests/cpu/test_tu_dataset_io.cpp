// The TU-layout reader: tiny hand-written sets in tests/data/tu, malformed copies of them, and the
// real Tox21 and MUTAG copies in the shared data.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "algorithms/tu_dataset_io.hpp"
#include "ringblas/error.hpp"

namespace {

namespace fs = std::filesystem;
using namespace ringblas;

const std::string kRepoTu = std::string(RINGBLAS_REPO_DATA_DIR) + "/tu";
const std::string kShared = RINGBLAS_DATA_DIR;

std::vector<std::pair<Index, Index>> entries(const Matrix& a) {
  const auto rp = a.row_ptr_vector();
  const auto ci = a.col_idx_vector();
  std::vector<std::pair<Index, Index>> out;
  for (Index i = 0; i < a.nrows(); ++i)
    for (Index p = rp[i]; p < rp[i + 1]; ++p) out.emplace_back(i, ci[p]);
  return out;
}

TEST(TuDatasetIo, MultiTaskToy) {
  const tu::Dataset ds = tu::read_dataset(kRepoTu + "/toy_multitask");
  EXPECT_EQ(ds.name, "TOYM");
  EXPECT_EQ(ds.num_nodes, 6);
  EXPECT_EQ(ds.num_graphs, 3);
  EXPECT_EQ(ds.graph_ptr, (std::vector<Index>{0, 3, 4, 6}));
  EXPECT_TRUE(ds.symmetric);
  EXPECT_EQ(entries(ds.adjacency),
            (std::vector<std::pair<Index, Index>>{{0, 1}, {1, 0}, {1, 2}, {2, 1}, {4, 5}, {5, 4}}));
  EXPECT_EQ(ds.num_tasks, 2);
  EXPECT_EQ(ds.task_names, (std::vector<std::string>{"T1", "T2"}));
  ASSERT_EQ(ds.targets.size(), 6u);
  EXPECT_EQ(ds.targets[0], 0.0f);
  EXPECT_EQ(ds.targets[1], 1.0f);
  EXPECT_TRUE(std::isnan(ds.targets[2]));  // graph 2, T1 blank
  EXPECT_EQ(ds.targets[3], 1.0f);
  EXPECT_EQ(ds.targets[4], 1.0f);
  EXPECT_TRUE(std::isnan(ds.targets[5]));  // graph 3, T2 blank

  std::vector<std::int64_t> values;
  const DenseMatrix x = tu::one_hot_node_labels(ds, &values);
  EXPECT_EQ(values, (std::vector<std::int64_t>{6, 7, 8, 17}));
  ASSERT_EQ(x.nrows(), 6);
  ASSERT_EQ(x.ncols(), 4);
  const std::vector<Index> col_of_node{0, 2, 0, 3, 0, 1};
  for (Index i = 0; i < 6; ++i)
    for (Index c = 0; c < 4; ++c) EXPECT_EQ(x.at<float>(i, c), c == col_of_node[i] ? 1.0f : 0.0f);

  const std::vector<Matrix> blocks = tu::graph_blocks(ds.adjacency, ds.graph_ptr);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(entries(blocks[0]),
            (std::vector<std::pair<Index, Index>>{{0, 1}, {1, 0}, {1, 2}, {2, 1}}));
  EXPECT_EQ(blocks[1].nrows(), 1);
  EXPECT_EQ(blocks[1].nnz(), 0);  // a graph of one atom: no edge
  EXPECT_EQ(entries(blocks[2]), (std::vector<std::pair<Index, Index>>{{0, 1}, {1, 0}}));
}

TEST(TuDatasetIo, SingleLabelToyGzip) {
  const tu::Dataset ds = tu::read_dataset(kRepoTu + "/toy_single");  // A is gzip
  EXPECT_EQ(ds.name, "TOYS");
  EXPECT_EQ(ds.num_graphs, 3);
  EXPECT_EQ(ds.adjacency.nnz(), 12);
  EXPECT_EQ(ds.num_tasks, 1);  // two classes -1, 1: one 0/1 task
  EXPECT_EQ(ds.task_names, (std::vector<std::string>{"class=1"}));
  EXPECT_EQ(ds.targets, (std::vector<float>{1, 0, 1}));
}

/// Copies a toy set to a fresh temporary folder, rewrites one file and expects a ParseError that
/// contains `expect` (e.g. "TOYM_A.txt:3:").
class TuMalformed : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ringblas_tu_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const auto& e : fs::directory_iterator(kRepoTu + "/toy_multitask"))
      fs::copy_file(e.path(), dir_ / e.path().filename());
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& file, const std::string& text) {
    std::ofstream(dir_ / file, std::ios::binary) << text;
  }
  void expect_error(const std::string& expect) {
    try {
      tu::read_dataset(dir_.string());
      FAIL() << "no error; expected one containing " << expect;
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  }
  fs::path dir_;
};

TEST_F(TuMalformed, EdgeNotANumber) {
  write("TOYM_A.txt", "1, 2\n2, 1\n2, x\n");
  expect_error("TOYM_A.txt:3: expected two integer node ids");
}
TEST_F(TuMalformed, EdgeWithoutComma) {
  write("TOYM_A.txt", "1 2\n");
  expect_error("TOYM_A.txt:1: expected 'i, j'");
}
TEST_F(TuMalformed, NodeIdOutOfRange) {
  write("TOYM_A.txt", "1, 2\n2, 7\n");
  expect_error("TOYM_A.txt:2: node id 7 out of range 1..6");
}
TEST_F(TuMalformed, NodeIdZero) {
  write("TOYM_A.txt", "0, 1\n");
  expect_error("TOYM_A.txt:1: node id 0 out of range");
}
TEST_F(TuMalformed, EdgeBetweenGraphs) {
  write("TOYM_A.txt", "1, 2\n3, 5\n");
  expect_error("TOYM_A.txt:2: edge 3, 5 joins graph 1 and graph 3");
}
TEST_F(TuMalformed, RepeatedEdge) {
  write("TOYM_A.txt", "1, 2\n2, 1\n1, 2\n");
  expect_error("TOYM_A.txt:3: edge 1, 2 repeats line 1");
}
TEST_F(TuMalformed, BlankLine) {
  write("TOYM_A.txt", "1, 2\n\n2, 1\n");
  expect_error("TOYM_A.txt:2: blank line");
}
TEST_F(TuMalformed, GraphIdsNotConsecutive) {
  write("TOYM_graph_indicator.txt", "1\n2\n1\n2\n3\n3\n");
  expect_error("TOYM_graph_indicator.txt:3: graph id 1 after 2");
}
TEST_F(TuMalformed, GraphWithoutNodes) {
  write("TOYM_graph_indicator.txt", "1\n1\n1\n3\n3\n3\n");
  expect_error("TOYM_graph_indicator.txt:4: graph id 3 after 1: graph 2 has no nodes");
}
TEST_F(TuMalformed, NodeLabelCount) {
  write("TOYM_node_labels.txt", "6\n8\n6\n17\n6\n");
  expect_error("TOYM_node_labels.txt: 5 lines but there are 6 node labels");
}
TEST_F(TuMalformed, NodeLabelNotInteger) {
  write("TOYM_node_labels.txt", "6\n8\n6.5\n17\n6\n7\n");
  expect_error("TOYM_node_labels.txt:3: not an integer node label");
}
TEST_F(TuMalformed, CsvLabelNotBinary) {
  write("TOYM_graph_labels.csv", "csv_row,T1,T2\n1,0,1\n2,2,1\n3,1,\n");
  expect_error("TOYM_graph_labels.csv:3: task T1: '2' is not 0, 1 or blank");
}
TEST_F(TuMalformed, CsvFieldCount) {
  write("TOYM_graph_labels.csv", "csv_row,T1,T2\n1,0,1\n2,1\n3,1,\n");
  expect_error("TOYM_graph_labels.csv:3: 2 fields, the header has 3");
}
TEST_F(TuMalformed, CsvRowCount) {
  write("TOYM_graph_labels.csv", "csv_row,T1,T2\n1,0,1\n2,,1\n");
  expect_error("TOYM_graph_labels.csv: 2 label rows but there are 3 graphs");
}
TEST_F(TuMalformed, MissingIndicatorIsIoError) {
  fs::remove(dir_ / "TOYM_graph_indicator.txt");
  EXPECT_THROW(tu::read_dataset(dir_.string()), IoError);
}
TEST_F(TuMalformed, NotSymmetricIsReported) {
  write("TOYM_A.txt", "1, 2\n2, 1\n2, 3\n");
  EXPECT_FALSE(tu::read_dataset(dir_.string()).symmetric);
}

bool have_shared(const std::string& rel) { return fs::exists(kShared + "/" + rel); }

TEST(TuDatasetIoData, Tox21) {
  if (!have_shared("molecules/tox21_graphs"))
    GTEST_SKIP() << "shared data not found at " << kShared;
  const tu::Dataset ds = tu::read_dataset(kShared + "/molecules/tox21_graphs");
  // Counts from shared/data/README.md: 7,831 molecules, 145,459 atoms, 151,095 bonds.
  EXPECT_EQ(ds.num_graphs, 7831);
  EXPECT_EQ(ds.num_nodes, 145459);
  EXPECT_EQ(ds.adjacency.nnz(), 2 * 151095);
  EXPECT_TRUE(ds.symmetric);
  EXPECT_EQ(ds.num_tasks, 12);
  EXPECT_EQ(ds.task_names.front(), "NR-AR");
  EXPECT_EQ(ds.task_names.back(), "SR-p53");
  // The first row is "2,0,0,1,,,0,0,1,0,0,0,0".
  EXPECT_EQ(ds.targets[2], 1.0f);
  EXPECT_TRUE(std::isnan(ds.targets[3]));
  EXPECT_TRUE(std::isnan(ds.targets[4]));
  std::vector<std::int64_t> values;
  const DenseMatrix x = tu::one_hot_node_labels(ds, &values);
  EXPECT_EQ(x.ncols(), 51);  // distinct atomic numbers
}

TEST(TuDatasetIoData, Mutag) {
  if (!have_shared("molecules/tudataset/MUTAG"))
    GTEST_SKIP() << "shared data not found at " << kShared;
  const tu::Dataset ds = tu::read_dataset(kShared + "/molecules/tudataset/MUTAG");
  EXPECT_EQ(ds.num_graphs, 188);
  EXPECT_EQ(ds.num_nodes, 3371);
  EXPECT_EQ(ds.num_tasks, 1);
  EXPECT_TRUE(ds.symmetric);
  EXPECT_EQ(tu::one_hot_node_labels(ds).ncols(), 7);  // C N O F I Cl Br
}

TEST(TuDatasetIoData, Enzymes) {
  if (!have_shared("molecules/tudataset/ENZYMES"))
    GTEST_SKIP() << "shared data not found at " << kShared;
  const tu::Dataset ds = tu::read_dataset(kShared + "/molecules/tudataset/ENZYMES");
  EXPECT_EQ(ds.num_graphs, 600);
  EXPECT_EQ(ds.num_nodes, 19580);
  EXPECT_EQ(ds.num_tasks, 6);  // six classes, one-vs-rest
  for (Index g = 0; g < ds.num_graphs; ++g) {
    float sum = 0;
    for (Index t = 0; t < 6; ++t) sum += ds.targets[static_cast<std::size_t>(g * 6 + t)];
    EXPECT_EQ(sum, 1.0f);
  }
}

}  // namespace
