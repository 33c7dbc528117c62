// `ringblas kernels`: one line per operation, `<operation> cpu: <impl> cuda: <variant>[,...]`,
// generated from the dispatch tables (ringblas::kernel_table), so a new table row shows here.
#include <iostream>

#include "cli.hpp"
#include "ringblas/kernels.hpp"

namespace ringblas::cli {

namespace {
constexpr const char* kUsage =
    "usage: ringblas kernels\n"
    "  prints one line per operation: `<operation> cpu: <impl> cuda: <variant>[,<variant>...]`\n"
    "  (`none` where an executor has no implementation), from the dispatch tables; the cuda\n"
    "  variants are listed whether or not this build or machine can run them\n";
}  // namespace

int cmd_kernels(Args& args) {
  args.set_usage(kUsage);
  if (args.help()) {
    std::cout << kUsage;
    return 0;
  }
  args.positionals(0, 0);
  for (const OperationKernels& row : kernel_table()) {
    std::cout << row.operation << " cpu: " << row.cpu << " cuda: ";
    if (row.cuda.empty()) std::cout << "none";
    for (std::size_t k = 0; k < row.cuda.size(); ++k) std::cout << (k ? "," : "") << row.cuda[k];
    std::cout << '\n';
  }
  return 0;
}

}  // namespace ringblas::cli
