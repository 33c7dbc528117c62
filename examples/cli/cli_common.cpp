// Argument parsing and matrix loading shared by the ringblas subcommands.
#include <cctype>
#include <sstream>

#include "cli.hpp"

namespace ringblas::cli {

bool Args::flag(std::string_view name) {
  for (auto it = args_.begin(); it != args_.end(); ++it) {
    if (*it == "--") break;
    if (*it == name) {
      args_.erase(it);
      return true;
    }
  }
  return false;
}

std::optional<std::string> Args::option(std::string_view name) {
  for (auto it = args_.begin(); it != args_.end(); ++it) {
    if (*it == "--") break;
    if (*it == name) {
      if (it + 1 == args_.end()) usage_error("option " + std::string(name) + " needs a value");
      std::string v = *(it + 1);
      args_.erase(it, it + 2);
      return v;
    }
    if (it->size() > name.size() + 1 && it->compare(0, name.size(), name) == 0 &&
        (*it)[name.size()] == '=') {
      std::string v = it->substr(name.size() + 1);
      args_.erase(it);
      return v;
    }
  }
  return std::nullopt;
}

std::vector<std::string> Args::positionals(std::size_t min, std::size_t max) {
  std::vector<std::string> out;
  bool options_done = false;
  for (const auto& a : args_) {
    if (!options_done && a == "--") {
      options_done = true;
      continue;
    }
    if (!options_done && a.size() > 1 && a[0] == '-') usage_error("unknown option '" + a + "'");
    out.push_back(a);
  }
  if (out.size() < min) usage_error("missing argument(s)");
  if (out.size() > max) usage_error("unexpected argument '" + out[max] + "'");
  return out;
}

Matrix load_matrix(const std::string& path, io::MatrixInfo* info, bool* is_matrix_market) {
  const std::string text = io::read_file_text(path);
  // The banner's case does not matter (as in io::read_matrix_market).
  constexpr std::string_view banner = "%%matrixmarket";
  bool mm = text.size() >= banner.size();
  for (std::size_t k = 0; mm && k < banner.size(); ++k)
    mm = std::tolower(static_cast<unsigned char>(text[k])) == banner[k];
  if (is_matrix_market) *is_matrix_market = mm;
  if (mm) {
    std::istringstream in(text);
    return io::read_matrix_market(in, path, info);
  }
  Matrix a = io::read_graph(path);
  if (info) {
    // read_graph's result: a symmetric graph with every value 1.0.
    *info = io::MatrixInfo{};
    info->field = io::Field::pattern;
    info->symmetry = io::Symmetry::symmetric;
    info->stored_entries = a.nnz();
  }
  return a;
}

const char* field_name(io::Field f) {
  switch (f) {
    case io::Field::real:
      return "real";
    case io::Field::integer:
      return "integer";
    default:
      return "pattern";
  }
}

const char* symmetry_name(io::Symmetry s) {
  switch (s) {
    case io::Symmetry::general:
      return "general";
    case io::Symmetry::symmetric:
      return "symmetric";
    default:
      return "skew-symmetric";
  }
}

}  // namespace ringblas::cli
