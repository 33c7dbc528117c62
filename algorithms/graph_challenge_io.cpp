// MIT/IEEE Graph Challenge sparse DNN file readers (formats in graph_challenge_io.hpp).
#include "algorithms/graph_challenge_io.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string_view>

#include "ringblas/error.hpp"
#include "ringblas/io.hpp"

namespace ringblas::graph_challenge {
namespace {

namespace fs = std::filesystem;

bool is_matrix_market(const std::string& text) { return text.rfind("%%MatrixMarket", 0) == 0; }

[[noreturn]] void parse_fail(const std::string& path, Index line, const std::string& why) {
  throw ParseError(path + ":" + std::to_string(line) + ": " + why);
}

/// Splits a line at spaces/tabs into at most 4 tokens; returns how many were found.
int split(std::string_view line, std::string_view* tok) {
  int n = 0;
  std::size_t i = 0;
  while (i < line.size() && n < 4) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i == line.size()) break;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    tok[n++] = line.substr(i, j - i);
    i = j;
  }
  return n;
}

template <class T> bool parse(std::string_view s, T& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

/// Calls f(line_number, line) for every non-blank line that is not a '%' / '#' comment.
template <class F> void for_each_line(const std::string& text, F f) {
  std::size_t pos = 0;
  Index line_no = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    ++line_no;
    pos = end + 1;
    std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '%' || line[first] == '#') continue;
    f(line_no, line);
  }
}

Matrix as_fp32_i32(const Matrix& a) {
  Matrix b = a.type() == Type::fp32 ? a : a.cast(Type::fp32);
  return b.index_type() == IndexType::i32 ? b : b.with_index_type(IndexType::i32);
}

std::string first_existing(const std::vector<std::string>& candidates) {
  for (const auto& p : candidates)
    if (fs::exists(p)) return p;
  return {};
}

}  // namespace

float bias_for(Index neurons) {
  switch (neurons) {
    case 1024: return -0.3f;
    case 4096: return -0.35f;
    case 16384: return -0.4f;
    case 65536: return -0.45f;
    default:
      throw InvalidValue("graph_challenge::bias_for: no official bias for " +
                         std::to_string(neurons) + " neurons (1024, 4096, 16384, 65536)");
  }
}

Matrix read_triples(const std::string& path, Index nrows, Index ncols) {
  const std::string text = io::read_file_text(path);
  if (is_matrix_market(text)) {
    std::istringstream in(text);  // the text already inflated: parse it, do not read the file again
    Matrix a = io::read_matrix_market(in, path);
    if ((nrows >= 0 && a.nrows() != nrows) || a.ncols() != ncols)
      throw DimensionMismatch(path + ": matrix is " + std::to_string(a.nrows()) + "x" +
                              std::to_string(a.ncols()) + ", expected " +
                              (nrows >= 0 ? std::to_string(nrows) : std::string("?")) + "x" +
                              std::to_string(ncols));
    return as_fp32_i32(a);
  }
  std::vector<Index> rows, cols;
  std::vector<float> vals;
  Index max_row = 0;
  for_each_line(text, [&](Index line_no, std::string_view line) {
    std::string_view tok[4];
    const int n = split(line, tok);
    if (n != 3) parse_fail(path, line_no, "expected `row col value`, found " + std::to_string(n) + " fields");
    Index r = 0, c = 0;
    double v = 0;
    if (!parse(tok[0], r) || !parse(tok[1], c) || !parse(tok[2], v))
      parse_fail(path, line_no, "non-numeric field in `" + std::string(line) + "`");
    if (r < 1 || (nrows >= 0 && r > nrows))
      parse_fail(path, line_no, "row id " + std::to_string(r) + " out of range 1.." +
                                    (nrows >= 0 ? std::to_string(nrows) : std::string("inf")));
    if (c < 1 || c > ncols)
      parse_fail(path, line_no, "column id " + std::to_string(c) + " out of range 1.." + std::to_string(ncols));
    rows.push_back(r - 1);
    cols.push_back(c - 1);
    vals.push_back(static_cast<float>(v));
    max_row = std::max(max_row, r);
  });
  return Matrix::from_triplets(nrows >= 0 ? nrows : max_row, ncols, rows, cols, vals, Dup::error,
                               IndexType::i32);
}

std::string find_layer(const std::string& dir, Index neurons, Index k) {
  const std::string name = "n" + std::to_string(neurons) + "-l" + std::to_string(k);
  std::vector<std::string> c;
  for (const std::string& d : {dir + "/neuron" + std::to_string(neurons), dir})
    for (const char* ext : {".tsv", ".tsv.gz", ".mtx", ".mtx.gz"}) c.push_back(d + "/" + name + ext);
  return first_existing(c);
}

Matrix read_layer(const std::string& dir, Index neurons, Index k) {
  const std::string path = find_layer(dir, neurons, k);
  if (path.empty())
    throw IoError("graph_challenge::read_layer: no n" + std::to_string(neurons) + "-l" +
                  std::to_string(k) + ".{tsv,tsv.gz,mtx,mtx.gz} in " + dir + " or " + dir +
                  "/neuron" + std::to_string(neurons));
  return read_triples(path, neurons, neurons);
}

std::string find_images(const std::string& dir, Index neurons) {
  const std::string n = std::to_string(neurons);
  return first_existing({dir + "/sparse-images-" + n + ".tsv", dir + "/sparse-images-" + n + ".tsv.gz",
                         dir + "/sparse-images-" + n + ".mtx", dir + "/sparse-images-" + n + ".mtx.gz",
                         dir + "/sparse-images-" + n + "_subset1200.mtx",
                         dir + "/sparse-images-" + n + "_subset1200.mtx.gz"});
}

Matrix read_images(const std::string& path, Index neurons) { return read_triples(path, -1, neurons); }

std::vector<Index> read_categories(const std::string& path) {
  const std::string text = io::read_file_text(path);
  std::vector<Index> out;
  if (is_matrix_market(text)) {
    const Matrix a = io::read_matrix_market(path);
    const std::vector<Index> rp = a.row_ptr_vector();
    for (Index i = 0; i < a.nrows(); ++i)
      if (rp[std::size_t(i + 1)] > rp[std::size_t(i)]) out.push_back(i);
    return out;
  }
  for_each_line(text, [&](Index line_no, std::string_view line) {
    std::string_view tok[4];
    Index id = 0;
    if (split(line, tok) != 1 || !parse(tok[0], id) || id < 1)
      parse_fail(path, line_no, "expected one 1-based image id, found `" + std::string(line) + "`");
    out.push_back(id - 1);
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string find_categories(const std::string& dir, Index neurons, Index layers) {
  return first_existing({dir + "/neuron" + std::to_string(neurons) + "-l" + std::to_string(layers) +
                         "-categories.tsv"});
}

Matrix take_rows(const Matrix& features, Index count) {
  if (features.location() != Location::host)
    throw InvalidValue("graph_challenge::take_rows: features must be on the host");
  if (count < 0 || (count > 0 && features.nrows() == 0))
    throw InvalidValue("graph_challenge::take_rows: cannot take " + std::to_string(count) +
                       " rows of a " + std::to_string(features.nrows()) + "-row matrix");
  const Matrix f = as_fp32_i32(features);
  const std::vector<Index> rp = f.row_ptr_vector(), ci = f.col_idx_vector();
  const std::vector<float> v = f.values_vector<float>();
  std::vector<std::int32_t> row_ptr{0}, col;
  std::vector<float> val;
  for (Index i = 0; i < count; ++i) {
    const Index src = i % f.nrows();
    for (Index p = rp[std::size_t(src)]; p < rp[std::size_t(src + 1)]; ++p) {
      col.push_back(std::int32_t(ci[std::size_t(p)]));
      val.push_back(v[std::size_t(p)]);
    }
    if (col.size() > std::size_t(INT32_MAX))
      throw InvalidValue("graph_challenge::take_rows: more than 2^31 entries");
    row_ptr.push_back(std::int32_t(col.size()));
  }
  return Matrix::from_csr(count, f.ncols(), row_ptr, col, val);
}

std::vector<Index> replicate_categories(const std::vector<Index>& categories, Index nrows,
                                        Index count) {
  std::vector<Index> out;
  for (Index base = 0; base < count; base += nrows)
    for (Index c : categories)
      if (c < nrows && base + c < count) out.push_back(base + c);
  return out;
}

Matrix upsample_images(const Matrix& images, Index factor) {
  Index side = 0;
  while (side * side < images.ncols()) ++side;
  if (side * side != images.ncols() || factor < 1)
    throw InvalidValue("graph_challenge::upsample_images: " + std::to_string(images.ncols()) +
                       " pixels is not a square, or factor " + std::to_string(factor) + " < 1");
  const Matrix f = as_fp32_i32(images);
  const std::vector<Index> rp = f.row_ptr_vector(), ci = f.col_idx_vector();
  const std::vector<float> v = f.values_vector<float>();
  const Index big = side * factor;
  std::vector<Index> rows, cols;
  std::vector<float> vals;
  for (Index i = 0; i < f.nrows(); ++i)
    for (Index p = rp[std::size_t(i)]; p < rp[std::size_t(i + 1)]; ++p) {
      const Index r = ci[std::size_t(p)] / side, c = ci[std::size_t(p)] % side;
      for (Index dr = 0; dr < factor; ++dr)
        for (Index dc = 0; dc < factor; ++dc) {
          rows.push_back(i);
          cols.push_back((r * factor + dr) * big + c * factor + dc);
          vals.push_back(v[std::size_t(p)]);
        }
    }
  return Matrix::from_triplets(f.nrows(), big * big, rows, cols, vals, Dup::error, IndexType::i32);
}

}  // namespace ringblas::graph_challenge
