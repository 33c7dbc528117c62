// The Planetoid reader (algorithms/planetoid_io.hpp) and `ringblas gcn`: formats, the errors that
// name file:line, and a short training run through the command line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "algorithms/planetoid_io.hpp"
#include "ringblas/error.hpp"
#include "test_cli_support.hpp"

namespace ringblas::test {
namespace {

namespace fs = std::filesystem;

/// A 6-node Planetoid folder "toy" under a fresh temporary directory; `edit` may change files.
fs::path toy_dir(const std::string& tag, bool features = true) {
  const fs::path dir = test_cli::temp_dir() / ("planetoid_" + tag);
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "toy_adj.mtx") << "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                        "6 6 5\n2 1\n3 2\n4 3\n5 4\n6 5\n";
  if (features)
    std::ofstream(dir / "toy_features.mtx") << "%%MatrixMarket matrix coordinate pattern "
                                               "general\n6 3 6\n1 1\n2 2\n3 3\n4 1\n5 2\n6 3\n";
  std::ofstream(dir / "toy_labels.txt") << "0\n1\n2\n0\n1\n-1\n";
  std::ofstream(dir / "toy_split_train.txt") << "0\n1\n2\n";
  std::ofstream(dir / "toy_split_val.txt") << "3\n";
  std::ofstream(dir / "toy_split_test.txt") << "4\n";
  return dir;
}

template <class E>
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no exception of the expected type";
  return {};
}

TEST(PlanetoidIo, ReadsTheToyFolder) {
  const planetoid::Dataset d = planetoid::read(toy_dir("ok").string());
  EXPECT_EQ(d.name, "toy");
  EXPECT_EQ(d.adjacency.nrows(), 6);
  EXPECT_EQ(d.adjacency.nnz(), 10);
  EXPECT_TRUE(d.has_features);
  EXPECT_EQ(d.features.ncols(), 3);
  EXPECT_EQ(d.classes, 3);
  EXPECT_EQ(d.labels[5], -1);
  EXPECT_EQ(d.train, (std::vector<std::int32_t>{0, 1, 2}));
}

TEST(PlanetoidIo, ErrorsNameTheFileAndLine) {
  {
    const fs::path dir = toy_dir("parse");
    std::ofstream(dir / "toy_labels.txt") << "0\n1\nx2\n0\n1\n1\n";
    const std::string m = message_of<ParseError>([&] { planetoid::read(dir.string()); });
    EXPECT_NE(m.find("toy_labels.txt:3: expected one integer, found `x2`"), std::string::npos) << m;
  }
  {
    const fs::path dir = toy_dir("range");
    std::ofstream(dir / "toy_split_test.txt") << "4\n6\n";
    const std::string m = message_of<InvalidIndex>([&] { planetoid::read(dir.string()); });
    EXPECT_NE(m.find("toy_split_test.txt:2: node id 6 is out of range 0..5"), std::string::npos)
        << m;
  }
  {
    const fs::path dir = toy_dir("unlabeled");
    std::ofstream(dir / "toy_split_val.txt") << "5\n";
    const std::string m = message_of<InvalidIndex>([&] { planetoid::read(dir.string()); });
    EXPECT_NE(m.find("toy_split_val.txt:1: node 5 has no label"), std::string::npos) << m;
  }
  {
    const fs::path dir = toy_dir("label");
    std::ofstream(dir / "toy_labels.txt") << "0\n1\n-2\n0\n1\n1\n";
    const std::string m = message_of<InvalidIndex>([&] { planetoid::read(dir.string()); });
    EXPECT_NE(m.find("toy_labels.txt:3: label -2"), std::string::npos) << m;
  }
  {
    const fs::path dir = toy_dir("count");
    std::ofstream(dir / "toy_labels.txt") << "0\n1\n";
    EXPECT_THROW(planetoid::read(dir.string()), InvalidValue);
  }
  {
    const fs::path dir = toy_dir("missing");
    fs::remove(dir / "toy_split_train.txt");
    const std::string m = message_of<IoError>([&] { planetoid::read(dir.string()); });
    EXPECT_NE(m.find("missing file"), std::string::npos) << m;
    EXPECT_NE(m.find("toy_split_train.txt"), std::string::npos) << m;
  }
}

TEST(GcnCli, TrainsTheToyFolderAndPrintsEveryEpoch) {
  const auto r = test_cli::run_cli(
      {"gcn", toy_dir("cli").string(), "--epochs", "5", "--hidden", "4", "--backend", "cpu"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Epoch: 0001 train_loss="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Epoch: 0005 train_loss="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("test accuracy: "), std::string::npos) << r.out;
}

TEST(GcnCli, IdentityFeaturesAreStated) {
  const auto r = test_cli::run_cli(
      {"gcn", toy_dir("nofeat", false).string(), "--epochs", "2", "--backend", "cpu"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("one-hot identity features (6 x 6"), std::string::npos) << r.out;
}

TEST(GcnCli, MaxKTrainsAndTuLayoutIsNotImplementedYet) {
  const auto m = test_cli::run_cli({"gcn", toy_dir("maxk").string(), "--maxk", "2", "--epochs",
                                    "3", "--hidden", "4", "--backend", "cpu"});
  EXPECT_EQ(m.code, 0) << m.err;
  EXPECT_NE(m.out.find("test accuracy: "), std::string::npos) << m.out;
  const auto too_many = test_cli::run_cli(
      {"gcn", toy_dir("maxk").string(), "--maxk", "5", "--hidden", "4", "--backend", "cpu"});
  EXPECT_EQ(too_many.code, 1);
  EXPECT_NE(too_many.err.find("maxk"), std::string::npos) << too_many.err;
  const fs::path tu = test_cli::temp_dir() / "tu_toy";
  fs::create_directories(tu);
  std::ofstream(tu / "toy_A.txt") << "1, 2\n2, 1\n";
  const auto t = test_cli::run_cli({"gcn", tu.string()});
  EXPECT_EQ(t.code, 1);  // TU layout goes to graph classification, which names the missing file
  EXPECT_NE(t.err.find("toy_graph_indicator.txt"), std::string::npos) << t.err;
  const auto bad = test_cli::run_cli({"gcn", toy_dir("bad").string(), "--dropout", "1"});
  EXPECT_EQ(bad.code, 2);
  const auto none = test_cli::run_cli({"gcn", test_cli::temp_dir().string() + "/does_not_exist"});
  EXPECT_EQ(none.code, 1);
}

}  // namespace
}  // namespace ringblas::test
