// The ringblas command-line tool: a table of subcommands (commands.def) and the exit codes
// 0 success, 1 a ringblas error (message on stderr), 2 bad usage (usage on stderr).
#include <algorithm>
#include <cstring>
#include <iostream>
#include <new>

#include "cli.hpp"
#include "ringblas/error.hpp"

namespace {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(ringblas::cli::Args&);
};

const Command kCommands[] = {
#define RINGBLAS_CLI_COMMAND(name, summary) {#name, summary, &ringblas::cli::cmd_##name},
#include "commands.def"
#undef RINGBLAS_CLI_COMMAND
};

#ifndef RINGBLAS_VERSION
#define RINGBLAS_VERSION "unknown"
#endif

void print_version() {
  std::cout << "ringblas " << RINGBLAS_VERSION << "\nbackends: cpu (SuiteSparse:GraphBLAS)"
#ifdef RINGBLAS_HAS_CUDA
            << ", cuda (compiled in; used where a GPU is visible)"
#else
            << "; cuda not compiled in (built without nvcc or with -DRINGBLAS_ENABLE_CUDA=OFF)"
#endif
            << '\n';
}

void print_usage(std::ostream& out) {
  out << "usage: ringblas COMMAND [ARGS...]   (ringblas COMMAND --help for its options)\n"
         "       ringblas --version\n"
         "commands:\n";
  for (const auto& c : kCommands) out << "  " << c.name << "  " << c.summary << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage(std::cerr);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage(std::cout);
    return 0;
  }
  if (name == "--version" || name == "version") {
    print_version();
    return 0;
  }
  const Command* cmd = nullptr;
  for (const auto& c : kCommands)
    if (name == c.name) cmd = &c;
  if (!cmd) {
    std::cerr << "ringblas: unknown command '" << name << "'\n";
    print_usage(std::cerr);
    return 2;
  }
  std::vector<std::string> argv_rest(argv + 2, argv + argc);
  const bool help = std::find(argv_rest.begin(), argv_rest.end(), "--help") != argv_rest.end() ||
                    std::find(argv_rest.begin(), argv_rest.end(), "-h") != argv_rest.end();
  ringblas::cli::Args args(std::move(argv_rest), "");
  ringblas::cli::install_signal_handlers();
  try {
    if (!help) ringblas::cli::take_input_options(args);
    const int rc = cmd->run(args);
    if (help && rc == 0) std::cout << '\n' << ringblas::cli::kInputHelp;
    return rc;
  } catch (const ringblas::cli::UsageError& e) {
    std::cerr << "ringblas " << name << ": " << e.what() << '\n' << e.usage();
    return 2;
  } catch (const ringblas::Error& e) {
    std::cerr << "ringblas " << name << ": error: " << e.what() << '\n';
    return 1;
  } catch (const std::bad_alloc&) {
    // Readers name their file themselves (OutOfMemory); this is the computation's allocation.
    std::cerr << "ringblas " << name << ": error: out of memory while computing (inputs read)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "ringblas " << name << ": error: " << e.what() << '\n';
    return 1;
  }
}
