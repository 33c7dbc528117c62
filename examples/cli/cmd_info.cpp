// `ringblas info FILE`: size, entries, type, symmetry and row-length statistics of a matrix.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli.hpp"

namespace ringblas::cli {

namespace {
constexpr const char* kUsage =
    "usage: ringblas info FILE\n"
    "  FILE: Matrix Market, edge list or abc file ('-': stdin), read as described under\n"
    "  'input files' below (edge lists as given: no mirroring, renumbering or 1.0 weights\n"
    "  unless --symmetric, --compact-ids or --pattern)\n"
    "  prints rows, cols, nnz (after symmetric expansion), type, field, symmetry, format,\n"
    "  stored entries and the min / mean / max row length\n";
}  // namespace

int cmd_info(Args& args) {
  args.set_usage(kUsage);
  if (args.help()) {
    std::cout << kUsage;
    return 0;
  }
  const std::string path = args.positionals(1, 1)[0];
  const std::string shown = path == "-" ? "<stdin>" : path;
  const io::LoadedMatrix in = load_input(path);
  const Matrix& a = in.matrix;
  const io::MatrixInfo& info = in.info;
  const bool mm = in.format == io::Format::matrix_market;
  const io::ReadOptions& opt = input_options();
  std::string how = in.format == io::Format::abc ? "abc label triples" : "edge list";
  if (!mm) {
    how += " (";
    how += opt.symmetrize ? "symmetrized" : "as given";
    if (opt.compact_ids) how += ", ids compacted";
    if (opt.pattern) how += ", weights ignored";
    if (in.format == io::Format::abc) how += ", " + std::to_string(in.labels.size()) + " labels";
    how += ")";
  }
  const std::vector<Index> rp = a.row_ptr_vector();
  Index lo = 0, hi = 0;
  for (Index i = 0; i < a.nrows(); ++i) {
    const Index len = rp[i + 1] - rp[i];
    lo = i == 0 ? len : std::min(lo, len);
    hi = std::max(hi, len);
  }
  const double mean =
      a.nrows() ? static_cast<double>(a.nnz()) / static_cast<double>(a.nrows()) : 0.0;
  char mean_text[32];
  std::snprintf(mean_text, sizeof(mean_text), "%.3f", mean);
  std::cout << "file: " << shown << '\n'
            << "format: "
            << (mm ? (info.array_format ? "matrix-market array" : "matrix-market coordinate")
                   : how)
            << '\n'
            << "rows: " << a.nrows() << '\n'
            << "cols: " << a.ncols() << '\n'
            << "nnz: " << a.nnz() << '\n'
            << "type: " << type_name(a.type()) << '\n'
            << "field: " << field_name(info.field) << '\n'
            << "symmetry: " << symmetry_name(info.symmetry) << '\n'
            << "stored_entries: " << info.stored_entries << '\n'
            << "row_length_min: " << lo << '\n'
            << "row_length_mean: " << mean_text << '\n'
            << "row_length_max: " << hi << '\n';
  return 0;
}

}  // namespace ringblas::cli
