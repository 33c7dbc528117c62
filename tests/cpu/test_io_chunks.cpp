// The readers' parallel chunked parse (backend/core/io/io_chunks.hpp) against the same readers
// with the whole file in one chunk: tiny blocks and chunks put a boundary inside every few lines
// (a line split across blocks, CRLF, comments, a last line without newline, gzip), and the
// results, the labels' numbering and every error message (a bad line in a late chunk, the memory
// budget, a declared count) must not change.
#include <gtest/gtest.h>
#include <zlib.h>

#include <functional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "backend/core/io/io_chunks.hpp"
#include "ringblas/ringblas.hpp"

namespace {

using namespace ringblas;
using io::detail::chunk_config;
using io::detail::ChunkConfig;

/// Sets the chunking for a scope.
struct ChunkScope {
  ChunkConfig saved = chunk_config();
  ChunkScope(std::size_t block, std::size_t min_chunk, unsigned threads) {
    chunk_config() = ChunkConfig{block, min_chunk, threads};
  }
  ~ChunkScope() { chunk_config() = saved; }
};

/// The configurations compared: the default (these files fit one chunk), then blocks and
/// chunks of a few bytes over 1 to 4 threads.
const std::vector<std::tuple<std::size_t, std::size_t, unsigned>> kConfigs = {
    {0, 256 << 10, 0}, {1, 1, 1}, {7, 1, 3}, {64, 1, 4}, {100, 16, 2}, {4096, 32, 4}};

/// Everything a read gives (matrix entries as fp64, labels) or its error message.
std::string outcome(const std::string& text, const std::string& name, const io::ReadOptions& opt) {
  std::istringstream in(text);
  std::ostringstream out;
  try {
    const io::LoadedMatrix m = io::read_matrix(in, name, opt);
    const Matrix a = m.matrix.cast(Type::fp64);
    const auto rp = a.row_ptr_vector();
    const auto ci = a.col_idx_vector();
    const auto v = a.values_vector<double>();
    out << a.nrows() << "x" << a.ncols() << ":";
    for (Index i = 0; i < a.nrows(); ++i)
      for (Index p = rp[i]; p < rp[i + 1]; ++p) out << " (" << i << "," << ci[p] << ")=" << v[p];
    for (const auto& l : m.labels) out << " [" << l << "]";
    for (const auto& n : m.notes) out << " {" << n << "}";
  } catch (const Error& e) {
    out << "error: " << e.what();
  }
  return out.str();
}

/// The outcome under every configuration; all must equal the first, which is returned.
std::string same_everywhere(const std::string& text, const std::string& name,
                            const io::ReadOptions& opt = {}) {
  std::string first;
  for (const auto& [block, min_chunk, threads] : kConfigs) {
    ChunkScope scope(block, min_chunk, threads);
    const std::string got = outcome(text, name, opt);
    if (first.empty()) first = got;
    EXPECT_EQ(got, first) << "block " << block << ", min chunk " << min_chunk << ", threads "
                          << threads;
  }
  return first;
}

std::string gzip(const std::string& text) {
  uLongf size = compressBound(text.size()) + 32;
  std::string out(size, '\0');
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

/// Label triples over `n` lines: CRLF on every third line, comments and blank lines, labels
/// reappearing, a long label, no newline after the last line.
std::string abc_text(int n) {
  std::string s = "# a comment\n";
  for (int k = 0; k < n; ++k) {
    s += "node" + std::to_string(k * 7 % 23) + "\t" + (k % 10 == 0 ? std::string(40, 'x') : "") +
         "n" + std::to_string(k % 31) + " " + std::to_string(0.5 + k) + (k % 3 ? "\n" : "\r\n");
    if (k % 17 == 0) s += "\n  # indented comment\n";
  }
  s.pop_back();
  return s;
}

std::string snap_text(int n) {
  std::string s = "# Directed graph\n# FromNodeId\tToNodeId\n";
  for (int k = 0; k < n; ++k) {
    s += std::to_string(k * 13 % 97) + "\t" + std::to_string(k * 5 % 89) + (k % 4 ? "\n" : "\r\n");
    if (k % 19 == 0) s += "% also a comment\n\n";
  }
  return s;
}

/// A coordinate Matrix Market file of `n` candidate lines in the lower triangle (the diagonal
/// left out for skew-symmetric), declaring `extra` entries more than it holds.
std::string mm_text(int n, const std::string& kind = "real general", int extra = 0) {
  std::string body;
  int lines = 0;
  for (int k = 0; k < n; ++k) {
    const int i = 100 - k % 100, j = k / 100 + 1;
    if (j > i || (i == j && kind.find("skew") != std::string::npos)) continue;
    body += std::to_string(i) + " " + std::to_string(j) +
            (kind.find("pattern") == 0 ? "" : " " + std::to_string(k + 1)) +
            (k % 5 ? "\n" : "\r\n");
    ++lines;
    if (k % 23 == 0) body += "%\n\n";
  }
  return "%%MatrixMarket matrix coordinate " + kind + "\n% comment\n100 100 " +
         std::to_string(lines + extra) + "\n" + body;
}

/// `text` with `content` inserted as line number `line`.
std::string insert_line(std::string text, int line, const std::string& content) {
  std::size_t at = 0;
  for (int k = 1; k < line; ++k) at = text.find('\n', at) + 1;
  return text.insert(at, content + "\n");
}

io::ReadOptions format(io::Format f) {
  io::ReadOptions o;
  o.format = f;
  return o;
}

TEST(IoChunks, AbcLabelsAndEntriesDoNotDependOnTheChunks) {
  const std::string text = abc_text(300);
  const std::string plain = same_everywhere(text, "t.abc");
  EXPECT_EQ(plain.rfind("84x84:", 0), 0u) << plain.substr(0, 200);
  // The first labels in order of first appearance, over chunk boundaries.
  EXPECT_NE(plain.find(" [node0] [" + std::string(40, 'x') + "n0] [node7] [n1]"),
            std::string::npos);
  EXPECT_EQ(same_everywhere(gzip(text), "t.abc"), plain);
  io::ReadOptions sym = format(io::Format::abc);
  sym.symmetrize = true;
  same_everywhere(text, "t.abc", sym);
}

TEST(IoChunks, EdgeListAndMatrixMarketDoNotDependOnTheChunks) {
  const std::string snap = same_everywhere(snap_text(400), "t.txt");
  EXPECT_EQ(snap.rfind("97x97:", 0), 0u) << snap.substr(0, 100);
  EXPECT_EQ(same_everywhere(gzip(snap_text(400)), "t.txt"), snap);
  for (const std::string kind :
       {"real general", "integer symmetric", "pattern symmetric", "real skew-symmetric"}) {
    const std::string got = same_everywhere(mm_text(250, kind), "t.mtx");
    EXPECT_EQ(got.rfind("100x100:", 0), 0u) << kind << ": " << got.substr(0, 200);
  }
}

TEST(IoChunks, ABadLineInALateChunkIsNamedByItsLine) {
  const std::string err = same_everywhere(insert_line(abc_text(300), 251, "a b 1 extra"), "t.abc");
  EXPECT_EQ(err.rfind("error: t.abc:251: unexpected extra field 'extra'", 0), 0u) << err;
  // Two bad lines: the first is named, whichever chunk ends first.
  const std::string two = insert_line(insert_line(snap_text(400), 300, "7"), 200, "1 x");
  EXPECT_EQ(same_everywhere(two, "t.txt"), "error: t.txt:200: vertex id 'x' is not an integer");
  // One line too many (declared one less), one too few, an index out of range late.
  const std::string many = same_everywhere(mm_text(250, "real general", -1), "t.mtx");
  EXPECT_NE(many.find("more entries than the 248 declared on line 3"), std::string::npos) << many;
  const std::string few = same_everywhere(mm_text(250, "real general", 10), "t.mtx");
  EXPECT_NE(few.find("file ends after 249 of the 259 entries"), std::string::npos) << few;
  const std::string range = same_everywhere(insert_line(mm_text(250), 240, "101 1 2"), "t.mtx");
  EXPECT_EQ(range, "error: t.mtx:240: row index 101 out of range 1..100") << range;
}

TEST(IoChunks, TheMemoryBudgetIsReachedAtTheSameLine) {
  for (std::size_t budget : {72 * 50, 72 * 123, 72 * 200 + 5}) {
    io::ReadOptions opt = format(io::Format::abc);
    opt.memory_budget = budget;
    std::string got = same_everywhere(abc_text(300), "t.abc", opt);
    EXPECT_NE(got.find("over the memory budget"), std::string::npos) << got;
    opt.format = io::Format::edge_list;
    got = same_everywhere(snap_text(400), "t.txt", opt);
    EXPECT_NE(got.find("over the memory budget"), std::string::npos) << got;
    opt.format = io::Format::matrix_market;
    got = same_everywhere(mm_text(300, "real symmetric"), "t.mtx", opt);
    EXPECT_NE(got.find("over the memory budget"), std::string::npos) << got;
  }
}

TEST(IoChunks, ALineLongerThanABlock) {
  std::string text = "a b 1\n" + std::string(300, 'L') + " " + std::string(200, 'M') + " 2\nc d";
  const std::string got = same_everywhere(text, "t.abc");
  EXPECT_NE(got.find("[" + std::string(300, 'L') + "]"), std::string::npos);
  EXPECT_EQ(got.rfind("6x6:", 0), 0u) << got.substr(0, 40);
}

}  // namespace
