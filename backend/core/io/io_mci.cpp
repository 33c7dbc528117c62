// Reader for mcl's native matrix format (.mci): "(mclheader ... dimensions RxC)" then
// "(mclmatrix begin  col row[:val] ... $ ... )", columns listed as vectors of row entries.
#include <string>
#include <string_view>

#include "backend/core/io/io_detail.hpp"
#include "ringblas/error.hpp"
#include "ringblas/io.hpp"

namespace ringblas::io {

namespace {

using detail::fail;
using detail::quote;

/// Tokens of the text with their 1-based line numbers; '#' starts a comment up to the line end
/// (mcl accepts those inside the matrix block).
class Tokens {
 public:
  Tokens(std::string_view text, const std::string& name) : text_(text), name_(name) {}
  /// The next whitespace-separated token; empty at the end of the text.
  std::string_view next() {
    skip_space();
    token_line_ = line_;
    const std::size_t start = pos_;
    while (pos_ < text_.size() && !is_space(text_[pos_]) && text_[pos_] != '#') ++pos_;
    return text_.substr(start, pos_ - start);
  }
  /// Moves past the next line that starts (after blanks) with `word`; false if none.
  bool find_line_starting(std::string_view word) {
    while (pos_ < text_.size()) {
      std::size_t end = text_.find('\n', pos_);
      if (end == std::string_view::npos) end = text_.size();
      std::string_view line = text_.substr(pos_, end - pos_);
      const std::size_t p = line.find_first_not_of(" \t\r");
      const bool hit = p != std::string_view::npos && line.substr(p).starts_with(word);
      if (hit) {
        pos_ += p + word.size();
        return true;
      }
      pos_ = end < text_.size() ? end + 1 : end;
      ++line_;
    }
    return false;
  }
  std::int64_t line() const { return line_; }
  /// The line of the token that next() returned last.
  std::int64_t token_line() const { return token_line_; }

 private:
  static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
  }
  void skip_space() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (is_space(c)) {
        ++pos_;
      } else {
        return;
      }
    }
  }
  std::string_view text_;
  const std::string& name_;
  std::size_t pos_ = 0;
  std::int64_t line_ = 1, token_line_ = 1;
};

}  // namespace

Matrix read_mci(const std::string& path) {
  const std::string text = read_file_text(path);
  Tokens tok(text, path);
  if (!tok.find_line_starting("(mclheader"))
    fail(path, 0, "no '(mclheader' line (not an mcl matrix file)");
  Index nrows = -1, ncols = -1;
  for (;;) {
    const std::int64_t ln = tok.line();
    const std::string_view t = tok.next();
    if (t.empty()) fail(path, ln, "end of file inside the mclheader block");
    if (t == ")") break;
    if (t == "mcltype") {
      const std::string_view kind = tok.next();
      if (kind != "matrix")
        fail(path, tok.line(), "mcltype " + quote(kind) + " is not supported (only 'matrix')");
    } else if (t == "dimensions") {
      const std::string_view dims = tok.next();
      const std::size_t x = dims.find('x');
      std::int64_t r = 0, c = 0;
      if (x == std::string_view::npos || !detail::parse_int(dims.substr(0, x), r) ||
          !detail::parse_int(dims.substr(x + 1), c) || r < 0 || c < 0)
        fail(path, tok.line(), "dimensions " + quote(dims) + " is not 'RxC'");
      nrows = r;
      ncols = c;
    } else {
      fail(path, ln, "unexpected " + quote(t) + " in the mclheader block");
    }
  }
  if (nrows < 0) fail(path, tok.line(), "the mclheader block has no 'dimensions RxC'");
  // Domain blocks (mcldoms, mclrows, mclcols) give non-canonical indices: not supported.
  for (;;) {
    const std::int64_t ln = tok.line();
    const std::string_view t = tok.next();
    if (t.empty()) fail(path, ln, "no '(mclmatrix' block");
    if (t == "(mclmatrix") break;
    if (t.starts_with("(mcl"))
      throw NotImplemented(path + ":" + std::to_string(ln) + ": " + std::string(t) +
                           " (non-canonical domains) is not supported");
    fail(path, ln, "unexpected " + quote(t) + " before '(mclmatrix'");
  }
  if (tok.next() != "begin") fail(path, tok.line(), "expected 'begin' after '(mclmatrix'");

  // Column c lists its rows: the entry (row r, column c) of mcl's matrix, stored as A(r, c).
  detail::Triplets<double> t;
  t.nrows = nrows;
  t.ncols = ncols;
  std::vector<std::int64_t> column_line(static_cast<std::size_t>(ncols), 0);
  for (;;) {
    const std::string_view head = tok.next();
    const std::int64_t ln = tok.token_line();
    if (head.empty()) fail(path, ln, "end of file inside the mclmatrix block (missing ')')");
    if (head == ")") break;
    std::int64_t col = 0;
    if (!detail::parse_int(head, col))
      fail(path, ln, "column index " + quote(head) + " is not an integer");
    if (col < 0 || col >= ncols)
      fail(path, ln,
           "column index " + std::to_string(col) + " out of range 0.." + std::to_string(ncols - 1));
    if (column_line[col])
      fail(path, ln,
           "column " + std::to_string(col) + " given twice, first on line " +
               std::to_string(column_line[col]));
    column_line[col] = ln;
    for (;;) {
      const std::string_view e = tok.next();
      const std::int64_t eln = tok.token_line();
      if (e.empty())
        fail(path, eln, "end of file inside column " + std::to_string(col) + " (missing '$')");
      if (e == "$") break;
      const std::size_t colon = e.find(':');
      std::int64_t row = 0;
      double val = 1.0;
      if (!detail::parse_int(e.substr(0, colon), row))
        fail(path, eln, "row index " + quote(e) + " is not an integer");
      if (row < 0 || row >= nrows)
        fail(path, eln,
             "row index " + std::to_string(row) + " out of range 0.." + std::to_string(nrows - 1));
      if (colon != std::string_view::npos && !detail::parse_real(e.substr(colon + 1), val))
        fail(path, eln, "value " + quote(e.substr(colon + 1)) + " is not a real number");
      t.push(row, col, val, 2 * eln);
    }
  }
  return detail::build_csr(t, Dup::error, Type::fp64, path);
}

}  // namespace ringblas::io
