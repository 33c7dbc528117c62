// Matrix Market reader: banner, size line, coordinate / array entries, symmetric expansion, and
// a ParseError "file:line: reason" for every malformed input.
#include <algorithm>
#include <istream>
#include <iterator>
#include <limits>
#include <new>
#include <stdexcept>

#include "backend/core/io/io_chunks.hpp"
#include "backend/core/io/io_detail.hpp"
#include "ringblas/error.hpp"
#include "ringblas/io.hpp"

namespace ringblas::io {
namespace detail {

namespace {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

constexpr const char* kBannerForm =
    "expected '%%MatrixMarket matrix coordinate|array real|integer|pattern "
    "general|symmetric|skew-symmetric'";

struct Header {
  bool array = false;
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
};

Header parse_banner(std::string_view line, const std::string& name, std::int64_t ln) {
  std::string_view tok[5];
  const std::size_t n = split(line, tok, 5);
  if (n > 0 && !tok[0].empty() && tok[0][0] == '%' && !iequals(tok[0], "%%MatrixMarket"))
    fail(name, ln,
         "malformed Matrix Market banner: " + quote(tok[0]) + " is not '%%MatrixMarket'; " +
             kBannerForm);
  if (n == 0 || !iequals(tok[0], "%%MatrixMarket"))
    fail(name, ln, "missing Matrix Market banner: " + std::string(kBannerForm));
  if (n != 5) fail(name, ln, "malformed banner (" + std::to_string(n) + " words): " + kBannerForm);
  if (!iequals(tok[1], "matrix"))
    fail(name, ln, "unknown object " + quote(tok[1]) + " (only 'matrix' is supported)");
  Header h;
  if (iequals(tok[2], "array"))
    h.array = true;
  else if (!iequals(tok[2], "coordinate"))
    fail(name, ln, "unknown format " + quote(tok[2]) + " (expected 'coordinate' or 'array')");
  if (iequals(tok[3], "real"))
    h.field = Field::real;
  else if (iequals(tok[3], "integer"))
    h.field = Field::integer;
  else if (iequals(tok[3], "pattern"))
    h.field = Field::pattern;
  else if (iequals(tok[3], "complex"))
    fail(name, ln, "complex matrices are not supported (ringblas value types are real)");
  else
    fail(name, ln, "unknown field " + quote(tok[3]) + " (expected real, integer or pattern)");
  if (iequals(tok[4], "general"))
    h.symmetry = Symmetry::general;
  else if (iequals(tok[4], "symmetric"))
    h.symmetry = Symmetry::symmetric;
  else if (iequals(tok[4], "skew-symmetric"))
    h.symmetry = Symmetry::skew_symmetric;
  else if (iequals(tok[4], "hermitian"))
    fail(name, ln, "hermitian matrices are not supported (complex values)");
  else
    fail(name, ln,
         "unknown symmetry " + quote(tok[4]) + " (expected general, symmetric or skew-symmetric)");
  if (h.array && h.field == Field::pattern)
    fail(name, ln, "'array pattern' is not a valid combination");
  if (h.field == Field::pattern && h.symmetry == Symmetry::skew_symmetric)
    fail(name, ln, "'pattern skew-symmetric' is not a valid combination (no values to negate)");
  return h;
}

/// Neither blank nor a '%' comment.
bool is_data_line(std::string_view line) {
  const std::size_t p = line.find_first_not_of(" \t\r\v\f");
  return p != std::string_view::npos && line[p] != '%';
}

/// The next line that is neither blank nor a '%' comment; false at the end.
bool next_data_line(LineCursor& cur, std::string_view& line) {
  while (cur.next(line))
    if (is_data_line(line)) return true;
  return false;
}

Index parse_dim(std::string_view tok, const char* what, const std::string& name,
                std::int64_t line) {
  std::int64_t v;
  if (!parse_int(tok, v)) fail(name, line, std::string(what) + " " + int_problem(tok));
  if (v < 0) fail(name, line, std::string(what) + " " + std::to_string(v) + " is negative");
  return v;
}

Index parse_index(std::string_view tok, const char* what, Index n, const std::string& name,
                  std::int64_t line) {
  std::int64_t v;
  if (!parse_int(tok, v)) fail(name, line, std::string(what) + " index " + int_problem(tok));
  if (v < 1 || v > n)
    fail(name, line,
         std::string(what) + " index " + std::to_string(v) + " out of range 1.." +
             std::to_string(n));
  return v - 1;
}

template <class T>
T parse_value(std::string_view tok, Field field, const std::string& name, std::int64_t line) {
  if constexpr (std::is_same_v<T, double>) {
    double v;
    if (!parse_real(tok, v)) fail(name, line, "value " + quote(tok) + " is not a real number");
    return v;
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    std::int64_t v;
    if (!parse_int(tok, v)) {
      const std::string problem = int_problem(tok);
      double d;
      if (problem.find("out of range") == std::string::npos && parse_real(tok, d))
        fail(name, line, "value " + quote(tok) + " is not an integer (field is 'integer')");
      fail(name, line, "value " + problem);
    }
    return v;
  } else {
    (void)tok, (void)field, (void)name, (void)line;
    return T(1);
  }
}

template <class T>
T negate(T v, const std::string& name, std::int64_t line) {
  if constexpr (std::is_same_v<T, std::int64_t>) {
    if (v == std::numeric_limits<std::int64_t>::min())
      fail(name, line,
           "value " + std::to_string(v) + " cannot be negated in int64 (skew-symmetric)");
  }
  return static_cast<T>(-v);
}

/// What the entry lines must look like, for messages.
const char* entry_form(const Header& h) {
  return h.array ? "'value'" : (h.field == Field::pattern ? "'row col'" : "'row col value'");
}

/// Splits an entry line into exactly `want` fields; ParseError otherwise.
void split_entry(std::string_view line, std::string_view* tok, std::size_t want, const Header& h,
                 const std::string& name, std::int64_t ln) {
  const std::size_t n = split(line, tok, want);
  if (n < want)
    fail(name, ln,
         "expected " + std::string(entry_form(h)) + ", found " + std::to_string(n) + " field(s)");
  if (n > want) {
    std::string_view extra[4];
    split(line, extra, want + 1);
    fail(name, ln,
         "unexpected extra field " + quote(extra[want]) + " (expected " + entry_form(h) + ")");
  }
}

/// The budget the entries may take besides the row pointers (a declared count is never trusted
/// for allocation: each entry takes at least 2 bytes of a file of known size).
struct EntryBudget {
  double row_bytes;
  std::size_t max_entries, per_line, budget;
  EntryBudget(const Header& h, Index nrows, std::size_t budget_bytes)
      : row_bytes(kBytesPerRow * (static_cast<double>(nrows) + 1)),
        max_entries(static_cast<std::size_t>(
            std::max(0.0, (static_cast<double>(budget_bytes) - row_bytes)) / kBytesPerEntry)),
        per_line(h.symmetry == Symmetry::general ? 1 : 2),
        budget(budget_bytes) {}
  /// Whether a line read with `held` entries before it is over the budget.
  bool over(std::size_t held) const { return held + per_line > max_entries; }
  [[noreturn]] void fail_at(const std::string& name, std::int64_t ln, std::size_t held) const {
    check_budget(name, ln, row_bytes + kBytesPerEntry * static_cast<double>(held + per_line),
                 budget, "the entries read up to this line");
    fail(name, ln, "over the memory budget");  // not reached: over() held
  }
};

template <class T>
void reserve_entries(Triplets<T>& t, const LineCursor& cur, Index declared, const EntryBudget& eb) {
  const std::int64_t size = cur.size_hint();
  std::size_t guess = static_cast<std::size_t>(declared) * eb.per_line;
  guess = std::min(guess, size > 0 ? static_cast<std::size_t>(size) / 2 : std::size_t{1} << 16);
  t.reserve(std::min(guess, eb.max_entries));
}

[[noreturn]] void fail_too_many(const std::string& name, std::int64_t ln, Index declared,
                                std::int64_t size_line) {
  fail(name, ln,
       "more entries than the " + std::to_string(declared) + " declared on line " +
           std::to_string(size_line));
}

[[noreturn]] void fail_too_few(const std::string& name, const LineCursor& cur, Index count,
                               Index declared, std::int64_t size_line) {
  fail(name, std::max<std::int64_t>(cur.line_number(), 1),
       "file ends after " + std::to_string(count) + " of the " + std::to_string(declared) +
           " entries declared on line " + std::to_string(size_line));
}

/// Reads the values of an array file (column-major over the stored part) into triplets.
template <class T>
void read_array(LineCursor& cur, const Header& h, Index nrows, Index declared,
                std::int64_t size_line, const EntryBudget& eb, Triplets<T>& t,
                const std::string& name) {
  reserve_entries(t, cur, declared, eb);
  std::string_view line, tok[1];
  Index count = 0;
  Index ai = h.symmetry == Symmetry::skew_symmetric ? 1 : 0, aj = 0;
  while (next_data_line(cur, line)) {
    const std::int64_t ln = cur.line_number();
    if (count == declared) fail_too_many(name, ln, declared, size_line);
    split_entry(line, tok, 1, h, name, ln);
    const Index i = ai, j = aj;
    const T v = parse_value<T>(tok[0], h.field, name, ln);
    // Advance column-major over the stored part: all rows, i >= j, or i > j.
    const Index first_row = h.symmetry == Symmetry::general     ? 0
                            : h.symmetry == Symmetry::symmetric ? aj + 1
                                                                : aj + 2;
    if (++ai >= nrows) {
      ++aj;
      ai = first_row;
    }
    if (eb.over(t.size())) eb.fail_at(name, ln, t.size());
    t.push(i, j, v, 2 * ln);
    if (i != j && h.symmetry == Symmetry::symmetric) t.push(j, i, v, 2 * ln + 1);
    if (i != j && h.symmetry == Symmetry::skew_symmetric)
      t.push(j, i, negate(v, name, ln), 2 * ln + 1);
    ++count;
  }
  if (count < declared) fail_too_few(name, cur, count, declared, size_line);
}

/// A parsed chunk of coordinate entries: `lines` entry lines read, their entries (mirrors
/// included) and where the chunk stopped.
template <class T>
struct EntryPart {
  Triplets<T> t;
  Index lines = 0;
  ChunkStop stop;
};

/// Reads the entry lines of a coordinate file into triplets (symmetric expansion included), in
/// parallel chunks (for_each_chunk) merged in file order with the sequential reader's checks
/// where they depend on earlier lines: the declared count and the budget.
template <class T>
void read_coordinate(LineCursor& cur, const Header& h, Index nrows, Index ncols, Index declared,
                     std::int64_t size_line, const EntryBudget& eb, Triplets<T>& t,
                     const std::string& name) {
  reserve_entries(t, cur, declared, eb);
  const std::size_t want = h.field == Field::pattern ? 2 : 3;
  std::vector<EntryPart<T>> parts(chunk_slots());
  Index count = 0;  // entry lines merged
  auto parse_line = [&](std::string_view line, std::int64_t ln, EntryPart<T>& p) {
    // count and t are the merged chunks of the earlier blocks: stable while a block is parsed.
    if (count + p.lines == declared) {  // one too many, or an earlier one: the merge names it
      p.stop.line = ln;
      return false;
    }
    std::string_view tok[3];
    split_entry(line, tok, want, h, name, ln);
    const Index i = parse_index(tok[0], "row", nrows, name, ln);
    const Index j = parse_index(tok[1], "column", ncols, name, ln);
    const T v = parse_value<T>(want == 3 ? tok[2] : std::string_view(), h.field, name, ln);
    if (h.symmetry != Symmetry::general) {
      const std::string pos = "(" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ")";
      if (i < j)
        fail(name, ln,
             "entry " + pos + " lies above the diagonal; a " +
                 (h.symmetry == Symmetry::symmetric ? "symmetric" : "skew-symmetric") +
                 " file stores only the lower triangle");
      if (i == j && h.symmetry == Symmetry::skew_symmetric)
        fail(name, ln,
             "diagonal entry " + pos +
                 " in a skew-symmetric file (its diagonal is zero and not stored)");
    }
    if (eb.over(t.size() + p.t.size())) {  // this line or an earlier one: the merge names it
      p.stop.line = ln;
      p.stop.checked = true;
      return false;
    }
    const bool mirror = i != j && h.symmetry != Symmetry::general;
    T mv = v;
    if (mirror && h.symmetry == Symmetry::skew_symmetric) {
      try {
        mv = negate(v, name, ln);
      } catch (...) {
        p.stop.at(ln, true);  // after the budget check of its line
        return false;
      }
    }
    p.t.push(i, j, v, 2 * ln);
    if (mirror) p.t.push(j, i, mv, 2 * ln + 1);
    ++p.lines;
    return true;
  };
  for_each_chunk(
      cur,
      [&](std::size_t slot, LineCursor& lines) {
        EntryPart<T>& p = parts[slot];
        p.t.clear();  // its memory kept for the next block
        p.lines = 0;
        p.stop = ChunkStop{};
        parse_chunk_lines(lines, p.stop, [&](std::string_view line, std::int64_t ln) {
          return !is_data_line(line) || parse_line(line, ln, p);
        });
      },
      [&](std::size_t slot) {
        EntryPart<T>& p = parts[slot];
        // The first of this chunk's lines that is one too many, then the first over the budget,
        // in line order as the sequential reader meets them (the count is checked first).
        std::int64_t too_many = 0, over = 0;
        std::size_t held_at_over = 0;
        Index seen = 0;
        for (std::size_t k = 0; k < p.t.size() && !(too_many || over); ++k) {
          if (p.t.seq[k] & 1) continue;  // a mirror
          const std::int64_t ln = p.t.seq[k] >> 1;
          if (count + seen == declared)
            too_many = ln;
          else if (eb.over(t.size() + k))
            over = ln, held_at_over = t.size() + k;
          ++seen;
        }
        if (!(too_many || over) && p.stop.line) {
          if (count + p.lines == declared)
            too_many = p.stop.line;
          else if (p.stop.checked && eb.over(t.size() + p.t.size()))
            over = p.stop.line, held_at_over = t.size() + p.t.size();
        }
        if (too_many) fail_too_many(name, too_many, declared, size_line);
        if (over) eb.fail_at(name, over, held_at_over);
        if (p.stop.error) std::rethrow_exception(p.stop.error);
        t.append(p.t, {});
        count += p.lines;
      });
  if (count < declared) fail_too_few(name, cur, count, declared, size_line);
}

/// Reads the entries after the size line into triplets (symmetric expansion included).
template <class T>
void read_entries(LineCursor& cur, const Header& h, Index nrows, Index ncols, Index declared,
                  std::int64_t size_line, std::size_t budget, Triplets<T>& t,
                  const std::string& name) {
  t.nrows = nrows;
  t.ncols = ncols;
  const EntryBudget eb(h, nrows, budget);
  if (h.array)
    read_array(cur, h, nrows, declared, size_line, eb, t, name);
  else
    read_coordinate(cur, h, nrows, ncols, declared, size_line, eb, t, name);
}

template <class T>
Matrix read_typed(LineCursor& cur, const Header& h, Index nrows, Index ncols, Index declared,
                  std::int64_t size_line, std::size_t budget, Type type, const std::string& name) {
  Triplets<T> t;
  read_entries(cur, h, nrows, ncols, declared, size_line, budget, t, name);
  return build_csr(t, Dup::error, type, name);
}

/// a * b, or -1 when it overflows int64.
Index checked_mul(Index a, Index b) {
  Index r;
  return __builtin_mul_overflow(a, b, &r) ? -1 : r;
}

}  // namespace

bool looks_like_matrix_market(std::string_view head) {
  head = strip_bom(head);
  const std::size_t p = head.find_first_not_of(" \t\r\n\v\f");
  if (p == std::string_view::npos) return false;
  head.remove_prefix(p);
  if (head.size() >= 2 && head[0] == '%' && head[1] == '%') return true;  // banner, misspelt too
  if (head.empty() || head[0] != '%') return false;
  // "% MatrixMarket ...": a banner that lost a '%'.
  head.remove_prefix(1);
  const std::size_t q = head.find_first_not_of(" \t");
  if (q == std::string_view::npos) return false;
  head.remove_prefix(q);
  constexpr std::string_view word = "matrixmarket";
  return head.size() >= word.size() && iequals(head.substr(0, word.size()), word);
}

Matrix read_matrix_market_lines(LineCursor& cur, const std::string& name, MatrixInfo* info,
                                Index max_rows, bool as_fp64, std::size_t budget) {
  std::string_view line;
  // A byte-order mark and whitespace before the banner are tolerated (editors add them).
  bool found = false;
  while (cur.next(line)) {
    if (cur.line_number() == 1) line = strip_bom(line);
    if (!is_blank(line)) {
      found = true;
      break;
    }
  }
  if (!found)
    fail(name, std::max<std::int64_t>(cur.line_number(), 1),
         "empty file: missing Matrix Market banner");
  const Header h = parse_banner(line, name, cur.line_number());
  if (!next_data_line(cur, line)) fail(name, cur.line_number(), "file ends before the size line");
  const std::int64_t size_line = cur.line_number();
  std::string_view tok[3];
  const std::size_t want = h.array ? 2 : 3;
  const std::size_t n = split(line, tok, want);
  if (n != want)
    fail(name, size_line,
         "bad size line " + quote(line) + ": expected " +
             (h.array ? "'rows cols'" : "'rows cols entries'"));
  const Index nrows = parse_dim(tok[0], "row count", name, size_line);
  const Index ncols = parse_dim(tok[1], "column count", name, size_line);
  if (nrows > max_rows)
    fail(name, size_line,
         "row count " + std::to_string(nrows) + " exceeds this reader's limit of " +
             std::to_string(max_rows));
  check_budget(
      name, size_line, kBytesPerRow * (static_cast<double>(nrows) + 1), budget,
      "the row pointers of " + std::to_string(nrows) + " rows (size line " + quote(line) + ")",
      "; matrices with far more rows than entries (hypersparse) are not supported");
  if (h.symmetry != Symmetry::general && nrows != ncols)
    fail(name, size_line,
         "a symmetric or skew-symmetric matrix must be square, not " + std::to_string(nrows) +
             " x " + std::to_string(ncols));
  Index declared;
  if (h.array) {
    // Values stored: all, the lower triangle with or without the diagonal.
    Index m;
    if (h.symmetry == Symmetry::symmetric)
      m = checked_mul(nrows, nrows + 1);
    else if (h.symmetry == Symmetry::skew_symmetric)
      m = nrows == 0 ? 0 : checked_mul(nrows, nrows - 1);
    else
      m = checked_mul(nrows, ncols);
    if (m >= 0 && h.symmetry != Symmetry::general) m /= 2;
    const std::int64_t size = cur.size_hint();
    if (m < 0 || (size >= 0 && m > size))
      fail(name, size_line,
           "size " + std::to_string(nrows) + " x " + std::to_string(ncols) +
               " needs more values than the file can hold");
    check_budget(
        name, size_line,
        kBytesPerRow * (static_cast<double>(nrows) + 1) + kBytesPerEntry * static_cast<double>(m),
        budget,
        "the " + std::to_string(m) + " values of a " + std::to_string(nrows) + " x " +
            std::to_string(ncols) + " array");
    declared = m;
  } else {
    declared = parse_dim(tok[2], "entry count", name, size_line);
  }
  if (info) {
    info->field = h.field;
    info->symmetry = h.symmetry;
    info->array_format = h.array;
    info->stored_entries = declared;
  }
  if (h.field == Field::real)
    return read_typed<double>(cur, h, nrows, ncols, declared, size_line, budget, Type::fp64, name);
  if (h.field == Field::integer)
    return read_typed<std::int64_t>(cur, h, nrows, ncols, declared, size_line, budget,
                                    as_fp64 ? Type::fp64 : Type::int64, name);
  return read_typed<std::uint8_t>(cur, h, nrows, ncols, declared, size_line, budget,
                                  as_fp64 ? Type::fp64 : Type::boolean, name);
}

}  // namespace detail

namespace {
template <class F>
Matrix guard_memory(const std::string& name, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(name + ": out of memory while reading Matrix Market", 0);
  } catch (const std::length_error&) {
    throw OutOfMemory(name + ": too large to read", 0);
  }
}
}  // namespace

Matrix read_matrix_market(std::istream& in, const std::string& name, MatrixInfo* info,
                          Index max_rows) {
  return guard_memory(name, [&] {
    detail::LineCursor cur(detail::open_source(in, name), name);
    return detail::read_matrix_market_lines(cur, name, info, max_rows, false,
                                            detail::effective_budget(0));
  });
}

Matrix read_matrix_market(const std::string& path, MatrixInfo* info) {
  return guard_memory(path, [&] {
    detail::LineCursor cur(detail::open_source(path), path);
    return detail::read_matrix_market_lines(cur, path, info, Index{1} << 40, false,
                                            detail::effective_budget(0));
  });
}

DenseMatrix read_dense_matrix_market(const std::string& path) {
  const Matrix a = read_matrix_market(path);
  const Index n = a.nrows(), m = a.ncols();
  Index cells;
  if (__builtin_mul_overflow(n, m, &cells))
    throw OutOfMemory(path + ": " + std::to_string(n) + " x " + std::to_string(m) +
                          " is too large for a dense matrix",
                      0);
  try {
    DenseMatrix d(n, m, a.type(), Layout::row_major);
    const Index* rp = a.row_ptr().as<Index>();
    const Index* ci = a.col_idx().as<Index>();
    visit_type(a.type(), [&](auto vtyp) {
      using V = decltype(vtyp);
      const V* src = a.values().as<V>();
      V* dst = d.values().as<V>();
      for (Index i = 0; i < n; ++i)
        for (Index p = rp[i]; p < rp[i + 1]; ++p) dst[i * m + ci[p]] = src[p];
    });
    return d;
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(path + ": out of memory for a dense " + std::to_string(n) + " x " +
                          std::to_string(m) + " matrix",
                      0);
  }
}

}  // namespace ringblas::io
