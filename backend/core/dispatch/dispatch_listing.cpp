// ringblas::kernel_table (include/ringblas/kernels.hpp): the dispatch tables as data, one line
// per operation (behind `ringblas kernels`).
#include <algorithm>
#include <string_view>

#include "backend/core/dispatch/dispatch_tables.hpp"
#include "backend/core/dispatch/dispatch_tables_maxk.hpp"
#include "backend/core/dispatch/dispatch_tables_row_prune.hpp"
#include "ringblas/kernels.hpp"

namespace ringblas {
namespace {

/// Adds table `t` to the listing, merged into the line of its operation (the name up to " (").
template <class P, class Out>
void list(std::vector<OperationKernels>& rows, const detail::Table<P, Out>& t) {
  const std::string_view full = t.operation;
  const std::string name(full.substr(0, full.find(" (")));
  auto it = std::find_if(rows.begin(), rows.end(),
                         [&](const OperationKernels& r) { return r.operation == name; });
  if (it == rows.end()) {
    rows.push_back({name, "none", {}});
    it = rows.end() - 1;
  }
  for (const auto& e : t.entries) {
    const std::string v(variant_name(e.variant));
    if (e.executor == detail::Executor::cpu)
      it->cpu = v;
    else if (std::find(it->cuda.begin(), it->cuda.end(), v) == it->cuda.end())
      it->cuda.push_back(v);
  }
}

}  // namespace

std::vector<OperationKernels> kernel_table() {
  using namespace detail;
  std::vector<OperationKernels> rows;
  list(rows, mxm_table());
  list(rows, mxv_table());
  list(rows, vxm_table());
  list(rows, mxm_dense_table());
  list(rows, mxm_dense_epilogue_table());
  list(rows, mxm_batched_table());
  list(rows, mxm_batched_stacked_table());
  list(rows, ewise_add_table(static_cast<const Matrix*>(nullptr)));
  list(rows, ewise_add_table(static_cast<const Vector*>(nullptr)));
  list(rows, ewise_mult_table(static_cast<const Matrix*>(nullptr)));
  list(rows, ewise_mult_table(static_cast<const Vector*>(nullptr)));
  list(rows, apply_table());
  list(rows, apply_vector_table());
  list(rows, apply_bound_table());
  list(rows, apply_index_table());
  list(rows, select_table());
  list(rows, reduce_table());
  list(rows, reduce_scalar_table(static_cast<const Matrix*>(nullptr)));
  list(rows, reduce_scalar_table(static_cast<const Vector*>(nullptr)));
  list(rows, transpose_table());
  list(rows, extract_table());
  list(rows, extract_vectors_table());
  list(rows, sort_permutation_table());
  list(rows, assign_table());
  list(rows, assign_scalar_table());
  list(rows, kronecker_table());
  list(rows, mxm_layers_table());
  list(rows, prepare_network_table());
  list(rows, mxm_layers_prepared_table());
  list(rows, mxm_prune_rows_table());
  list(rows, maxk_table());
  list(rows, densify_table());
  list(rows, mxm_cbsr_table());
  list(rows, mxm_sampled_table());
  list(rows, gemm_table());
  list(rows, dropout_gemm_table());
  list(rows, column_sums_table());
  list(rows, relu_backward_table());
  list(rows, dropout_table());
  list(rows, bias_relu_dropout_table());
  list(rows, linear_dropout_relu_backward_table());
  list(rows, dense_layer_backward_table());
  list(rows, softmax_cross_entropy_table());
  list(rows, accuracy_table());
  list(rows, adam_step_table());
  list(rows, sigmoid_cross_entropy_table());
  return rows;
}

}  // namespace ringblas
