// Internals shared by the readers in backend/core/io_*.cpp: byte sources (file, stdin, stream,
// gzip inflated on the fly), a streaming line cursor, from_chars token parsing, the memory
// budget, and triplets -> CSR with line-numbered duplicate diagnostics.
#pragma once
#include <cstdint>
#include <exception>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ringblas/io.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::io::detail {

/// True when `data` starts with the gzip magic bytes 1f 8b.
bool is_gzip(std::string_view data);
/// `data` itself, or its inflated form when it is gzip (all members); ParseError naming `name`
/// when the compressed data is corrupt or truncated.
std::string maybe_gunzip(std::string data, const std::string& name);

/// Throws ParseError "name:line: reason" (line 0 omits the line number).
[[noreturn]] void fail(const std::string& name, std::int64_t line, const std::string& reason);

/// A stream of bytes read in chunks; read() returns 0 at the end. Errors throw IoError/ParseError.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::size_t read(char* dst, std::size_t n) = 0;
  /// Size in bytes when known before reading (a regular file), else -1.
  virtual std::int64_t size_hint() const { return -1; }
};

/// `path` opened for reading ("-" is standard input); gzip is inflated on the fly when the
/// first bytes are its magic (for any name). IoError naming the path when it cannot be opened.
std::unique_ptr<ByteSource> open_source(const std::string& path);
/// The same over a std::istream (not owned) or over bytes in memory (not copied).
std::unique_ptr<ByteSource> open_source(std::istream& in, const std::string& name);
std::unique_ptr<ByteSource> open_source(std::string_view bytes, const std::string& name);

/// Walks a text line by line ('\n' or "\r\n"), counting 1-based line numbers. Over a ByteSource it
/// holds one bounded buffer (a line may not exceed kMaxLine bytes: ParseError), so a file of any
/// size is read in constant memory; a returned line stays valid until the next call.
class LineCursor {
 public:
  static constexpr std::size_t kMaxLine = std::size_t{64} << 20;
  /// Over text in memory; its first line is number lines_before + 1.
  explicit LineCursor(std::string_view text, std::int64_t lines_before = 0)
      : view_(text), eof_(true), line_(lines_before) {}
  LineCursor(std::unique_ptr<ByteSource> src, std::string name)
      : src_(std::move(src)), name_(std::move(name)) {}
  /// The next line without its terminator; false at the end of the text.
  bool next(std::string_view& line);
  std::int64_t line_number() const { return line_; }
  /// Up to `n` bytes ahead of the cursor, without consuming them (format detection).
  std::string_view peek(std::size_t n);
  /// The source's size when known (see ByteSource::size_hint), else -1.
  std::int64_t size_hint() const;

  /// Block reading (for_each_chunk): `out` receives the next whole lines, about `want` bytes or
  /// more (the last line of the text may lack its terminator); empty at the end. Line numbers are
  /// not counted: the caller adds the block's lines with advance_lines. When the source fails
  /// after some bytes, the whole lines before the failure are returned and the failure is kept
  /// for take_error (the partial line is dropped, as next() never returns it); it throws at once
  /// when nothing was read.
  void next_block(std::string& out, std::size_t want);
  std::exception_ptr take_error() { return std::exchange(error_, nullptr); }
  void advance_lines(std::int64_t n) { line_ += n; }
  bool at_end() const { return eof_ && view_.empty(); }

 private:
  bool fill();  // reads more bytes; false at the end of the source
  std::unique_ptr<ByteSource> src_;
  std::string name_;
  std::string buf_;
  std::string_view view_;  // unread bytes (into buf_, or the caller's text)
  bool eof_ = false;
  std::int64_t line_ = 0;
  std::exception_ptr error_;
};

/// `line` without a leading UTF-8 byte-order mark.
std::string_view strip_bom(std::string_view line);

/// Splits `line` at spaces and tabs into at most `max_tokens` tokens; returns the number of
/// tokens found, which is max_tokens + 1 when there are more (so callers can reject extras).
std::size_t split(std::string_view line, std::string_view* tokens, std::size_t max_tokens);
/// True when the line holds only whitespace.
bool is_blank(std::string_view line);

/// Whole-token parses; a leading '+' is accepted. False on any junk or an integer beyond int64.
/// Reals that underflow (1e-400) give the nearest representable value (0 or a subnormal); reals
/// that overflow (1e999) are rejected.
bool parse_int(std::string_view tok, std::int64_t& v);
bool parse_real(std::string_view tok, double& v);
/// Why parse_int failed: "is out of range (int64)" for a well-formed integer too large, else
/// "is not an integer".
std::string int_problem(std::string_view tok);
/// The token quoted for an error message, shortened when long.
std::string quote(std::string_view tok);

/// The budget a reader applies: opt_budget, or default_memory_budget() when it is 0.
std::size_t effective_budget(std::size_t opt_budget);
/// "1.5 GiB"-style text for messages.
std::string human_bytes(double bytes);
/// Throws OutOfMemory "name:line: <what> need(s) N bytes, over the memory budget of B ..." when
/// `bytes` exceeds `budget`.
void check_budget(const std::string& name, std::int64_t line, double bytes, std::size_t budget,
                  const std::string& what, const std::string& hint = "");
/// Bytes a reader holds per stored entry at its peak (triplets, permutation, CSR copy).
constexpr double kBytesPerEntry = 72;
/// Bytes per row at the peak of the CSR build (row pointers and their working copy).
constexpr double kBytesPerRow = 16;

/// Entries in file order. `seq` orders them for Dup::first/last and names them in errors:
/// seq = 2 * line + (1 if the entry is a mirror made by symmetric expansion).
template <class T>
struct Triplets {
  Index nrows = 0, ncols = 0;
  Index shown_base = 1;  ///< added to an index shown in a message (1: Matrix Market)
  std::vector<Index> rows, cols;
  std::vector<T> vals;
  std::vector<std::int64_t> seq;
  void reserve(std::size_t n) {
    rows.reserve(n);
    cols.reserve(n);
    vals.reserve(n);
    seq.reserve(n);
  }
  void push(Index i, Index j, T v, std::int64_t s) {
    rows.push_back(i);
    cols.push_back(j);
    vals.push_back(v);
    seq.push_back(s);
  }
  std::size_t size() const { return rows.size(); }
  /// Appends o's entries, ids renumbered through `map` unless it is empty (a chunk's merge).
  void append(const Triplets& o, const std::vector<Index>& map) {
    const std::size_t n = size();
    rows.insert(rows.end(), o.rows.begin(), o.rows.end());
    cols.insert(cols.end(), o.cols.begin(), o.cols.end());
    vals.insert(vals.end(), o.vals.begin(), o.vals.end());
    seq.insert(seq.end(), o.seq.begin(), o.seq.end());
    if (!map.empty())
      for (std::size_t k = n; k < size(); ++k) rows[k] = map[rows[k]], cols[k] = map[cols[k]];
  }
  /// Empty, keeping the memory (a chunk slot reused by the next block).
  void clear() {
    rows.clear();
    cols.clear();
    vals.clear();
    seq.clear();
  }
};

/// Sorts the triplets into a host CSR matrix of type `type` (int64 indices). Repeated positions
/// combine by `dup`; Dup::error throws ParseError "name:line: duplicate entry (i, j), first given
/// on line L" (1-based), except, when `merged` is given, repeats with equal values, which are
/// kept once and counted in *merged (the same edge stated twice loses nothing). T is double,
/// int64_t or uint8_t (stored as bool).
template <class T>
Matrix build_csr(Triplets<T>& t, Dup dup, Type type, const std::string& name,
                 std::size_t* merged = nullptr);

/// Parses Matrix Market text from a cursor. With `as_fp64` every field is returned as fp64
/// (pattern -> 1.0), as read_graph wants. A BOM and whitespace (blank lines included) before the
/// banner are skipped.
Matrix read_matrix_market_lines(LineCursor& cur, const std::string& name, MatrixInfo* info,
                                Index max_rows, bool as_fp64, std::size_t budget);
/// True when the text (after a BOM and leading whitespace) starts like a Matrix Market file: the
/// banner "%%MatrixMarket" in any case, or any line starting "%%", or "% MatrixMarket".
bool looks_like_matrix_market(std::string_view head);

/// Edge list / label-triple readers over a cursor (io_edge_list.cpp); `notes` receives what the
/// reader decided that the user should know (a skipped header line).
Matrix read_edge_list_lines(LineCursor& cur, const std::string& name, const EdgeListOptions& opt,
                            int skip_header_lines, std::vector<std::string>* notes);
Matrix read_abc_lines(LineCursor& cur, const std::string& name, std::vector<std::string>* labels,
                      const EdgeListOptions& opt);

}  // namespace ringblas::io::detail
