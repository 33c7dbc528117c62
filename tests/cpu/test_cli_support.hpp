// Helpers for the CLI tests: run the built `ringblas` binary and capture its exit code and output,
// and an independent row-by-row sparse accumulator (no ringblas code) for C = A ⊕.⊗ B.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace ringblas::test_cli {

struct RunResult {
  int code = -1;
  std::string out, err;
};

inline std::filesystem::path temp_dir() {
  auto dir =
      std::filesystem::temp_directory_path() / ("ringblas_test_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// Runs `ringblas ARGS...` and returns its exit status, stdout and stderr.
inline RunResult run_cli(const std::vector<std::string>& args) {
  const auto dir = temp_dir();
  const auto out = dir / "stdout.txt", err = dir / "stderr.txt";
  std::string cmd = shell_quote(RINGBLAS_CLI_PATH);
  for (const auto& a : args) cmd += " " + shell_quote(a);
  cmd += " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

/// Runs a bash script in which $RINGBLAS is the CLI (for ulimit, pipes, kill); returns its
/// exit status, stdout and stderr. `dir` is the script's working folder.
inline RunResult run_sh(const std::string& script, const std::filesystem::path& dir) {
  const auto tmp = temp_dir();
  const auto out = tmp / "sh_stdout.txt", err = tmp / "sh_stderr.txt";
  const std::string cmd = "cd " + shell_quote(dir.string()) +
                          " && RINGBLAS=" + shell_quote(RINGBLAS_CLI_PATH) + " bash -c " +
                          shell_quote(script) + " >" + shell_quote(out.string()) + " 2>" +
                          shell_quote(err.string());
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

/// A sparse matrix as plain rows of (column, value), built by the tests from CSR arrays.
struct Rows {
  long nrows = 0, ncols = 0;
  std::vector<std::vector<std::pair<long, double>>> rows;
};

enum class Ring { plus_times, min_plus, plus_pair };

/// One entry of the reference product and the scale its error is measured against.
struct RefEntry {
  double value;
  double abs_sum;  ///< Σ |a_ik b_kj| (plus_times); 0 otherwise
};

/// C = A ⊕.⊗ B, row by row with a dense accumulator (Gustavson), written for the tests only.
inline std::vector<std::map<long, RefEntry>> reference_product(const Rows& a, const Rows& b,
                                                               Ring ring) {
  std::vector<std::map<long, RefEntry>> c(a.nrows);
  std::vector<double> acc(b.ncols), abs_acc(b.ncols);
  std::vector<char> seen(b.ncols, 0);
  std::vector<long> touched;
  for (long i = 0; i < a.nrows; ++i) {
    touched.clear();
    for (const auto& [k, aik] : a.rows[i]) {
      for (const auto& [j, bkj] : b.rows[k]) {
        if (!seen[j]) {
          seen[j] = 1;
          touched.push_back(j);
          acc[j] = ring == Ring::min_plus ? std::numeric_limits<double>::infinity() : 0.0;
          abs_acc[j] = 0;
        }
        switch (ring) {
          case Ring::plus_times:
            acc[j] += aik * bkj;
            abs_acc[j] += std::abs(aik * bkj);
            break;
          case Ring::min_plus:
            acc[j] = std::min(acc[j], aik + bkj);
            break;
          case Ring::plus_pair:
            acc[j] += 1.0;
            break;
        }
      }
    }
    for (long j : touched) {
      c[i][j] = {acc[j], abs_acc[j]};
      seen[j] = 0;
    }
  }
  return c;
}

}  // namespace ringblas::test_cli
