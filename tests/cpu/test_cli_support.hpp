// Helpers for the CLI tests: run the built `ringblas` binary and capture its exit code and output,
// a matrix as plain rows, and an independent row-by-row sparse accumulator (no ringblas code) for
// C = A ⊕.⊗ B.
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

#include "ringblas/matrix.hpp"

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

/// Runs the shell command `cmd` with stdout and stderr sent to the files `out` and `err`; returns
/// its exit status and both outputs.
inline RunResult run_redirected(const std::string& cmd, const std::filesystem::path& out,
                                const std::filesystem::path& err) {
  const std::string line =
      cmd + " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
  const int status = std::system(line.c_str());
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

/// Runs `ringblas ARGS...` and returns its exit status, stdout and stderr.
inline RunResult run_cli(const std::vector<std::string>& args) {
  const auto dir = temp_dir();
  std::string cmd = shell_quote(RINGBLAS_CLI_PATH);
  for (const auto& a : args) cmd += " " + shell_quote(a);
  return run_redirected(cmd, dir / "stdout.txt", dir / "stderr.txt");
}

/// Runs a bash script in which $RINGBLAS is the CLI (for ulimit, pipes, kill); returns its
/// exit status, stdout and stderr. `dir` is the script's working folder.
inline RunResult run_sh(const std::string& script, const std::filesystem::path& dir) {
  const auto tmp = temp_dir();
  return run_redirected("cd " + shell_quote(dir.string()) + " && RINGBLAS=" +
                            shell_quote(RINGBLAS_CLI_PATH) + " bash -c " + shell_quote(script),
                        tmp / "sh_stdout.txt", tmp / "sh_stderr.txt");
}

/// A sparse matrix as plain rows of (column, value), built by the tests from CSR arrays.
struct Rows {
  long nrows = 0, ncols = 0;
  std::vector<std::vector<std::pair<long, double>>> rows;
};

/// m's entries as Rows (values as fp64).
inline Rows to_rows(const Matrix& m) {
  const Matrix a = m.cast(Type::fp64);
  const auto rp = a.row_ptr_vector();
  const auto ci = a.col_idx_vector();
  const auto v = a.values_vector<double>();
  Rows r{a.nrows(), a.ncols(), std::vector<std::vector<std::pair<long, double>>>(a.nrows())};
  for (Index i = 0; i < a.nrows(); ++i)
    for (Index p = rp[i]; p < rp[i + 1]; ++p) r.rows[i].emplace_back(ci[p], v[p]);
  return r;
}

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
