// Matrix Market reader and writer: round trips of every type, symmetric / skew / array
// expansion with hand-checked values, and every class of bad input with its "file:line" message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"

namespace {

using namespace ringblas;

Matrix parse(const std::string& text, io::MatrixInfo* info = nullptr) {
  std::istringstream in(text);
  return io::read_matrix_market(in, "bad.mtx", info);
}

/// The ParseError message of reading `text` (fails the test when nothing is thrown).
std::string parse_error(const std::string& text) {
  try {
    parse(text);
  } catch (const ParseError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no exception";
}

#define EXPECT_PARSE_ERROR(text, fragment)                                    \
  do {                                                                        \
    const std::string msg_ = parse_error(text);                               \
    EXPECT_NE(msg_.find(fragment), std::string::npos) << "message: " << msg_; \
  } while (0)

std::filesystem::path temp_path(const std::string& name) {
  auto dir =
      std::filesystem::temp_directory_path() / ("ringblas_test_io_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

struct Entry {
  Index i, j;
  double v;
  bool operator==(const Entry&) const = default;
};

std::vector<Entry> entries(const Matrix& a) {
  const auto rp = a.row_ptr_vector();
  const auto ci = a.col_idx_vector();
  const auto v = a.cast(Type::fp64).values_vector<double>();
  std::vector<Entry> out;
  for (Index i = 0; i < a.nrows(); ++i)
    for (Index p = rp[i]; p < rp[i + 1]; ++p) out.push_back({i, ci[p], v[p]});
  return out;
}

/// A seeded random nrows x ncols matrix of T with about `density` of the positions filled.
template <class T>
Matrix random_matrix(Index nrows, Index ncols, double density, unsigned seed) {
  std::vector<Index> r, c;
  std::vector<T> v;
  unsigned s = seed;
  auto next = [&] { return s = s * 1103515245u + 12345u, (s >> 8) & 0xffff; };
  for (Index i = 0; i < nrows; ++i)
    for (Index j = 0; j < ncols; ++j)
      if (next() < density * 65536) {
        r.push_back(i);
        c.push_back(j);
        const double x = (static_cast<double>(next()) - 30000.0) / 7.0;
        if constexpr (std::is_same_v<T, bool>)
          v.push_back(next() % 3 != 0);
        else if constexpr (std::is_floating_point_v<T>)
          v.push_back(static_cast<T>(x / 3.0));
        else
          v.push_back(static_cast<T>(x));
      }
  return Matrix::from_triplets<T>(nrows, ncols, r, c, v);
}

template <class T>
void expect_round_trip(const Matrix& a) {
  std::ostringstream out;
  io::write_matrix_market(out, a);
  io::MatrixInfo info;
  const Matrix b = parse(out.str(), &info);
  b.check_invariants();
  ASSERT_EQ(b.nrows(), a.nrows());
  ASSERT_EQ(b.ncols(), a.ncols());
  ASSERT_EQ(b.nnz(), a.nnz());
  EXPECT_EQ(b.row_ptr_vector(), a.row_ptr_vector());
  EXPECT_EQ(b.col_idx_vector(), a.col_idx_vector());
  if constexpr (std::is_floating_point_v<T>) {
    EXPECT_EQ(info.field, io::Field::real);
    EXPECT_EQ(b.type(), Type::fp64);
    // 17 significant digits: the read value converts back to exactly the written one.
    EXPECT_EQ(b.cast(type_of_v<T>).template values_vector<T>(), a.template values_vector<T>());
  } else {
    EXPECT_EQ(info.field, io::Field::integer);
    EXPECT_EQ(b.type(), Type::int64);
    EXPECT_EQ(b.values_vector<std::int64_t>(), a.cast(Type::int64).values_vector<std::int64_t>());
  }
  // Pattern: same structure, every value true.
  std::ostringstream pout;
  io::write_matrix_market(pout, a, true);
  EXPECT_NE(pout.str().find("coordinate pattern general"), std::string::npos);
  const Matrix p = parse(pout.str(), &info);
  EXPECT_EQ(info.field, io::Field::pattern);
  EXPECT_EQ(p.type(), Type::boolean);
  EXPECT_EQ(p.col_idx_vector(), a.col_idx_vector());
  for (bool x : p.values_vector<bool>()) EXPECT_TRUE(x);
}

TEST(IoMatrixMarket, RoundTripEveryType) {
  expect_round_trip<double>(random_matrix<double>(37, 23, 0.2, 1));
  expect_round_trip<float>(random_matrix<float>(23, 37, 0.2, 2));
  expect_round_trip<std::int64_t>(random_matrix<std::int64_t>(30, 30, 0.3, 3));
  expect_round_trip<std::int32_t>(random_matrix<std::int32_t>(10, 50, 0.1, 4));
  expect_round_trip<bool>(random_matrix<bool>(40, 9, 0.5, 5));
  expect_round_trip<double>(Matrix(0, 0));
  expect_round_trip<double>(Matrix(5, 0));
  expect_round_trip<double>(Matrix(0, 7));
  expect_round_trip<double>(Matrix(4, 6));  // no entries
}

TEST(IoMatrixMarket, RoundTripExtremeDoubles) {
  const std::vector<double> vals = {0.1,
                                    -1.0 / 3.0,
                                    std::numeric_limits<double>::max(),
                                    std::numeric_limits<double>::lowest(),
                                    std::numeric_limits<double>::denorm_min(),
                                    std::numeric_limits<double>::min(),
                                    std::numeric_limits<double>::infinity(),
                                    -0.0,
                                    123456789.123456789};
  std::vector<Index> r, c;
  for (std::size_t k = 0; k < vals.size(); ++k) r.push_back(static_cast<Index>(k)), c.push_back(0);
  const Matrix a = Matrix::from_triplets<double>(static_cast<Index>(vals.size()), 1, r, c, vals);
  std::ostringstream out;
  io::write_matrix_market(out, a);
  const auto back = parse(out.str()).values_vector<double>();
  ASSERT_EQ(back.size(), vals.size());
  for (std::size_t k = 0; k < vals.size(); ++k) {
    EXPECT_EQ(back[k], vals[k]) << k;
    EXPECT_EQ(std::signbit(back[k]), std::signbit(vals[k])) << k;
  }
}

TEST(IoMatrixMarket, RoundTripThroughPlainAndGzipFiles) {
  const Matrix a = random_matrix<double>(50, 40, 0.1, 7);
  for (const char* name : {"rt.mtx", "rt.mtx.gz"}) {
    const auto path = temp_path(name).string();
    io::write_matrix_market(path, a);
    std::ifstream f(path, std::ios::binary);
    const int b0 = f.get(), b1 = f.get();
    EXPECT_EQ(b0 == 0x1f && b1 == 0x8b, std::string(name).ends_with(".gz")) << name;
    EXPECT_EQ(entries(io::read_matrix_market(path)), entries(a)) << name;
  }
  // gzip is detected by its magic bytes, not by the name.
  const auto gz = temp_path("rt.mtx.gz"), renamed = temp_path("renamed.mtx");
  std::filesystem::copy_file(gz, renamed, std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(entries(io::read_matrix_market(renamed.string())), entries(a));
}

TEST(IoMatrixMarket, WriterFormat) {
  const Matrix a = Matrix::from_triplets<double>(2, 3, {0, 1}, {2, 0}, {0.1, -2.0});
  std::ostringstream out;
  io::write_matrix_market(out, a);
  EXPECT_EQ(
      out.str(),
      "%%MatrixMarket matrix coordinate real general\n2 3 2\n1 3 0.10000000000000001\n2 1 -2\n");
  const Matrix b = Matrix::from_triplets<bool>(2, 2, {0, 1}, {1, 1}, {true, false});
  std::ostringstream bout;
  io::write_matrix_market(bout, b);
  EXPECT_EQ(bout.str(), "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 1\n2 2 0\n");
}

TEST(IoMatrixMarket, DenseRoundTrip) {
  const DenseMatrix d = DenseMatrix::from_values<double>(2, 3, {1, 2, 3, 4, 5, 6});
  const auto path = temp_path("dense.mtx").string();
  io::write_dense_matrix_market(path, d);
  const DenseMatrix e = io::read_dense_matrix_market(path);
  ASSERT_EQ(e.nrows(), 2);
  ASSERT_EQ(e.ncols(), 3);
  for (Index i = 0; i < 2; ++i)
    for (Index j = 0; j < 3; ++j) EXPECT_EQ(e.at<double>(i, j), d.at<double>(i, j));
  // A coordinate file read densely: zeros where nothing is stored.
  const auto sparse = temp_path("sparse_for_dense.mtx").string();
  io::write_matrix_market(sparse, Matrix::from_triplets<std::int64_t>(2, 2, {1}, {0}, {7}));
  const DenseMatrix f = io::read_dense_matrix_market(sparse);
  EXPECT_EQ(f.type(), Type::int64);
  EXPECT_EQ(f.at<std::int64_t>(0, 0), 0);
  EXPECT_EQ(f.at<std::int64_t>(1, 0), 7);
}

TEST(IoMatrixMarket, SymmetricExpansion) {
  io::MatrixInfo info;
  const Matrix a = parse(
      "%%MatrixMarket matrix coordinate real symmetric\n% comment\n3 3 3\n1 1 4\n2 1 -1.5\n3 2 2\n",
      &info);
  EXPECT_EQ(info.symmetry, io::Symmetry::symmetric);
  EXPECT_EQ(info.stored_entries, 3);
  const std::vector<Entry> want = {{0, 0, 4}, {0, 1, -1.5}, {1, 0, -1.5}, {1, 2, 2}, {2, 1, 2}};
  EXPECT_EQ(entries(a), want);
}

TEST(IoMatrixMarket, SkewSymmetricExpansion) {
  const Matrix a =
      parse("%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 5\n3 2 -1\n");
  EXPECT_EQ(a.type(), Type::int64);
  const std::vector<Entry> want = {{0, 1, -5}, {1, 0, 5}, {1, 2, 1}, {2, 1, -1}};
  EXPECT_EQ(entries(a), want);
}

TEST(IoMatrixMarket, ArrayFormats) {
  io::MatrixInfo info;
  // Column-major; every element is an entry, zeros included.
  const Matrix g = parse("%%MatrixMarket matrix array real general\n2 2\n1\n0\n3\n4\n", &info);
  EXPECT_TRUE(info.array_format);
  EXPECT_EQ(entries(g), (std::vector<Entry>{{0, 0, 1}, {0, 1, 3}, {1, 0, 0}, {1, 1, 4}}));
  const Matrix s = parse("%%MATRIXMARKET MATRIX ARRAY INTEGER SYMMETRIC\n2 2\n1\n2\n3\n");
  EXPECT_EQ(entries(s), (std::vector<Entry>{{0, 0, 1}, {0, 1, 2}, {1, 0, 2}, {1, 1, 3}}));
  const Matrix k = parse("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n");
  EXPECT_EQ(entries(k), (std::vector<Entry>{
                            {0, 1, -1}, {0, 2, -2}, {1, 0, 1}, {1, 2, -3}, {2, 0, 2}, {2, 1, 3}}));
}

TEST(IoMatrixMarket, PatternAndBlankLinesAndCrLf) {
  const Matrix a =
      parse("%%MatrixMarket matrix coordinate pattern general\r\n\r\n2 2 2\r\n1 2\r\n\n2 1  \r\n");
  EXPECT_EQ(a.type(), Type::boolean);
  EXPECT_EQ(entries(a), (std::vector<Entry>{{0, 1, 1}, {1, 0, 1}}));
}

TEST(IoMatrixMarketErrors, WithPathAndLine) {
  const auto path = temp_path("broken.mtx").string();
  {
    std::ofstream f(path);
    f << "%%MatrixMarket matrix coordinate real general\n%c\n8 8 2\n1 1 1\n2 9 1\n";
  }
  try {
    io::read_matrix_market(path);
    FAIL() << "no exception";
  } catch (const ParseError& e) {
    EXPECT_EQ(std::string(e.what()), path + ":5: column index 9 out of range 1..8");
    EXPECT_EQ(e.code(), ErrorCode::parse_error);
  }
  EXPECT_THROW(io::read_matrix_market(temp_path("does-not-exist.mtx").string()), IoError);
}

TEST(IoMatrixMarketErrors, Banner) {
  EXPECT_PARSE_ERROR("", "bad.mtx:1: empty file");
  EXPECT_PARSE_ERROR("3 3 1\n1 1 1\n", "bad.mtx:1: missing Matrix Market banner");
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix coordinate real\n1 1 0\n",
                     "bad.mtx:1: malformed banner");
  EXPECT_PARSE_ERROR("%%MatrixMarket vector coordinate real general\n",
                     ":1: unknown object 'vector'");
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix sparse real general\n", ":1: unknown format 'sparse'");
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix coordinate quaternion general\n",
                     ":1: unknown field 'quaternion'");
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix coordinate real upper\n",
                     ":1: unknown symmetry 'upper'");
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
                     ":1: complex matrices are not supported");
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix coordinate real hermitian\n",
                     ":1: hermitian matrices are not supported");
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix array pattern general\n", ":1: 'array pattern'");
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix coordinate pattern skew-symmetric\n",
                     ":1: 'pattern skew-symmetric'");
}

TEST(IoMatrixMarketErrors, SizeLine) {
  const std::string b = "%%MatrixMarket matrix coordinate real general\n";
  EXPECT_PARSE_ERROR(b, "bad.mtx:1: file ends before the size line");
  EXPECT_PARSE_ERROR(b + "% only a comment\n", "bad.mtx:2: file ends before the size line");
  EXPECT_PARSE_ERROR(b + "3 3\n", "bad.mtx:2: bad size line '3 3'");
  EXPECT_PARSE_ERROR(b + "3 3 1 1\n", "bad.mtx:2: bad size line");
  EXPECT_PARSE_ERROR(b + "3 x 1\n", "bad.mtx:2: column count 'x' is not an integer");
  EXPECT_PARSE_ERROR(b + "-3 3 1\n", "bad.mtx:2: row count -3 is negative");
  EXPECT_PARSE_ERROR(b + "3 3 1.5\n", "bad.mtx:2: entry count '1.5' is not an integer");
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n",
                     "bad.mtx:2: a symmetric or skew-symmetric matrix must be square, not 3 x 4");
  // An array larger than the memory budget is refused before anything is read (from a stream,
  // whose size is unknown; a file of known size says it cannot hold the values).
  std::istringstream arr("%%MatrixMarket matrix array real general\n100000000 100000\n1\n");
  EXPECT_THROW(io::read_matrix_market(arr, "bad.mtx"), OutOfMemory);
  // The allocation guard: row pointers are sized from the size line before any entry is read.
  std::istringstream in(b + "1000000000 2 0\n");
  EXPECT_THROW(io::read_matrix_market(in, "big.mtx", nullptr, 1 << 20), ParseError);
}

TEST(IoMatrixMarketErrors, Indices) {
  const std::string b = "%%MatrixMarket matrix coordinate integer general\n2 3 1\n";
  EXPECT_PARSE_ERROR(b + "0 1 1\n", "bad.mtx:3: row index 0 out of range 1..2");
  EXPECT_PARSE_ERROR(b + "3 1 1\n", "bad.mtx:3: row index 3 out of range 1..2");
  EXPECT_PARSE_ERROR(b + "1 4 1\n", "bad.mtx:3: column index 4 out of range 1..3");
  EXPECT_PARSE_ERROR(b + "1 -1 1\n", "bad.mtx:3: column index -1 out of range 1..3");
  EXPECT_PARSE_ERROR(b + "1.0 1 1\n", "bad.mtx:3: row index '1.0' is not an integer");
  // Issue 10, case 9: a well-formed integer too large for int64 is out of range.
  EXPECT_PARSE_ERROR(b + "1 99999999999999999999 1\n",
                     "bad.mtx:3: column index '99999999999999999999' is out of range (int64)");
  EXPECT_PARSE_ERROR(b + "1 1 -99999999999999999999\n",
                     "bad.mtx:3: value '-99999999999999999999' is out of range (int64)");
}

TEST(IoMatrixMarketErrors, EntryCounts) {
  const std::string b = "%%MatrixMarket matrix coordinate real general\n3 3 2\n";
  EXPECT_PARSE_ERROR(b + "1 1 1\n",
                     "bad.mtx:3: file ends after 1 of the 2 entries declared on line 2");
  EXPECT_PARSE_ERROR(b, "bad.mtx:2: file ends after 0 of the 2 entries declared on line 2");
  EXPECT_PARSE_ERROR(b + "1 1 1\n2 2 2\n3 3 3\n",
                     "bad.mtx:5: more entries than the 2 declared on line 2");
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix array real general\n2 1\n1\n",
                     "bad.mtx:3: file ends after 1 of the 2 entries declared on line 2");
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix array real general\n1 1\n1\n2\n",
                     "bad.mtx:4: more entries than the 1 declared on line 2");
}

TEST(IoMatrixMarketErrors, Fields) {
  const std::string b = "%%MatrixMarket matrix coordinate real general\n3 3 1\n";
  EXPECT_PARSE_ERROR(b + "1 1 abc\n", "bad.mtx:3: value 'abc' is not a real number");
  EXPECT_PARSE_ERROR(b + "1 1 1.0D+00\n", "bad.mtx:3: value '1.0D+00' is not a real number");
  EXPECT_PARSE_ERROR(b + "1 1 1e999\n", "bad.mtx:3: value '1e999' is not a real number");
  EXPECT_PARSE_ERROR(b + "1 1\n", "bad.mtx:3: expected 'row col value', found 2 field(s)");
  EXPECT_PARSE_ERROR(b + "1 1 1 7\n", "bad.mtx:3: unexpected extra field '7'");
  const std::string i = "%%MatrixMarket matrix coordinate integer general\n3 3 1\n";
  EXPECT_PARSE_ERROR(i + "1 1 1.5\n",
                     "bad.mtx:3: value '1.5' is not an integer (field is 'integer')");
  // Issue 10, case 9: INT64_MAX + 1 is out of range, not "not an integer".
  EXPECT_PARSE_ERROR(i + "1 1 9223372036854775808\n",
                     "bad.mtx:3: value '9223372036854775808' is out of range (int64)");
  const std::string p = "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n";
  EXPECT_PARSE_ERROR(p + "1 1 1\n", "bad.mtx:3: unexpected extra field '1' (expected 'row col')");
  EXPECT_PARSE_ERROR(
      "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 -9223372036854775808\n",
      "bad.mtx:3: value -9223372036854775808 cannot be negated");
}

TEST(IoMatrixMarketErrors, Duplicates) {
  EXPECT_PARSE_ERROR(
      "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 1\n2 2 1\n1 2 5\n",
      "bad.mtx:5: duplicate entry (1, 2), first given on line 3 (duplicates are not allowed)");
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n2 1\n",
                     "bad.mtx:4: duplicate entry (2, 1), first given on line 3");
}

TEST(IoMatrixMarketErrors, SymmetricTriangles) {
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n1 3 1\n",
                     "bad.mtx:4: entry (1, 3) lies above the diagonal; a symmetric file stores "
                     "only the lower triangle");
  // Both triangles mirrored: the upper copy is rejected, not summed or silently dropped.
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 1\n1 2 1\n",
                     "bad.mtx:4: entry (1, 2) lies above the diagonal");
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 2 1\n",
                     "bad.mtx:3: diagonal entry (2, 2) in a skew-symmetric file");
  EXPECT_PARSE_ERROR("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 2 1\n",
                     "bad.mtx:3: entry (1, 2) lies above the diagonal; a skew-symmetric file");
}

TEST(IoMatrixMarketErrors, CorruptGzip) {
  const std::string not_gzip_payload =
      std::string("\x1f\x8b\x08\x00", 4) + "garbage that is not deflate";
  EXPECT_PARSE_ERROR(not_gzip_payload, "bad.mtx: ");
  // A valid gzip stream cut short.
  const auto path = temp_path("cut.mtx.gz").string();
  io::write_matrix_market(path,
                          Matrix::from_triplets<double>(200, 200, {0, 5, 7}, {1, 2, 3}, {1, 2, 3}));
  std::ifstream f(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_PARSE_ERROR(bytes.substr(0, bytes.size() - 12), "truncated gzip data");
}

TEST(IoMatrixMarketErrors, DebianWrongMtx) {
  const std::string path = std::string(RINGBLAS_DATA_DIR) + "/debian_pkgs/wrong.mtx";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data not found at " << path;
  try {
    io::read_matrix_market(path);
    FAIL() << "wrong.mtx was accepted";
  } catch (const ParseError& e) {
    EXPECT_EQ(std::string(e.what()), path + ":3: row index 0 out of range 1..2");
  }
}

}  // namespace
