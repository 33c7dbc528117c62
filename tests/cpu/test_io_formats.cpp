// read_matrix and its helpers (issue 10): the format-detection rule, ReadOptions (edge lists as
// given unless asked), the memory budget, streaming gzip, and the atomic file writer.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "ringblas/ringblas.hpp"

namespace {

namespace fs = std::filesystem;
using namespace ringblas;
using Triple = std::tuple<Index, Index, double>;

fs::path dir() {
  const auto d =
      fs::temp_directory_path() / ("ringblas_test_formats_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

std::string write_temp(const std::string& name, const std::string& bytes) {
  const auto p = (dir() / name).string();
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

std::vector<Triple> triples(const Matrix& a) {
  const Matrix d = a.cast(Type::fp64);
  const auto rp = d.row_ptr_vector();
  const auto ci = d.col_idx_vector();
  const auto v = d.values_vector<double>();
  std::vector<Triple> out;
  for (Index i = 0; i < d.nrows(); ++i)
    for (Index p = rp[i]; p < rp[i + 1]; ++p) out.emplace_back(i, ci[p], v[p]);
  return out;
}

template <class E>
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "no exception of the expected type";
}

const std::string kBanner = "%%MatrixMarket matrix coordinate real general\n";

TEST(IoFormats, DetectionRule) {
  using io::Format;
  const std::string mm = kBanner + "1 1 0\n";
  // The banner decides, whatever the name; a BOM, blank lines and spaces may precede it.
  EXPECT_EQ(io::detect_format("x.txt", mm), Format::matrix_market);
  EXPECT_EQ(io::detect_format("x.abc", "\xEF\xBB\xBF\n  " + mm), Format::matrix_market);
  // Anything starting "%%" or "% MatrixMarket" is Matrix Market, so its reader names the fault.
  EXPECT_EQ(io::detect_format("x.txt", "%%MatrixMarkt matrix\n"), Format::matrix_market);
  EXPECT_EQ(io::detect_format("x.txt", "%MatrixMarket matrix\n"), Format::matrix_market);
  EXPECT_EQ(io::detect_format("x.txt", "%  matrixmarket matrix\n"), Format::matrix_market);
  // Otherwise the extension (.gz removed, any case).
  EXPECT_EQ(io::detect_format("x.TXT.gz", "0 1\n"), Format::edge_list);
  EXPECT_EQ(io::detect_format("x.el", "% a comment\n0 1\n"), Format::edge_list);
  EXPECT_EQ(io::detect_format("x.mtx", "3 3 1\n"), Format::matrix_market);
  EXPECT_EQ(io::detect_format("dir.v2/x.abc", "a b\n"), Format::abc);
  EXPECT_EQ(io::detect_format("x.mci", "(mclheader\n"), Format::mci);
  // Else an error, never a guess.
  EXPECT_NE(error_of<ParseError>([] {
              io::detect_format("dir.v2/x", "0 1\n");
            }).find("dir.v2/x: cannot tell the format: no Matrix Market banner and no extension"),
            std::string::npos);
  EXPECT_EQ(io::parse_format("MM"), Format::matrix_market);
  EXPECT_EQ(io::parse_format("snap"), Format::edge_list);
  EXPECT_THROW(io::parse_format("csv"), InvalidValue);
}

TEST(IoFormats, EdgeListsAsGivenUnlessAsked) {
  const auto path = write_temp("w.txt", "# c\n10 20 0.5\n20 30 0.25\n30 30 2\n");
  io::LoadedMatrix a = io::read_matrix(path);
  EXPECT_EQ(a.format, io::Format::edge_list);
  EXPECT_EQ(a.matrix.nrows(), 31);
  EXPECT_EQ(triples(a.matrix), (std::vector<Triple>{{10, 20, 0.5}, {20, 30, 0.25}, {30, 30, 2}}));
  EXPECT_EQ(a.info.field, io::Field::real);
  EXPECT_EQ(a.info.symmetry, io::Symmetry::general);
  io::ReadOptions o;
  o.symmetrize = o.compact_ids = o.pattern = true;
  const io::LoadedMatrix b = io::read_matrix(path, o);
  EXPECT_EQ(triples(b.matrix),
            (std::vector<Triple>{{0, 1, 1}, {1, 0, 1}, {1, 2, 1}, {2, 1, 1}, {2, 2, 1}}));
  EXPECT_EQ(b.info.field, io::Field::pattern);
  // A file listing both directions, symmetrized: the mirrors agree with the originals.
  const auto both = write_temp("both.txt", "0 1 2\n1 0 2\n");
  io::ReadOptions sym;
  sym.symmetrize = true;
  const io::LoadedMatrix c = io::read_matrix(both, sym);
  EXPECT_EQ(triples(c.matrix), (std::vector<Triple>{{0, 1, 2}, {1, 0, 2}}));
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("repeated edge(s) with equal values kept once"), std::string::npos);
  // ... and disagree: an error naming both lines.
  const auto clash = write_temp("clash.txt", "0 1 2\n1 0 3\n");
  EXPECT_NE(error_of<ParseError>([&] {
              io::read_matrix(clash, sym);
            }).find(":2: duplicate entry (0, 1) after symmetric expansion, first given on line 1"),
            std::string::npos);
  // 1-based ids are shown as the file gives them.
  io::ReadOptions one;
  one.base = 1;
  const auto zero = write_temp("zero.txt", "1 2\n0 1\n");
  EXPECT_EQ(error_of<ParseError>([&] { io::read_matrix(zero, one); }),
            zero + ":2: vertex id 0 out of range (ids are 1-based)");
  // Matrix Market states its own symmetry.
  EXPECT_THROW(io::read_matrix(write_temp("m.mtx", kBanner + "1 1 0\n"), sym), InvalidValue);
}

TEST(IoFormats, AbcKeepsLabelsAndWeights) {
  const auto path = write_temp("g.abc", "\xEF\xBB\xBFgeneA geneB 0.5\n%odd geneA 2\n");
  const io::LoadedMatrix a = io::read_matrix(path);
  EXPECT_EQ(a.format, io::Format::abc);
  EXPECT_EQ(a.labels, (std::vector<std::string>{"geneA", "geneB", "%odd"}));
  EXPECT_EQ(triples(a.matrix), (std::vector<Triple>{{0, 1, 0.5}, {2, 0, 2}}));
  EXPECT_THROW(io::read_matrix(write_temp("e.abc", "# none\n")), ParseError);
}

TEST(IoFormats, NumbersAtTheEdges) {
  const auto tiny = write_temp("tiny.mtx", kBanner + "1 2 2\n1 1 1e-400\n1 2 -4.9e-324\n");
  EXPECT_EQ(triples(io::read_matrix_market(tiny)),
            (std::vector<Triple>{{0, 0, 0.0}, {0, 1, -4.9e-324}}));
  const auto big = write_temp("big.mtx", kBanner + "1 1 1\n1 99999999999999999999 1\n");
  EXPECT_EQ(error_of<ParseError>([&] { io::read_matrix_market(big); }),
            big + ":3: column index '99999999999999999999' is out of range (int64)");
  const auto e = write_temp("e.txt", "0 123456789012345678901\n");
  EXPECT_EQ(error_of<ParseError>([&] { io::read_matrix(e); }),
            e + ":1: vertex id '123456789012345678901' is out of range (int64)");
}

TEST(IoFormats, MemoryBudget) {
  EXPECT_GT(io::default_memory_budget(), std::size_t{1} << 20);
  EXPECT_EQ(io::parse_memory_size("1G"), std::size_t{1} << 30);
  EXPECT_EQ(io::parse_memory_size("512MiB"), std::size_t{512} << 20);
  EXPECT_EQ(io::parse_memory_size("1000"), 1000u);
  EXPECT_GT(io::parse_memory_size("10%"), 0u);
  EXPECT_THROW(io::parse_memory_size("lots"), InvalidValue);
  EXPECT_THROW(io::parse_memory_size("5X"), InvalidValue);
  EXPECT_THROW(io::parse_memory_size("-1G"), InvalidValue);
  io::ReadOptions o;
  o.memory_budget = std::size_t{1} << 20;  // 1 MiB
  // Rows: refused at the size line, before anything is allocated.
  const auto rows = write_temp("rows.mtx", kBanner + "100000 100000 1\n1 1 1\n");
  const std::string msg = error_of<OutOfMemory>([&] { io::read_matrix(rows, o); });
  EXPECT_NE(msg.find("rows.mtx:2: the row pointers of 100000 rows"), std::string::npos) << msg;
  EXPECT_NE(msg.find("over the memory budget of 1.0 MiB"), std::string::npos) << msg;
  // Entries: refused at the line where they pass the budget.
  std::string many = kBanner + "10 10 100000\n";
  for (int k = 0; k < 100000; ++k) many += "1 1 1\n";
  const std::string m2 =
      error_of<OutOfMemory>([&] { io::read_matrix(write_temp("many.mtx", many), o); });
  EXPECT_NE(m2.find("many.mtx:"), std::string::npos) << m2;
  EXPECT_NE(m2.find("the entries read up to this line"), std::string::npos) << m2;
  // Edge lists: the largest id, naming its line.
  const auto ids = write_temp("ids.txt", "0 1\n1 2000000\n");
  EXPECT_NE(error_of<OutOfMemory>([&] {
              io::read_matrix(ids, o);
            }).find("ids.txt:2: vertex ids up to 2000000"),
            std::string::npos);
  o.compact_ids = true;
  EXPECT_EQ(io::read_matrix(ids, o).matrix.nrows(), 3);
}

std::string gzip_bytes(const std::string& text) {
  const auto p = (dir() / "tmp.gz").string();
  gzFile gz = gzopen(p.c_str(), "wb");
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  return slurp(p);
}

TEST(IoFormats, GzipStreams) {
  // Two members one after another, then zero padding: one text.
  const std::string bytes =
      gzip_bytes(kBanner + "2 2 2\n") + gzip_bytes("1 1 1\n2 2 2\n") + std::string(10, '\0');
  EXPECT_EQ(io::read_matrix_market(write_temp("two.mtx.gz", bytes)).nnz(), 2);
  // Garbage after the end of the gzip data is an error.
  EXPECT_NE(
      error_of<ParseError>([&] {
        io::read_matrix_market(write_temp("junk.mtx.gz", gzip_bytes(kBanner + "1 1 0\n") + "junk"));
      }).find("unexpected bytes after the end of the gzip data"),
      std::string::npos);
  // A long file through a small buffer: lines cross chunk boundaries.
  // 20000 distinct positions: row k % 1000, column 37 * (k / 1000) % 1000.
  std::string text = kBanner + "1000 1000 20000\n";
  for (int k = 0; k < 20000; ++k)
    text += std::to_string(k % 1000 + 1) + " " + std::to_string(k / 1000 * 37 % 1000 + 1) + " " +
            std::to_string(k) + ".25\n";
  const Matrix a = io::read_matrix_market(write_temp("long.mtx.gz", gzip_bytes(text)));
  EXPECT_EQ(a.nnz(), 20000);
  EXPECT_EQ(triples(a), triples(io::read_matrix_market(write_temp("long.mtx", text))));
}

TEST(IoFormats, FileHeadIsThePrefixOfTheText) {
  // Longer than one read chunk (64 KiB), so heads end inside, at and past a chunk.
  std::string text;
  for (int k = 0; text.size() < 200000; ++k) text += std::to_string(k) + " line\n";
  for (const auto& path : {write_temp("head.txt", text), write_temp("head.txt.gz", gzip_bytes(text))}) {
    EXPECT_EQ(io::read_file_text(path), text);
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{11}, std::size_t{65536},
                          std::size_t{65537}, text.size() - 1, text.size(), text.size() + 5})
      EXPECT_EQ(io::read_file_head(path, n), text.substr(0, n)) << path << " n = " << n;
  }
  EXPECT_THROW(io::read_file_head((dir() / "missing.txt").string(), 10), IoError);
  EXPECT_THROW(io::read_file_head(write_temp("cut.txt.gz", gzip_bytes(text).substr(0, 40)), 1 << 20),
               ParseError);
}

TEST(IoFormats, AtomicWriterKeepsThePreviousFileOnError) {
  const auto path = write_temp("out.mtx", "previous\n");
  EXPECT_THROW(
      io::write_file_atomically(path,
                                [](const std::function<void(const char*, std::size_t)>& sink) {
                                  sink("partial", 7);
                                  throw IoError("disk full (simulated)");
                                }),
      IoError);
  EXPECT_EQ(slurp(path), "previous\n");
  for (const auto& e : fs::directory_iterator(dir()))
    EXPECT_NE(e.path().filename().string().rfind(".out.mtx.tmp", 0), 0u) << e.path();
  // Success replaces the file and keeps its mode.
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  io::write_matrix_market(path, Matrix::from_triplets<double>(1, 1, {0}, {0}, {2.5}));
  EXPECT_EQ(slurp(path), "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2.5\n");
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  // gzip output goes through the same path.
  const auto gz = (dir() / "out.mtx.gz").string();
  io::write_matrix_market(gz, Matrix::from_triplets<double>(1, 1, {0}, {0}, {2.5}));
  EXPECT_EQ(io::read_matrix_market(gz).nnz(), 1);
  EXPECT_THROW(io::write_matrix_market((dir() / "no-such-dir" / "x.mtx").string(),
                                       Matrix::from_triplets<double>(1, 1, {0}, {0}, {2.5})),
               IoError);
}

}  // namespace
