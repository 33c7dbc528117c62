// io::read_mci on mcl's example files and on broken input (file:line errors).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ringblas/ringblas.hpp"

namespace {

using namespace ringblas;

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}

const std::string kHeader = "(mclheader\nmcltype matrix\ndimensions 3x3\n)\n(mclmatrix\nbegin\n";

TEST(IoMci, ReadsColumnsWithAndWithoutValues) {
  const std::string p = write_temp(
      "ringblas_mci_ok.mci", "some text first\n" + kHeader + "0 1:0.5 2 $\n2  0:3 # note\n $\n)\n");
  const Matrix a = io::read_mci(p);
  EXPECT_EQ(a.nrows(), 3);
  EXPECT_EQ(a.nnz(), 3);
  // Column 0 holds rows 1 (0.5) and 2 (1.0); column 2 holds row 0 (3): A(r, c).
  EXPECT_EQ(a.row_ptr_vector(), (std::vector<Index>{0, 1, 2, 3}));
  EXPECT_EQ(a.col_idx_vector(), (std::vector<Index>{2, 0, 0}));
  EXPECT_EQ(a.values_vector<double>(), (std::vector<double>{3.0, 0.5, 1.0}));
}

TEST(IoMci, SmallExampleHasItsEdges) {
  const std::string path = std::string(RINGBLAS_DATA_DIR) + "/mcl/debian_mcl_examples/small.mci";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not found";
  const Matrix a = io::read_mci(path);
  EXPECT_EQ(a.nrows(), 12);
  EXPECT_EQ(a.nnz(), 40);  // 40 entries in the 12 columns of small.mci
}

void expect_parse_error(const std::string& body, const std::string& where,
                        const std::string& what) {
  const std::string p = write_temp("ringblas_mci_bad.mci", kHeader + body);
  try {
    io::read_mci(p);
    FAIL() << "expected ParseError for " << body;
  } catch (const ParseError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(where), std::string::npos) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  }
}

TEST(IoMci, BadInputNamesFileAndLine) {
  expect_parse_error("0 5 $\n)\n", "ringblas_mci_bad.mci:7", "row index 5 out of range");
  expect_parse_error("0 1 $\n3 1 $\n)\n", ":8", "column index 3 out of range");
  expect_parse_error("0 1 $\n0 2 $\n)\n", ":8", "column 0 given twice, first on line 7");
  expect_parse_error("0 1 1 $\n)\n", ":7", "duplicate");
  expect_parse_error("0 1:x $\n)\n", ":7", "value 'x'");
  expect_parse_error("0 1\n", ":", "missing '$'");
  expect_parse_error("0 1 $\n", ":", "missing ')'");
  const std::string p = write_temp("ringblas_mci_nohdr.mci", "0 1 $\n");
  EXPECT_THROW(io::read_mci(p), ParseError);
}

}  // namespace
