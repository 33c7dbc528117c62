// Internals shared by the readers in backend/core/io_*.cpp: gzip inflation, a line cursor,
// from_chars token parsing, and triplets -> CSR with line-numbered duplicate diagnostics.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
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

/// Walks a text line by line ('\n' or "\r\n"), counting 1-based line numbers.
class LineCursor {
 public:
  explicit LineCursor(std::string_view text) : text_(text) {}
  /// The next line without its terminator; false at the end of the text.
  bool next(std::string_view& line);
  std::int64_t line_number() const { return line_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::int64_t line_ = 0;
};

/// Splits `line` at spaces and tabs into at most `max_tokens` tokens; returns the number of
/// tokens found, which is max_tokens + 1 when there are more (so callers can reject extras).
std::size_t split(std::string_view line, std::string_view* tokens, std::size_t max_tokens);
/// True when the line holds only whitespace.
bool is_blank(std::string_view line);

/// Whole-token parses with std::from_chars; a leading '+' is accepted. False on any junk.
bool parse_int(std::string_view tok, std::int64_t& v);
bool parse_real(std::string_view tok, double& v);
/// The token quoted for an error message, shortened when long.
std::string quote(std::string_view tok);

/// Entries in file order. `seq` orders them for Dup::first/last and names them in errors:
/// seq = 2 * line + (1 if the entry is a mirror made by symmetric expansion).
template <class T>
struct Triplets {
  Index nrows = 0, ncols = 0;
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
};

/// Sorts the triplets into a host CSR matrix of type `type` (int64 indices). Repeated positions
/// combine by `dup`; Dup::error throws ParseError "name:line: duplicate entry (i, j), first given
/// on line L" (1-based). T is double, int64_t or uint8_t (stored as bool).
template <class T>
Matrix build_csr(Triplets<T>& t, Dup dup, Type type, const std::string& name);

/// Parses Matrix Market text (already inflated). With `as_fp64` every field is returned as fp64
/// (pattern -> 1.0), as read_graph wants.
Matrix read_matrix_market_text(std::string_view text, const std::string& name, MatrixInfo* info,
                               Index max_rows, bool as_fp64);
/// True when the text starts with the Matrix Market banner (case-insensitive).
bool has_matrix_market_banner(std::string_view text);

}  // namespace ringblas::io::detail
