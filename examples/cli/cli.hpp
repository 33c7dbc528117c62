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

/// A Matrix Market file (banner detected; plain or gzip) with its info, or else a SNAP edge
/// list read by io::read_graph (info then says pattern symmetric: a graph of 1.0 values).
Matrix load_matrix(const std::string& path, io::MatrixInfo* info, bool* is_matrix_market = nullptr);

const char* field_name(io::Field f);
const char* symmetry_name(io::Symmetry s);

#define RINGBLAS_CLI_COMMAND(name, summary) int cmd_##name(Args& args);
#include "commands.def"
#undef RINGBLAS_CLI_COMMAND

}  // namespace ringblas::cli
