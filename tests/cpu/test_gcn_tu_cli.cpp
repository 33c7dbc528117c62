// `ringblas gcn DIR` on TU-layout folders: MUTAG trains and prints the per-epoch lines, the
// per-task values and the final mean test ROC-AUC; errors exit 1 naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "test_cli_support.hpp"

namespace {

using namespace ringblas::test_cli;
const std::string kShared = RINGBLAS_DATA_DIR;

TEST(GcnTuCli, MutagPrintsEpochsAndTestRocAuc) {
  const std::string dir = kShared + "/molecules/tudataset/MUTAG";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no MUTAG at " << dir;
  const RunResult r = run_cli({"gcn", dir, "--epochs", "3", "--hidden", "16", "--layers", "2",
                               "--lr", "0.01", "--dropout", "0", "--backend", "cpu"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("data: MUTAG (TU layout), 188 graphs, 3371 nodes"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("split: random 80/10/10 with seed 0: train/val/test 150/18/20"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("epoch +3  loss [0-9.]+"))) << r.out;
  EXPECT_NE(r.out.find("  class=1 "), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\ntest ROC-AUC: [01]\\.[0-9]{4}\n"))) << r.out;
}

TEST(GcnTuCli, MalformedFileExitsOneNamingTheLine) {
  const auto dir = temp_dir() / "tu_bad";
  std::filesystem::create_directories(dir);
  for (const auto& e : std::filesystem::directory_iterator(std::string(RINGBLAS_REPO_DATA_DIR) +
                                                           "/tu/toy_multitask"))
    std::filesystem::copy_file(e.path(), dir / e.path().filename(),
                               std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "TOYM_A.txt") << "1, 2\n2, 9\n";
  const RunResult r = run_cli({"gcn", dir.string(), "--epochs", "1", "--backend", "cpu"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("TOYM_A.txt:2: node id 9 out of range 1..6"), std::string::npos) << r.err;
}

}  // namespace
