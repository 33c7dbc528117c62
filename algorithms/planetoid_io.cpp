// Planetoid-layout reader (algorithms/planetoid_io.hpp).
#include "algorithms/planetoid_io.hpp"

#include <charconv>
#include <filesystem>
#include <set>
#include <string_view>

#include "ringblas/error.hpp"
#include "ringblas/io.hpp"

namespace ringblas::planetoid {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void parse_fail(const std::string& path, Index line, const std::string& why) {
  throw ParseError(path + ":" + std::to_string(line) + ": " + why);
}

/// The integer on each content line of `path` (with its line number).
std::vector<std::pair<std::int64_t, Index>> read_integers(const std::string& path) {
  if (!fs::exists(path)) throw IoError("planetoid: missing file " + path);
  const std::string text = io::read_file_text(path);
  std::vector<std::pair<std::int64_t, Index>> out;
  Index line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty() || line.front() == '#' || line.front() == '%') continue;
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
    if (ec != std::errc() || p != line.data() + line.size())
      parse_fail(path, line_no, "expected one integer, found `" + std::string(line) + "`");
    out.emplace_back(v, line_no);
  }
  return out;
}

/// `dir`/<name><suffix> or <name><suffix>.gz; empty when neither exists.
std::string with_gz(const std::string& base) {
  if (fs::exists(base)) return base;
  if (fs::exists(base + ".gz")) return base + ".gz";
  return {};
}

/// The <name> of the one *_adj.mtx[.gz] in dir ("" when none).
std::string dataset_name(const std::string& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string f = e.path().filename().string();
    for (const std::string suffix : {"_adj.mtx", "_adj.mtx.gz"})
      if (f.size() > suffix.size() &&
          f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0)
        names.insert(f.substr(0, f.size() - suffix.size()));
  }
  if (names.size() > 1)
    throw IoError("planetoid: " + dir + " holds more than one *_adj.mtx (" + *names.begin() + ", " +
                  *std::next(names.begin()) + ")");
  return names.empty() ? std::string() : *names.begin();
}

std::vector<std::int32_t> read_split(const std::string& path,
                                     const std::vector<std::int32_t>& labels) {
  const Index n = Index(labels.size());
  std::vector<std::int32_t> ids;
  std::vector<bool> seen(labels.size(), false);
  for (const auto& [v, line] : read_integers(path)) {
    if (v < 0 || v >= n)
      throw InvalidIndex(path + ":" + std::to_string(line) + ": node id " + std::to_string(v) +
                         " is out of range 0.." + std::to_string(n - 1));
    if (seen[std::size_t(v)])
      throw InvalidIndex(path + ":" + std::to_string(line) + ": node " + std::to_string(v) +
                         " is listed twice");
    if (labels[std::size_t(v)] < 0)
      throw InvalidIndex(path + ":" + std::to_string(line) + ": node " + std::to_string(v) +
                         " has no label (-1 in the labels file)");
    seen[std::size_t(v)] = true;
    ids.push_back(std::int32_t(v));
  }
  if (ids.empty()) throw InvalidValue("planetoid: " + path + " lists no nodes");
  return ids;
}

}  // namespace

bool is_planetoid_dir(const std::string& dir) {
  return fs::is_directory(dir) && !dataset_name(dir).empty();
}

Dataset read(const std::string& dir) {
  if (!fs::is_directory(dir)) throw IoError("planetoid: " + dir + " is not a directory");
  Dataset d;
  d.name = dataset_name(dir);
  if (d.name.empty()) throw IoError("planetoid: no <name>_adj.mtx[.gz] in " + dir);
  const std::string base = (fs::path(dir) / d.name).string();
  const std::string adj = with_gz(base + "_adj.mtx");
  d.adjacency = io::read_matrix_market(adj);
  const Index n = d.adjacency.nrows();
  if (d.adjacency.ncols() != n)
    throw InvalidValue("planetoid: " + adj + " is " + std::to_string(n) + "x" +
                       std::to_string(d.adjacency.ncols()) + ", not square");
  const std::string feat = with_gz(base + "_features.mtx");
  if (!feat.empty()) {
    d.features = io::read_matrix_market(feat);
    d.has_features = true;
    if (d.features.nrows() != n)
      throw InvalidValue("planetoid: " + feat + " has " + std::to_string(d.features.nrows()) +
                         " rows but the adjacency has " + std::to_string(n) + " nodes");
  }
  const std::string lab = base + "_labels.txt";
  const auto values = read_integers(lab);
  if (Index(values.size()) != n)
    throw InvalidValue("planetoid: " + lab + " has " + std::to_string(values.size()) +
                       " labels but the adjacency has " + std::to_string(n) + " nodes");
  d.labels.reserve(values.size());
  for (const auto& [v, line] : values) {
    if (v < -1 || v > (std::int64_t(1) << 30))
      throw InvalidIndex(lab + ":" + std::to_string(line) + ": label " + std::to_string(v) +
                         " is out of range (class ids are 0..C-1, -1 = unlabeled)");
    d.labels.push_back(std::int32_t(v));
    d.classes = std::max(d.classes, std::int32_t(v + 1));
  }
  if (d.classes < 2) throw InvalidValue("planetoid: " + lab + " has fewer than 2 classes");
  d.train = read_split(base + "_split_train.txt", d.labels);
  d.val = read_split(base + "_split_val.txt", d.labels);
  d.test = read_split(base + "_split_test.txt", d.labels);
  return d;
}

}  // namespace ringblas::planetoid
