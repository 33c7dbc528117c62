// Argument parsing, input-format options and matrix loading shared by the ringblas subcommands.
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "cli.hpp"
#include "ringblas/error.hpp"

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

double Args::number(std::string_view name, double fallback) {
  const auto text = option(name);
  if (!text) return fallback;
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(*text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text->size() || text->empty())
    usage_error(std::string(name) + " '" + *text + "' is no number");
  return v;
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

namespace {
io::ReadOptions g_input;
}  // namespace

const char* const kInputHelp =
    "input files (every command):\n"
    "  format: --format mm|snap|abc|mci, else a Matrix Market banner (a BOM and leading\n"
    "          whitespace allowed; any file starting '%%' is Matrix Market, so a malformed banner\n"
    "          is an error), else the extension (.gz removed): .mtx .mm -> mm; .txt .el .edges\n"
    "          .edgelist .snap .tsv -> snap; .abc -> abc; .mci -> mci; else an error, never a guess\n"
    "  mm:     as the file says (field, symmetry; symmetric files expanded to both triangles)\n"
    "  snap:   'src dst [weight]' per line, '#'/'%' comments; read as given: ids are vertex\n"
    "          numbers (n = largest id + 1, over all edge lists of the command), the weight is\n"
    "          the value (1.0 when absent), no mirrored edges; a first line 'n m' that matches\n"
    "          the edges is a header (said on stderr); a repeated edge with another weight is an\n"
    "          error\n"
    "  abc:    'label label [weight]' (mcl --abc): labels numbered in order of first appearance,\n"
    "          kept for output; repeated pairs keep the larger weight\n"
    "  --symmetric         snap/abc: add (j, i) for every (i, j)\n"
    "  --compact-ids       snap: renumber the ids that occur to 0..n-1 in increasing order\n"
    "  --pattern           snap/abc: ignore weights (every value 1.0)\n"
    "  --nvertices N       snap: n x n whatever the largest id\n"
    "  --base 0|1          snap: ids start at 0 (default) or 1\n"
    "  --memory-budget S   refuse inputs needing more than S (e.g. 4G, 25%) at once; default\n"
    "                      $RINGBLAS_MEMORY_BUDGET, else half of the memory\n"
    "  FILE '-'            standard input (gzip detected by its magic bytes; give --format)\n";

void take_input_options(Args& args) {
  io::ReadOptions o;
  try {
    if (auto f = args.option("--format")) o.format = io::parse_format(*f);
    o.symmetrize = args.flag("--symmetric");
    o.compact_ids = args.flag("--compact-ids");
    o.pattern = args.flag("--pattern");
    if (auto n = args.option("--nvertices")) {
      std::size_t used = 0;
      const long long v = std::stoll(*n, &used);
      if (used != n->size() || v < 0) throw InvalidValue("--nvertices takes an integer >= 0");
      o.nvertices = v;
    }
    if (auto b = args.option("--base")) {
      if (*b != "0" && *b != "1") throw InvalidValue("--base takes 0 or 1");
      o.base = *b == "1";
    }
    auto budget = args.option("--memory-budget");
    if (!budget) {
      // The environment is read here, at the command line, never inside the library.
      if (const char* env = std::getenv("RINGBLAS_MEMORY_BUDGET"); env && *env) budget = env;
    }
    if (budget) o.memory_budget = io::parse_memory_size(*budget);
  } catch (const ringblas::InvalidValue& e) {
    args.usage_error(e.what());
  } catch (const std::logic_error&) {  // stoll
    args.usage_error("--nvertices takes an integer >= 0");
  }
  g_input = o;
}

const io::ReadOptions& input_options() { return g_input; }

io::LoadedMatrix load_input(const std::string& path) {
  io::LoadedMatrix in = io::read_matrix(path, g_input);
  for (const auto& n : in.notes) std::cerr << "ringblas: note: " << n << '\n';
  return in;
}

namespace {
/// `a` (host CSR, n0 x n0) as n x n with empty rows and columns added at the end.
Matrix widen(const Matrix& a0, Index n) {
  const Matrix a = a0.index_type() == IndexType::i64 ? a0 : a0.with_index_type(IndexType::i64);
  std::vector<Index> rp = a.row_ptr_vector();
  rp.resize(static_cast<std::size_t>(n) + 1, rp.back());
  Buffer row_ptr(rp.size() * sizeof(Index), Location::host);
  std::memcpy(row_ptr.data(), rp.data(), rp.size() * sizeof(Index));
  return Matrix::from_buffers(n, n, a.type(), a.index_type(), a.nnz(), std::move(row_ptr),
                              a.col_idx(), a.values());
}
}  // namespace

std::vector<io::LoadedMatrix> load_inputs(const std::vector<std::string>& paths) {
  std::vector<io::LoadedMatrix> out;
  for (const auto& p : paths) out.push_back(load_input(p));
  if (g_input.nvertices >= 0 || g_input.compact_ids) return out;
  Index n = 0;
  for (const auto& in : out)
    if (in.format == io::Format::edge_list) n = std::max(n, in.matrix.nrows());
  for (auto& in : out)
    if (in.format == io::Format::edge_list && in.matrix.nrows() < n)
      in.matrix = widen(in.matrix, n);
  return out;
}

Matrix load_matrix(const std::string& path, io::MatrixInfo* info, bool* is_matrix_market) {
  io::LoadedMatrix in = load_input(path);
  if (info) *info = in.info;
  if (is_matrix_market) *is_matrix_market = in.format == io::Format::matrix_market;
  return std::move(in.matrix);
}

std::string vertex_name(const io::LoadedMatrix& in, Index v) {
  if (v >= 0 && static_cast<std::size_t>(v) < in.labels.size()) return in.labels[v];
  return std::to_string(v);
}

namespace {
extern "C" void on_fatal_signal(int sig) {
  // Only async-signal-safe work: unlink the temporary output, then die of the same signal.
  io::remove_temporary_output();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}
}  // namespace

void install_signal_handlers() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, on_fatal_signal);
  // Past a file-size limit (ulimit -f) write(2) then fails with EFBIG, which the writer reports
  // and cleans up after, instead of the process being killed mid-file.
  std::signal(SIGXFSZ, SIG_IGN);
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
