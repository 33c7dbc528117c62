// read_matrix: one entry point for every input format, with the format named or detected by a
// rule that never guesses (detect_format), and standard input as "-".
#include <algorithm>
#include <cctype>
#include <new>
#include <stdexcept>

#include "backend/core/io/io_detail.hpp"
#include "ringblas/error.hpp"
#include "ringblas/io.hpp"

namespace ringblas::io {

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

constexpr const char* kFormats = "mm, snap, abc, mci";

}  // namespace

const char* format_name(Format f) {
  switch (f) {
    case Format::matrix_market:
      return "mm";
    case Format::edge_list:
      return "snap";
    case Format::abc:
      return "abc";
    case Format::mci:
      return "mci";
    default:
      return "auto";
  }
}

Format parse_format(const std::string& name) {
  const std::string n = lower(name);
  if (n == "auto") return Format::automatic;
  if (n == "mm" || n == "mtx" || n == "matrix-market") return Format::matrix_market;
  if (n == "snap" || n == "edge-list" || n == "edges" || n == "el") return Format::edge_list;
  if (n == "abc") return Format::abc;
  if (n == "mci") return Format::mci;
  throw InvalidValue("unknown format '" + name + "' (valid: " + kFormats + ", auto)");
}

Format detect_format(const std::string& name, std::string_view head) {
  if (detail::looks_like_matrix_market(head)) return Format::matrix_market;
  std::string n = lower(name);
  if (ends_with(n, ".gz")) n.resize(n.size() - 3);
  const auto slash = n.find_last_of('/');
  const auto dot = n.find_last_of('.');
  const std::string ext =
      dot != std::string::npos && (slash == std::string::npos || dot > slash) ? n.substr(dot) : "";
  if (ext == ".mtx" || ext == ".mm") return Format::matrix_market;
  if (ext == ".txt" || ext == ".el" || ext == ".edges" || ext == ".edgelist" || ext == ".snap" ||
      ext == ".tsv")
    return Format::edge_list;
  if (ext == ".abc") return Format::abc;
  if (ext == ".mci") return Format::mci;
  detail::fail(name, 0,
               "cannot tell the format: no Matrix Market banner and " +
                   (ext.empty() ? std::string("no extension") : "extension '" + ext + "'") +
                   " is not one of .mtx .mm (Matrix Market), .txt .el .edges .edgelist .snap "
                   ".tsv (edge list), .abc (label triples), .mci (mcl); name it with --format " +
                   "mm|snap|abc|mci");
}

namespace {

/// `path`: the file behind `cur`, or nullptr for a stream (standard input or a caller's stream).
LoadedMatrix read_from(detail::LineCursor& cur, const std::string& name, const ReadOptions& opt,
                       const std::string* path) {
  {
    LoadedMatrix out;
    out.format = opt.format == Format::automatic ? detect_format(name, cur.peek(4096)) : opt.format;
    const std::size_t budget = detail::effective_budget(opt.memory_budget);
    switch (out.format) {
      case Format::matrix_market: {
        if (opt.symmetrize || opt.compact_ids || opt.pattern || opt.nvertices >= 0 || opt.base)
          throw InvalidValue(name +
                             ": --symmetric, --compact-ids, --pattern, --nvertices and --base "
                             "apply to edge lists and abc files; a Matrix Market file states its "
                             "own field and symmetry");
        out.matrix =
            detail::read_matrix_market_lines(cur, name, &out.info, Index{1} << 40, false, budget);
        break;
      }
      case Format::edge_list: {
        EdgeListOptions e;
        e.base = opt.base;
        e.symmetrize = opt.symmetrize;
        e.compact_ids = opt.compact_ids;
        e.nvertices = opt.nvertices;
        e.pattern = opt.pattern;
        e.dup = Dup::error;
        e.detect_header = true;
        e.memory_budget = budget;
        out.matrix = detail::read_edge_list_lines(cur, name, e, 0, &out.notes);
        out.info.field = opt.pattern ? Field::pattern : Field::real;
        out.info.symmetry = opt.symmetrize ? Symmetry::symmetric : Symmetry::general;
        out.info.stored_entries = out.matrix.nnz();
        break;
      }
      case Format::abc: {
        if (opt.compact_ids || opt.nvertices >= 0 || opt.base)
          throw InvalidValue(name +
                             ": --compact-ids, --nvertices and --base do not apply to abc files "
                             "(labels are numbered in order of first appearance)");
        EdgeListOptions e;
        e.symmetrize = opt.symmetrize;
        e.pattern = opt.pattern;
        e.dup = Dup::max;  // mcl's rule for repeated pairs
        e.memory_budget = budget;
        out.matrix = detail::read_abc_lines(cur, name, &out.labels, e);
        out.info.field = opt.pattern ? Field::pattern : Field::real;
        out.info.symmetry = opt.symmetrize ? Symmetry::symmetric : Symmetry::general;
        out.info.stored_entries = out.matrix.nnz();
        break;
      }
      case Format::mci:
        // read_mci tokenises the whole text of a named file (mci files are mcl's own output,
        // one column vector per block); streams are not supported.
        if (!path) throw NotImplemented(name + ": mcl's mci format is read from a named file only");
        if (opt.symmetrize || opt.pattern || opt.compact_ids || opt.nvertices >= 0 || opt.base)
          throw InvalidValue(name + ": --symmetric, --pattern, --compact-ids, --nvertices and "
                                    "--base do not apply to mci files (read as mcl wrote them)");
        out.matrix = read_mci(*path);
        out.info.field = Field::real;
        out.info.symmetry = Symmetry::general;
        out.info.stored_entries = out.matrix.nnz();
        break;
      default:
        throw InvalidValue(name + ": no format to read");
    }
    return out;
  }
}

template <class F>
LoadedMatrix guard_memory(const std::string& name, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(name + ": out of memory while reading", 0);
  } catch (const std::length_error&) {
    throw OutOfMemory(name + ": too large to read", 0);
  }
}

}  // namespace

LoadedMatrix read_matrix(const std::string& path, const ReadOptions& opt) {
  const std::string name = path == "-" ? "<stdin>" : path;
  return guard_memory(name, [&] {
    detail::LineCursor cur(detail::open_source(path), name);
    return read_from(cur, name, opt, path == "-" ? nullptr : &path);
  });
}

LoadedMatrix read_matrix(std::istream& in, const std::string& name, const ReadOptions& opt) {
  return guard_memory(name, [&] {
    detail::LineCursor cur(detail::open_source(in, name), name);
    return read_from(cur, name, opt, nullptr);
  });
}

}  // namespace ringblas::io
