// The ringblas command-line tool: a table of subcommands (commands.def) and the exit codes
// 0 success, 1 a ringblas error (message on stderr), 2 bad usage (usage on stderr).
#include <cstring>
#include <iostream>

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

void print_usage(std::ostream& out) {
  out << "usage: ringblas COMMAND [ARGS...]   (ringblas COMMAND --help for its options)\n"
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
  const Command* cmd = nullptr;
  for (const auto& c : kCommands)
    if (name == c.name) cmd = &c;
  if (!cmd) {
    std::cerr << "ringblas: unknown command '" << name << "'\n";
    print_usage(std::cerr);
    return 2;
  }
  ringblas::cli::Args args(std::vector<std::string>(argv + 2, argv + argc), "");
  try {
    return cmd->run(args);
  } catch (const ringblas::cli::UsageError& e) {
    std::cerr << "ringblas " << name << ": " << e.what() << '\n' << e.usage();
    return 2;
  } catch (const ringblas::Error& e) {
    std::cerr << "ringblas " << name << ": error: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "ringblas " << name << ": error: " << e.what() << '\n';
    return 1;
  }
}
