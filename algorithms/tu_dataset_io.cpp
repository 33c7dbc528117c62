// Reader of TU-layout graph-classification sets (formats in tu_dataset_io.hpp).
#include "algorithms/tu_dataset_io.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <string_view>

#include "ringblas/error.hpp"
#include "ringblas/io.hpp"

namespace ringblas::tu {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, Index line, const std::string& why) {
  throw ParseError(path + ":" + std::to_string(line) + ": " + why);
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

bool parse_int(std::string_view s, std::int64_t& v) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

/// Calls f(line_number, line) for each line of the file; blank lines are errors (TU files have a
/// value on every line, and a blank one would shift every later node or graph by one).
template <class F>
void for_each_line(const std::string& path, const std::string& text, F f) {
  std::size_t pos = 0;
  Index line_no = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    ++line_no;
    pos = end + 1;
    if (trim(line).empty()) fail(path, line_no, "blank line (every line holds a value)");
    f(line_no, line);
  }
}

/// `dir`/`prefix``suffix`, or the same with ".gz"; "" when neither exists.
std::string existing(const std::string& dir, const std::string& stem) {
  for (const std::string& p : {dir + "/" + stem, dir + "/" + stem + ".gz"})
    if (fs::exists(p)) return p;
  return {};
}

std::string require_file(const std::string& dir, const std::string& stem) {
  std::string p = existing(dir, stem);
  if (p.empty()) throw IoError(dir + ": no " + stem + " (or " + stem + ".gz)");
  return p;
}

/// One integer per line; `expect` lines (or any number when -1).
std::vector<std::int64_t> read_column(const std::string& path, Index expect, const char* what) {
  std::vector<std::int64_t> out;
  if (expect >= 0) out.reserve(static_cast<std::size_t>(expect));
  const std::string text = io::read_file_text(path);
  for_each_line(path, text, [&](Index line, std::string_view s) {
    std::int64_t v = 0;
    if (!parse_int(s, v))
      fail(path, line, std::string("not an integer ") + what + ": '" + std::string(trim(s)) + "'");
    out.push_back(v);
  });
  if (expect >= 0 && static_cast<Index>(out.size()) != expect)
    throw ParseError(path + ": " + std::to_string(out.size()) + " lines but there are " +
                     std::to_string(expect) + " " + what + "s");
  return out;
}

/// graph_ptr from the indicator: ids 1..N in non-decreasing order, none skipped.
std::vector<Index> graph_pointers(const std::string& path, const std::vector<std::int64_t>& ind) {
  std::vector<Index> ptr{0};
  std::int64_t cur = 1;
  for (std::size_t i = 0; i < ind.size(); ++i) {
    const Index line = static_cast<Index>(i) + 1;
    const std::int64_t g = ind[i];
    if (i == 0 && g != 1)
      fail(path, line, "the first graph id is " + std::to_string(g) + ", not 1");
    if (g == cur) continue;
    if (g < cur)
      fail(path, line,
           "graph id " + std::to_string(g) + " after " + std::to_string(cur) +
               " (a graph's nodes must be consecutive)");
    if (g > cur + 1)
      fail(path, line,
           "graph id " + std::to_string(g) + " after " + std::to_string(cur) + ": graph " +
               std::to_string(cur + 1) + " has no nodes");
    ptr.push_back(static_cast<Index>(i));
    cur = g;
  }
  ptr.push_back(static_cast<Index>(ind.size()));
  return ptr;
}

/// Edges as a block-diagonal pattern; the graph of each node is found from graph_ptr.
Matrix read_edges(const std::string& path, const std::vector<std::int64_t>& indicator, bool* sym) {
  const Index n = static_cast<Index>(indicator.size());
  struct Edge {
    Index i, j, line;
  };
  std::vector<Edge> edges;
  const std::string text = io::read_file_text(path);
  for_each_line(path, text, [&](Index line, std::string_view s) {
    const auto comma = s.find(',');
    if (comma == std::string_view::npos)
      fail(path, line, "expected 'i, j', found '" + std::string(trim(s)) + "'");
    std::int64_t i = 0, j = 0;
    if (!parse_int(s.substr(0, comma), i) || !parse_int(s.substr(comma + 1), j))
      fail(path, line,
           "expected two integer node ids 'i, j', found '" + std::string(trim(s)) + "'");
    for (std::int64_t v : {i, j})
      if (v < 1 || v > n)
        fail(path, line, "node id " + std::to_string(v) + " out of range 1.." + std::to_string(n));
    if (indicator[i - 1] != indicator[j - 1])
      fail(path, line,
           "edge " + std::to_string(i) + ", " + std::to_string(j) + " joins graph " +
               std::to_string(indicator[i - 1]) + " and graph " + std::to_string(indicator[j - 1]));
    edges.push_back({i - 1, j - 1, line});
  });
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    return a.i != b.i ? a.i < b.i : a.j != b.j ? a.j < b.j : a.line < b.line;
  });
  for (std::size_t k = 1; k < edges.size(); ++k)
    if (edges[k].i == edges[k - 1].i && edges[k].j == edges[k - 1].j)
      fail(path, edges[k].line,
           "edge " + std::to_string(edges[k].i + 1) + ", " + std::to_string(edges[k].j + 1) +
               " repeats line " + std::to_string(edges[k - 1].line));
  std::vector<std::int64_t> row_ptr(static_cast<std::size_t>(n) + 1, 0), col(edges.size());
  for (std::size_t k = 0; k < edges.size(); ++k) {
    ++row_ptr[static_cast<std::size_t>(edges[k].i) + 1];
    col[k] = edges[k].j;
  }
  for (Index r = 0; r < n; ++r) row_ptr[r + 1] += row_ptr[r];
  // Symmetric iff every (i, j) has (j, i): binary search in the sorted rows.
  *sym = true;
  for (const Edge& e : edges) {
    const auto b = col.begin() + row_ptr[e.j], en = col.begin() + row_ptr[e.j + 1];
    if (!std::binary_search(b, en, e.i)) {
      *sym = false;
      break;
    }
  }
  return Matrix::from_csr(n, n, row_ptr, col, std::vector<float>(edges.size(), 1.0f));
}

/// Splits a csv line at commas (no quoting: the TU csv has numbers and blanks only).
std::vector<std::string_view> split_csv(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (true) {
    const auto c = s.find(',', pos);
    out.push_back(
        trim(s.substr(pos, c == std::string_view::npos ? std::string_view::npos : c - pos)));
    if (c == std::string_view::npos) break;
    pos = c + 1;
  }
  return out;
}

void read_csv_labels(const std::string& path, Dataset& ds) {
  const std::string text = io::read_file_text(path);
  Index rows = 0;
  std::size_t fields = 0;
  for_each_line(path, text, [&](Index line, std::string_view s) {
    const auto f = split_csv(s);
    if (line == 1) {
      if (f.size() < 2) fail(path, line, "header needs an id column and at least one task");
      fields = f.size();
      for (std::size_t t = 1; t < f.size(); ++t) ds.task_names.emplace_back(f[t]);
      ds.num_tasks = static_cast<Index>(f.size()) - 1;
      ds.targets.reserve(static_cast<std::size_t>(ds.num_graphs * ds.num_tasks));
      return;
    }
    if (f.size() != fields)
      fail(path, line,
           std::to_string(f.size()) + " fields, the header has " + std::to_string(fields));
    for (std::size_t t = 1; t < f.size(); ++t) {
      if (f[t].empty()) {
        ds.targets.push_back(std::numeric_limits<float>::quiet_NaN());
      } else if (f[t] == "0" || f[t] == "0.0" || f[t] == "1" || f[t] == "1.0") {
        ds.targets.push_back(f[t][0] == '1' ? 1.0f : 0.0f);
      } else {
        fail(path, line,
             "task " + ds.task_names[t - 1] + ": '" + std::string(f[t]) +
                 "' is not 0, 1 or blank (missing)");
      }
    }
    ++rows;
  });
  if (fields == 0) throw ParseError(path + ": empty file");
  if (rows != ds.num_graphs)
    throw ParseError(path + ": " + std::to_string(rows) + " label rows but there are " +
                     std::to_string(ds.num_graphs) + " graphs");
}

void read_class_labels(const std::string& path, Dataset& ds) {
  const auto cls = read_column(path, ds.num_graphs, "graph label");
  std::vector<std::int64_t> values(cls);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (values.size() < 2) throw ParseError(path + ": every graph has the same class");
  const auto index_of = [&](std::int64_t v) {
    return std::lower_bound(values.begin(), values.end(), v) - values.begin();
  };
  if (values.size() == 2) {
    ds.num_tasks = 1;
    ds.task_names = {"class=" + std::to_string(values[1])};
    for (std::int64_t c : cls) ds.targets.push_back(static_cast<float>(index_of(c)));
    return;
  }
  ds.num_tasks = static_cast<Index>(values.size());
  for (std::int64_t v : values) ds.task_names.push_back("class=" + std::to_string(v));
  ds.targets.assign(static_cast<std::size_t>(ds.num_graphs * ds.num_tasks), 0.0f);
  for (Index g = 0; g < ds.num_graphs; ++g)
    ds.targets[static_cast<std::size_t>(g * ds.num_tasks + index_of(cls[g]))] = 1.0f;
}

}  // namespace

std::string find_prefix(const std::string& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    for (const std::string suffix : {"_A.txt", "_A.txt.gz"})
      if (name.size() > suffix.size() && name.ends_with(suffix))
        found.push_back(name.substr(0, name.size() - suffix.size()));
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  if (found.size() > 1)
    throw IoError(dir + ": more than one TU set (" + found[0] + ", " + found[1] + ")");
  return found.empty() ? std::string() : found[0];
}

Dataset read_dataset(const std::string& dir) {
  Dataset ds;
  ds.name = find_prefix(dir);
  if (ds.name.empty()) throw IoError(dir + ": no TU set here (no *_A.txt or *_A.txt.gz)");
  const std::string a_path = require_file(dir, ds.name + "_A.txt");
  const std::string ind_path = require_file(dir, ds.name + "_graph_indicator.txt");
  const auto indicator = read_column(ind_path, -1, "graph id");
  if (indicator.empty()) throw ParseError(ind_path + ": empty file");
  ds.num_nodes = static_cast<Index>(indicator.size());
  ds.graph_ptr = graph_pointers(ind_path, indicator);
  ds.num_graphs = static_cast<Index>(ds.graph_ptr.size()) - 1;
  ds.adjacency = read_edges(a_path, indicator, &ds.symmetric);
  if (std::string p = existing(dir, ds.name + "_node_labels.txt"); !p.empty())
    ds.node_labels = read_column(p, ds.num_nodes, "node label");
  if (std::string p = existing(dir, ds.name + "_graph_labels.csv"); !p.empty())
    read_csv_labels(p, ds);
  else
    read_class_labels(require_file(dir, ds.name + "_graph_labels.txt"), ds);
  return ds;
}

DenseMatrix one_hot_node_labels(const Dataset& ds, std::vector<std::int64_t>* values) {
  if (ds.node_labels.empty())
    throw InvalidValue("one_hot_node_labels: " + ds.name + " has no node labels");
  std::vector<std::int64_t> v(ds.node_labels);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  const Index width = static_cast<Index>(v.size());
  std::vector<float> x(static_cast<std::size_t>(ds.num_nodes * width), 0.0f);
  for (Index i = 0; i < ds.num_nodes; ++i) {
    const Index c = std::lower_bound(v.begin(), v.end(), ds.node_labels[i]) - v.begin();
    x[static_cast<std::size_t>(i * width + c)] = 1.0f;
  }
  if (values) *values = v;
  return DenseMatrix::from_values(ds.num_nodes, width, x);
}

namespace {
template <class T>
std::vector<Matrix> blocks_of(const Matrix& a, const std::vector<Index>& graph_ptr) {
  const auto rp = a.row_ptr_vector();
  const auto ci = a.col_idx_vector();
  const auto val = a.values_vector<T>();
  std::vector<Matrix> out;
  out.reserve(graph_ptr.size() - 1);
  for (std::size_t g = 0; g + 1 < graph_ptr.size(); ++g) {
    const Index lo = graph_ptr[g], hi = graph_ptr[g + 1], m = hi - lo;
    std::vector<std::int32_t> r(static_cast<std::size_t>(m) + 1, 0), c;
    std::vector<T> v;
    for (Index i = lo; i < hi; ++i) {
      for (Index p = rp[i]; p < rp[i + 1]; ++p) {
        if (ci[p] < lo || ci[p] >= hi)
          throw InvalidValue("graph_blocks: entry (" + std::to_string(i) + ", " +
                             std::to_string(ci[p]) + ") leaves graph " + std::to_string(g));
        c.push_back(static_cast<std::int32_t>(ci[p] - lo));
        v.push_back(val[p]);
      }
      r[i - lo + 1] = static_cast<std::int32_t>(c.size());
    }
    out.push_back(Matrix::from_csr(m, m, r, c, v));
  }
  return out;
}
}  // namespace

std::vector<Matrix> graph_blocks(const Matrix& a, const std::vector<Index>& graph_ptr) {
  if (a.type() == Type::fp64) return blocks_of<double>(a, graph_ptr);
  return blocks_of<float>(a, graph_ptr);
}

}  // namespace ringblas::tu
