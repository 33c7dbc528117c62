// Graph readers: SNAP-style edge lists, mcl --abc label triples, and read_graph, which takes a
// Matrix Market file or a SNAP edge list (header lines of edited copies detected) as a graph.
// All read a stream line by line (constant memory besides the edges).
#include <algorithm>
#include <new>
#include <stdexcept>

#include "backend/core/io/io_chunks.hpp"
#include "backend/core/io/io_detail.hpp"
#include "ringblas/error.hpp"
#include "ringblas/io.hpp"

namespace ringblas::io {

namespace {

using detail::fail;
using detail::LineCursor;
using detail::quote;
using detail::Triplets;

// Ids beyond this cannot be a vertex count of an in-memory CSR matrix (and max + 1 overflows).
constexpr Index kMaxId = Index{1} << 62;

bool is_comment_or_blank(std::string_view line) {
  const std::size_t p = line.find_first_not_of(" \t\r\v\f");
  return p == std::string_view::npos || line[p] == '#' || line[p] == '%';
}

/// Entries the budget allows (the row pointers are checked once n is known).
std::size_t max_entries(std::size_t budget) {
  return static_cast<std::size_t>(static_cast<double>(budget) / detail::kBytesPerEntry);
}

/// The sequential readers' check before an entry is added: OutOfMemory at `line` when the
/// `held` entries and this one exceed the budget.
void check_entry_budget(std::size_t held, std::size_t budget, const std::string& name,
                        std::int64_t line) {
  if (held + 2 > max_entries(budget))
    detail::check_budget(name, line, detail::kBytesPerEntry * static_cast<double>(held + 2), budget,
                         "the edges read up to this line");
}

/// A parsed chunk (for_each_chunk) of an edge or label file: its entries, its labels (abc; local
/// ids in the entries) and where it stopped.
/// A slot's labels outlive its chunk: the next block's chunk in the same slot finds most of them
/// there, and only labels new to the slot are looked up in the file's table at the merge
/// (`global`: local id -> file id). Up to kSlotLabels, then the slot starts afresh (memory).
struct Part {
  std::size_t held = 0;  // entries of the file before this chunk's block (its budget check)
  Triplets<double> t;
  detail::LabelTable labels;
  std::vector<Index> global;
  detail::ChunkStop stop;
};
constexpr std::size_t kSlotLabels = std::size_t{1} << 22;

/// Appends the chunk after `t` as the sequential reader would have read it: the budget check of
/// each of its lines first (with the entries before it), then the chunk's own error.
/// `map` renumbers the chunk's ids (abc labels), or is empty.
void merge_part(Triplets<double>& t, Part& p, const std::vector<Index>& map, std::size_t budget,
                const std::string& name) {
  const std::size_t cap = max_entries(budget), held = t.size(), m = p.t.size();
  if (held + m + 2 > cap) {
    for (std::size_t k = 0; k < m; ++k) check_entry_budget(held + k, budget, name, p.t.seq[k] >> 1);
    if (p.stop.line && p.stop.checked) check_entry_budget(held + m, budget, name, p.stop.line);
  }
  if (p.stop.error) std::rethrow_exception(p.stop.error);
  t.append(p.t, map);
}

/// Runs `parse_line(line, ln, part)` on every line of the rest of `cur` in parallel chunks and
/// merges them into `t` in file order (labels, when `labels` is given, numbered by first
/// appearance). parse_line returns false to stop its chunk; it throws for a bad line.
template <class F>
void parse_rest(LineCursor& cur, Triplets<double>& t, detail::LabelTable* labels,
                std::size_t budget, const std::string& name, F&& parse_line) {
  std::vector<Part> parts(detail::chunk_slots());
  detail::for_each_chunk(
      cur,
      [&](std::size_t slot, LineCursor& lines) {
        Part& p = parts[slot];
        p.t.clear();
        p.held = t.size();  // merges wait for the whole block: stable while it is parsed
        p.stop = detail::ChunkStop{};
        detail::parse_chunk_lines(lines, p.stop, [&](std::string_view line, std::int64_t ln) {
          return parse_line(line, ln, p);
        });
      },
      [&](std::size_t slot) {
        Part& p = parts[slot];
        // The labels new to the slot, in their order of first appearance in this chunk: those
        // new to the file are numbered in that order, after every label of the earlier chunks.
        if (labels)
          for (std::size_t k = p.global.size(); k < p.labels.size(); ++k)
            p.global.push_back(labels->intern(p.labels.label(static_cast<Index>(k))));
        merge_part(t, p, p.global, budget, name);
        if (p.labels.size() > kSlotLabels) p.labels = detail::LabelTable{}, p.global.clear();
      });
}

/// Adds an entry to the part unless the entries before its block and its own are over the
/// budget (the chunk then stops at `ln`; the merge names the line where the file's entries
/// reach the budget, this one or an earlier one), so that a block holds at most the budget.
bool push_checked(Part& p, Index i, Index j, double w, std::int64_t ln, std::size_t budget) {
  if (p.held + p.t.size() + 2 > max_entries(budget)) {
    p.stop.line = ln;
    p.stop.checked = true;
    return false;
  }
  p.t.push(i, j, w, 2 * ln);
  return true;
}

/// A first data line of two or three tokens none of which is a number ("nd nw"): a header.
bool is_word_header(const std::string_view* tok, std::size_t n) {
  if (n < 2 || n > 3) return false;
  for (std::size_t k = 0; k < n; ++k) {
    double d;
    if (detail::parse_real(tok[k], d)) return false;
  }
  return true;
}

/// The edge on a data line; ParseError naming line `ln` when it is malformed.
void parse_edge(std::string_view line, std::int64_t ln, const EdgeListOptions& opt,
                const std::string& name, Index (&id)[2], double& w) {
  const Index base = opt.base;
  std::string_view tok[3];
  const std::size_t n = detail::split(line, tok, 3);
  if (n < 2) fail(name, ln, "expected 'src dst [weight]', found " + std::to_string(n) + " field");
  if (n > 3) {
    std::string_view extra[4];
    detail::split(line, extra, 4);
    fail(name, ln, "unexpected extra field " + quote(extra[3]) + " (expected 'src dst [weight]')");
  }
  for (int k = 0; k < 2; ++k) {
    if (!detail::parse_int(tok[k], id[k]))
      fail(name, ln, "vertex id " + detail::int_problem(tok[k]));
    if (id[k] < base || id[k] - base >= kMaxId)
      fail(name, ln,
           "vertex id " + std::to_string(id[k]) + " out of range (ids are " + std::to_string(base) +
               "-based)");
  }
  w = 1.0;
  if (n == 3 && !detail::parse_real(tok[2], w))
    fail(name, ln, "weight " + quote(tok[2]) + " is not a real number");
  if (opt.pattern) w = 1.0;
}

/// Edges of the lines after the first `skip` lines, ids shifted by -base, in file order.
/// With opt.detect_header the first data line may be a header (see EdgeListOptions). The lines
/// up to the first data line are read here; the rest in parallel chunks.
Triplets<double> parse_edges(LineCursor& cur, const std::string& name, std::int64_t skip,
                             const EdgeListOptions& opt, std::size_t budget,
                             std::vector<std::string>* notes) {
  const Index base = opt.base;
  Triplets<double> t;
  t.shown_base = base;  // messages show ids as the file gives them
  std::string_view line, tok[3];
  std::int64_t candidate_line = 0;  // "n m" line kept as an edge until the end decides
  Index cand_n = 0, cand_m = 0;
  std::string candidate_text;
  while (cur.next(line)) {
    if (cur.line_number() == 1) line = detail::strip_bom(line);
    if (cur.line_number() <= skip || is_comment_or_blank(line)) continue;
    const std::int64_t ln = cur.line_number();
    if (opt.detect_header) {
      const std::size_t n = detail::split(line, tok, 3);
      if (is_word_header(tok, n)) {
        if (notes)
          notes->push_back(name + ":" + std::to_string(ln) + ": line " + quote(line) +
                           " is not an edge; skipped as a header");
        break;
      }
      Index a, b;
      if (n == 2 && detail::parse_int(tok[0], a) && detail::parse_int(tok[1], b) && a >= 0 &&
          b >= 0) {
        candidate_line = ln;
        cand_n = a;
        cand_m = b;
        candidate_text = std::string(line);
      }
    }
    Index id[2];
    double w;
    parse_edge(line, ln, opt, name, id, w);
    check_entry_budget(t.size(), budget, name, ln);
    t.push(id[0] - base, id[1] - base, w, 2 * ln);
    break;
  }
  parse_rest(cur, t, nullptr, budget, name, [&](std::string_view l, std::int64_t ln, Part& p) {
    if (is_comment_or_blank(l)) return true;
    Index id[2];
    double w;
    parse_edge(l, ln, opt, name, id, w);
    return push_checked(p, id[0] - base, id[1] - base, w, ln, budget);
  });
  if (candidate_line > 0 && static_cast<Index>(t.size()) - 1 == cand_m) {
    // "n m" followed by exactly m edges over n vertices: a header (p2p-Gnutella31 copies).
    std::vector<Index> ids;
    ids.reserve(2 * t.size());
    Index max_id = -1;
    for (std::size_t k = 1; k < t.size(); ++k) {
      ids.push_back(t.rows[k]);
      ids.push_back(t.cols[k]);
      max_id = std::max({max_id, t.rows[k], t.cols[k]});
    }
    std::sort(ids.begin(), ids.end());
    const Index distinct = std::unique(ids.begin(), ids.end()) - ids.begin();
    if (distinct == cand_n || max_id + 1 == cand_n) {
      t.rows.erase(t.rows.begin());
      t.cols.erase(t.cols.begin());
      t.vals.erase(t.vals.begin());
      t.seq.erase(t.seq.begin());
      if (notes)
        notes->push_back(name + ":" + std::to_string(candidate_line) + ": line " +
                         quote(candidate_text) + " read as a header 'n m' (" +
                         std::to_string(cand_m) + " edges over " + std::to_string(cand_n) +
                         " vertices follow), not as an edge");
    }
  }
  return t;
}

/// Renumbers the ids that occur to 0..count-1 in increasing order; returns count.
Index compact_ids(Triplets<double>& t) {
  std::vector<Index> ids;
  ids.reserve(t.rows.size() * 2);
  ids.insert(ids.end(), t.rows.begin(), t.rows.end());
  ids.insert(ids.end(), t.cols.begin(), t.cols.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto rank = [&](Index v) {
    return static_cast<Index>(std::lower_bound(ids.begin(), ids.end(), v) - ids.begin());
  };
  for (auto& v : t.rows) v = rank(v);
  for (auto& v : t.cols) v = rank(v);
  return static_cast<Index>(ids.size());
}

void add_mirrors(Triplets<double>& t) {
  const std::size_t n = t.rows.size();
  t.reserve(2 * n);
  for (std::size_t k = 0; k < n; ++k)
    if (t.rows[k] != t.cols[k]) t.push(t.cols[k], t.rows[k], t.vals[k], t.seq[k] | 1);
}

/// Sizes, optional mirrors and CSR build shared by the edge-list readers.
Matrix finish(Triplets<double>& t, const EdgeListOptions& opt, const std::string& name,
              std::size_t budget, std::size_t* merged) {
  if (opt.rectangular) {
    t.nrows = t.ncols = 0;
    for (std::size_t k = 0; k < t.rows.size(); ++k) {
      t.nrows = std::max(t.nrows, t.rows[k] + 1);
      t.ncols = std::max(t.ncols, t.cols[k] + 1);
    }
    detail::check_budget(name, 0,
                         detail::kBytesPerRow * static_cast<double>(t.nrows + 1) +
                             detail::kBytesPerEntry * static_cast<double>(t.size()),
                         budget, "the row pointers of " + std::to_string(t.nrows) + " rows");
    return detail::build_csr(t, opt.dup, Type::fp64, name, merged);
  }
  Index n = 0;
  std::size_t at = 0;  // the entry holding the largest id
  if (opt.compact_ids) {
    n = compact_ids(t);
  } else {
    for (std::size_t k = 0; k < t.rows.size(); ++k) {
      const Index m = std::max(t.rows[k], t.cols[k]) + 1;
      if (m > n) n = m, at = k;
    }
  }
  if (opt.nvertices >= 0) {
    if (n > opt.nvertices) {
      // Name the first line whose id does not fit.
      for (std::size_t k = 0; k < t.rows.size(); ++k)
        if (std::max(t.rows[k], t.cols[k]) >= opt.nvertices)
          fail(name, t.seq[k] >> 1,
               "vertex " +
                   std::to_string(std::max(t.rows[k], t.cols[k]) + opt.base * !opt.compact_ids) +
                   " does not fit in nvertices = " + std::to_string(opt.nvertices) +
                   (opt.compact_ids ? " (after compaction)" : ""));
    }
    n = opt.nvertices;
  } else if (t.size() == 0) {
    fail(name, 0,
         "no edges: the file is empty or holds only blank and comment lines (an empty graph "
         "needs its vertex count given)");
  }
  const double entries = static_cast<double>(t.size()) * (opt.symmetrize ? 2 : 1);
  detail::check_budget(
      name, t.size() && opt.nvertices < 0 && !opt.compact_ids ? t.seq[at] >> 1 : 0,
      detail::kBytesPerRow * (static_cast<double>(n) + 1) + detail::kBytesPerEntry * entries,
      budget,
      "vertex ids up to " + std::to_string(n - 1 + opt.base) + " (" + std::to_string(n) +
          " rows of row pointers) and " + std::to_string(static_cast<std::int64_t>(entries)) +
          " entries",
      "; renumber sparse ids with compact_ids (--compact-ids)");
  t.nrows = t.ncols = n;
  if (opt.symmetrize) add_mirrors(t);
  return detail::build_csr(t, opt.dup, Type::fp64, name, merged);
}

template <class F>
auto guard_memory(const std::string& path, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(path + ": out of memory while reading", 0);
  } catch (const std::length_error&) {
    throw OutOfMemory(path + ": too large to read", 0);
  }
}

void check_options(const EdgeListOptions& opt) {
  if (opt.base != 0 && opt.base != 1)
    throw InvalidValue("io::read_edge_list: base must be 0 or 1, not " + std::to_string(opt.base));
  if (opt.rectangular && (opt.symmetrize || opt.compact_ids || opt.nvertices >= 0))
    throw InvalidValue(
        "io::read_edge_list: rectangular excludes symmetrize, compact_ids and nvertices");
}

}  // namespace

namespace detail {

Matrix read_edge_list_lines(LineCursor& cur, const std::string& name, const EdgeListOptions& opt,
                            int skip_header_lines, std::vector<std::string>* notes) {
  check_options(opt);
  const std::size_t budget = effective_budget(opt.memory_budget);
  Triplets<double> t = parse_edges(cur, name, skip_header_lines, opt, budget, notes);
  // Dup::error: the same edge repeated with the same value loses nothing and is merged (noted);
  // with another value it is an error naming both lines.
  std::size_t merged = 0;
  Matrix a = finish(t, opt, name, budget, opt.dup == Dup::error ? &merged : nullptr);
  if (merged && notes)
    notes->push_back(name + ": " + std::to_string(merged) +
                     " repeated edge(s) with equal values kept once");
  return a;
}

Matrix read_abc_lines(LineCursor& cur, const std::string& name, std::vector<std::string>* labels,
                      const EdgeListOptions& opt) {
  if (opt.base != 0 || opt.compact_ids || opt.nvertices >= 0 || opt.rectangular)
    throw InvalidValue(
        "io::read_abc: labels are numbered by first appearance; base, compact_ids, nvertices "
        "and rectangular do not apply");
  const std::size_t budget = effective_budget(opt.memory_budget);
  LabelTable names;
  Triplets<double> t;
  t.shown_base = 0;
  parse_rest(cur, t, &names, budget, name, [&](std::string_view line, std::int64_t ln, Part& p) {
    if (ln == 1) line = strip_bom(line);
    const std::size_t q = line.find_first_not_of(" \t\r\v\f");
    if (q == std::string_view::npos || line[q] == '#') return true;
    std::string_view tok[3];
    const std::size_t n = split(line, tok, 3);
    if (n < 2) fail(name, ln, "expected 'label label [weight]', found 1 field");
    if (n > 3) {
      std::string_view extra[4];
      split(line, extra, 4);
      fail(name, ln,
           "unexpected extra field " + quote(extra[3]) + " (expected 'label label [weight]')");
    }
    double w = 1.0;
    if (n == 3 && !parse_real(tok[2], w))
      fail(name, ln, "weight " + quote(tok[2]) + " is not a real number");
    if (opt.pattern) w = 1.0;
    // Local ids in the chunk's first-appearance order; the merge renumbers them (the labels new
    // in a chunk are new in the file in that order).
    const Index a = p.labels.intern(tok[0]);
    const Index b = p.labels.intern(tok[1]);
    return push_checked(p, a, b, w, ln, budget);
  });
  if (names.size() == 0)
    fail(name, 0, "no label pairs: the file is empty or holds only blank and comment lines");
  EdgeListOptions fin = opt;
  fin.nvertices = static_cast<Index>(names.size());
  Matrix a = finish(t, fin, name, budget, nullptr);
  if (labels) *labels = names.labels();
  return a;
}

}  // namespace detail

Matrix read_edge_list(const std::string& path, const EdgeListOptions& opt, int skip_header_lines) {
  check_options(opt);
  return guard_memory(path, [&] {
    LineCursor cur(detail::open_source(path), path);
    return detail::read_edge_list_lines(cur, path, opt, skip_header_lines, nullptr);
  });
}

Matrix read_graph(const std::string& path) {
  return guard_memory(path, [&] {
    LineCursor cur(detail::open_source(path), path);
    if (detail::looks_like_matrix_market(cur.peek(4096)))
      return detail::read_matrix_market_lines(cur, path, nullptr, Index{1} << 40, true,
                                              detail::effective_budget(0));
    EdgeListOptions opt;
    opt.base = 0;
    opt.symmetrize = true;
    opt.compact_ids = true;
    opt.pattern = true;    // a graph: every value 1.0
    opt.dup = Dup::first;  // every value is 1.0, so any policy gives the same matrix
    opt.detect_header = true;
    return detail::read_edge_list_lines(cur, path, opt, 0, nullptr);
  });
}

Matrix read_abc(const std::string& path, std::vector<std::string>* labels,
                const EdgeListOptions& opt) {
  return guard_memory(path, [&] {
    LineCursor cur(detail::open_source(path), path);
    return detail::read_abc_lines(cur, path, labels, opt);
  });
}

Matrix read_abc(const std::string& path, std::vector<std::string>* labels, bool symmetrize) {
  EdgeListOptions opt;
  opt.symmetrize = symmetrize;
  opt.dup = Dup::max;
  return read_abc(path, labels, opt);
}

}  // namespace ringblas::io
