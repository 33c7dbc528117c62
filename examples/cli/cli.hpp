// Shared pieces of the ringblas command-line tool: argument parsing, usage errors, the
// subcommand declarations (from commands.def) and loading a matrix file.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ringblas/io.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::cli {

/// Bad usage (unknown option, missing argument): main prints it with the usage text, exit 2.
class UsageError : public std::runtime_error {
 public:
  UsageError(const std::string& what, std::string usage)
      : std::runtime_error(what), usage_(std::move(usage)) {}
  const std::string& usage() const { return usage_; }
  void set_usage(std::string usage) { usage_ = std::move(usage); }

 private:
  std::string usage_;
};

/// A subcommand's arguments. Commands take their options first (flag, option), then call
/// positionals(), which rejects any option left over as unknown.
class Args {
 public:
  Args(std::vector<std::string> args, std::string usage)
      : args_(std::move(args)), usage_(std::move(usage)) {}
  /// True (and consumed) when `name` is present.
  bool flag(std::string_view name);
  /// The value of `--name VALUE` or `--name=VALUE` (consumed); UsageError when VALUE is missing.
  std::optional<std::string> option(std::string_view name);
  /// The value of option `name` as a number (consumed), `fallback` when absent; UsageError
  /// "NAME 'TEXT' is no number" unless all of TEXT (not empty) is one.
  double number(std::string_view name, double fallback);
  /// The remaining arguments, between min and max of them; UsageError otherwise.
  std::vector<std::string> positionals(std::size_t min, std::size_t max);
  /// True when --help or -h was given (consumed).
  bool help() { return flag("--help") || flag("-h"); }
  const std::string& usage() const { return usage_; }
  void set_usage(std::string usage) { usage_ = std::move(usage); }
  [[noreturn]] void usage_error(const std::string& what) const { throw UsageError(what, usage_); }

 private:
  std::vector<std::string> args_;
  std::string usage_;
};

/// The input-format options every command takes, parsed in one place (main calls
/// take_input_options before the command runs, so each command gets them):
///   --format mm|snap|abc|mci, --symmetric, --compact-ids, --pattern, --nvertices N, --base 0|1,
///   --memory-budget SIZE (else the environment's RINGBLAS_MEMORY_BUDGET, else the library's
///   default); "-" as a file name is standard input.
/// Throws UsageError for bad values.
void take_input_options(Args& args);
/// The options main parsed (defaults until then).
const io::ReadOptions& input_options();
/// Help text for the options above and how each format is read; main prints it after every
/// command's --help.
extern const char* const kInputHelp;

/// Reads a matrix file with the command line's input options (io::read_matrix: format from
/// --format, else the banner or the extension, never guessed); notes about decisions the reader
/// made (a skipped header line) go to stderr. Keeps abc labels in the result.
io::LoadedMatrix load_input(const std::string& path);
/// The same for several files read together: edge lists (square, n = largest id + 1) are given
/// one vertex set, n = the largest id + 1 over all of them, unless --nvertices is set.
std::vector<io::LoadedMatrix> load_inputs(const std::vector<std::string>& paths);
/// load_input's matrix and info; is_matrix_market says whether it was read as Matrix Market.
Matrix load_matrix(const std::string& path, io::MatrixInfo* info, bool* is_matrix_market = nullptr);
/// Vertex v's name for output: its abc label when the input had labels, else the number v.
std::string vertex_name(const io::LoadedMatrix& in, Index v);
/// Installs the handlers that make an interrupted run (SIGINT, SIGTERM, SIGHUP) remove a
/// partially written output file's temporary before dying, and turns a file-size limit
/// (SIGXFSZ) into a write error.
void install_signal_handlers();

const char* field_name(io::Field f);
const char* symmetry_name(io::Symmetry s);

#define RINGBLAS_CLI_COMMAND(name, summary) int cmd_##name(Args& args);
#include "commands.def"
#undef RINGBLAS_CLI_COMMAND

}  // namespace ringblas::cli
