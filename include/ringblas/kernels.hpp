// What computes each operation: the dispatch tables as data (behind `ringblas kernels`).
#pragma once
#include <string>
#include <vector>

namespace ringblas {

/// One operation's implementations: its cpu implementation ("suitesparse", or "none") and its cuda
/// variants in the dispatch table's order (empty: none). Overloads of one operation (matrix and
/// vector ewise_add, the forms of apply, ...) are merged into one line.
struct OperationKernels {
  std::string operation;
  std::string cpu;
  std::vector<std::string> cuda;
};

/// Every operation's row, generated from the dispatch tables (backend/core/dispatch_tables_*.cpp),
/// in the order of backend/core/dispatch/operations.def, then mxm_layers.
std::vector<OperationKernels> kernel_table();

}  // namespace ringblas
