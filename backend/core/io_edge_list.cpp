// Graph readers: SNAP-style edge lists, mcl --abc label triples, and read_graph, which takes a
// Matrix Market file or a SNAP edge list (header lines of edited copies detected) as a graph.
#include <algorithm>
#include <new>
#include <stdexcept>
#include <unordered_map>

#include "backend/core/io_detail.hpp"
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

/// Edges of the lines after the first `skip` lines, ids shifted by -base, in file order.
Triplets<double> parse_edges(std::string_view text, const std::string& name, std::int64_t skip,
                             Index base) {
  Triplets<double> t;
  LineCursor cur(text);
  std::string_view line, tok[3];
  while (cur.next(line)) {
    if (cur.line_number() <= skip || is_comment_or_blank(line)) continue;
    const std::int64_t ln = cur.line_number();
    const std::size_t n = detail::split(line, tok, 3);
    if (n < 2) fail(name, ln, "expected 'src dst [weight]', found " + std::to_string(n) + " field");
    if (n > 3) {
      std::string_view extra[4];
      detail::split(line, extra, 4);
      fail(name, ln,
           "unexpected extra field " + quote(extra[3]) + " (expected 'src dst [weight]')");
    }
    Index id[2];
    for (int k = 0; k < 2; ++k) {
      if (!detail::parse_int(tok[k], id[k]))
        fail(name, ln, "vertex id " + quote(tok[k]) + " is not an integer");
      if (id[k] < base || id[k] - base >= kMaxId)
        fail(name, ln,
             "vertex id " + std::to_string(id[k]) + " out of range (ids are " +
                 std::to_string(base) + "-based)");
    }
    double w = 1.0;
    if (n == 3 && !detail::parse_real(tok[2], w))
      fail(name, ln, "weight " + quote(tok[2]) + " is not a real number");
    t.push(id[0] - base, id[1] - base, w, 2 * ln);
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
Matrix finish(Triplets<double>& t, const EdgeListOptions& opt, const std::string& name) {
  if (opt.rectangular) {
    t.nrows = t.ncols = 0;
    for (std::size_t k = 0; k < t.rows.size(); ++k) {
      t.nrows = std::max(t.nrows, t.rows[k] + 1);
      t.ncols = std::max(t.ncols, t.cols[k] + 1);
    }
    return detail::build_csr(t, opt.dup, Type::fp64, name);
  }
  Index n = 0;
  if (opt.compact_ids) {
    n = compact_ids(t);
  } else {
    for (std::size_t k = 0; k < t.rows.size(); ++k) n = std::max({n, t.rows[k] + 1, t.cols[k] + 1});
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
  }
  t.nrows = t.ncols = n;
  if (opt.symmetrize) add_mirrors(t);
  return detail::build_csr(t, opt.dup, Type::fp64, name);
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

/// Whether the first data line (tokens `tok`, `n` of them) is an edge of a SNAP file.
bool looks_like_edge(const std::string_view* tok, std::size_t n) {
  if (n != 2 && n != 3) return false;
  Index v;
  double w;
  return detail::parse_int(tok[0], v) && v >= 0 && detail::parse_int(tok[1], v) && v >= 0 &&
         (n == 2 || detail::parse_real(tok[2], w));
}

}  // namespace

Matrix read_edge_list(const std::string& path, const EdgeListOptions& opt, int skip_header_lines) {
  if (opt.base != 0 && opt.base != 1)
    throw InvalidValue("io::read_edge_list: base must be 0 or 1, not " + std::to_string(opt.base));
  if (opt.rectangular && (opt.symmetrize || opt.compact_ids || opt.nvertices >= 0))
    throw InvalidValue(
        "io::read_edge_list: rectangular excludes symmetrize, compact_ids and nvertices");
  return guard_memory(path, [&] {
    const std::string text = read_file_text(path);
    Triplets<double> t = parse_edges(text, path, skip_header_lines, opt.base);
    return finish(t, opt, path);
  });
}

Matrix read_graph(const std::string& path) {
  return guard_memory(path, [&] {
    const std::string text = read_file_text(path);
    if (detail::has_matrix_market_banner(text))
      return detail::read_matrix_market_text(text, path, nullptr, Index{1} << 40, true);
    EdgeListOptions opt;
    opt.base = 0;
    opt.symmetrize = true;
    opt.compact_ids = true;
    opt.dup = Dup::first;  // every value is 1.0, so any policy gives the same matrix

    // Find the first data line and decide whether it is a header.
    LineCursor cur(text);
    std::string_view line, tok[3];
    std::int64_t first = 0;
    std::size_t ntok = 0;
    while (cur.next(line)) {
      if (is_comment_or_blank(line)) continue;
      first = cur.line_number();
      ntok = detail::split(line, tok, 3);
      break;
    }
    Triplets<double> t;
    if (first > 0 && !looks_like_edge(tok, ntok)) {
      t = parse_edges(text, path, first, 0);  // a header such as "nd nw"
    } else if (first > 0 && ntok == 2) {
      Index n_decl = 0, m_decl = 0;
      detail::parse_int(tok[0], n_decl);
      detail::parse_int(tok[1], m_decl);
      t = parse_edges(text, path, first, 0);
      Triplets<double> probe = t;
      const bool header =
          static_cast<Index>(t.rows.size()) == m_decl && compact_ids(probe) == n_decl;
      if (!header) t = parse_edges(text, path, 0, 0);
    } else {
      t = parse_edges(text, path, 0, 0);
    }
    for (auto& v : t.vals) v = 1.0;
    return finish(t, opt, path);
  });
}

Matrix read_abc(const std::string& path, std::vector<std::string>* labels, bool symmetrize) {
  return guard_memory(path, [&] {
    const std::string text = read_file_text(path);
    std::unordered_map<std::string_view, Index> id;
    std::vector<std::string_view> names;
    Triplets<double> t;
    LineCursor cur(text);
    std::string_view line, tok[3];
    auto label = [&](std::string_view s) {
      auto [it, inserted] = id.try_emplace(s, static_cast<Index>(names.size()));
      if (inserted) names.push_back(s);
      return it->second;
    };
    while (cur.next(line)) {
      const std::size_t p = line.find_first_not_of(" \t\r\v\f");
      if (p == std::string_view::npos || line[p] == '#') continue;
      const std::int64_t ln = cur.line_number();
      const std::size_t n = detail::split(line, tok, 3);
      if (n < 2) fail(path, ln, "expected 'label label [weight]', found 1 field");
      if (n > 3) {
        std::string_view extra[4];
        detail::split(line, extra, 4);
        fail(path, ln,
             "unexpected extra field " + quote(extra[3]) + " (expected 'label label [weight]')");
      }
      double w = 1.0;
      if (n == 3 && !detail::parse_real(tok[2], w))
        fail(path, ln, "weight " + quote(tok[2]) + " is not a real number");
      const Index a = label(tok[0]);
      const Index b = label(tok[1]);
      t.push(a, b, w, 2 * ln);
    }
    if (labels) labels->assign(names.begin(), names.end());
    EdgeListOptions opt;
    opt.symmetrize = symmetrize;
    opt.dup = Dup::max;
    opt.nvertices = static_cast<Index>(names.size());
    return finish(t, opt, path);
  });
}

}  // namespace ringblas::io
