// The dispatch table of every operation (rows in dispatch_tables_products.cpp and
// dispatch_tables_elementwise.cpp; the rule that picks a row in dispatch.hpp). One accessor per
// operation overload of operations.def, plus mxm_layers.
#pragma once
#include "backend/core/containers/dense_batch.hpp"
#include "backend/core/dispatch/dispatch.hpp"
#include "backend/core/dispatch/dispatch_problems.hpp"
#include "backend/core/dispatch/nn_problems.hpp"

namespace ringblas::detail {

const Table<MxmProblem, Matrix>& mxm_table();
const Table<MxvProblem, Vector>& mxv_table();
const Table<MxvProblem, Vector>& vxm_table();
const Table<DenseMxmProblem, DenseMatrix>& mxm_dense_table();
const Table<DenseMxmProblem, DenseMatrix>& mxm_dense_epilogue_table();
const Table<BatchedMxmProblem, DenseBatch>& mxm_batched_table();
const Table<StackedBatchedMxmProblem, DenseMatrix>& mxm_batched_stacked_table();
const Table<EwiseProblem<Matrix>, Matrix>& ewise_add_table(const Matrix*);
const Table<EwiseProblem<Vector>, Vector>& ewise_add_table(const Vector*);
const Table<EwiseProblem<Matrix>, Matrix>& ewise_mult_table(const Matrix*);
const Table<EwiseProblem<Vector>, Vector>& ewise_mult_table(const Vector*);
const Table<ApplyProblem<Matrix>, Matrix>& apply_table();
const Table<ApplyProblem<Vector>, Vector>& apply_vector_table();
const Table<ApplyBoundProblem, Matrix>& apply_bound_table();
const Table<ApplyIndexProblem, Matrix>& apply_index_table();
const Table<SelectProblem, Matrix>& select_table();
const Table<ReduceProblem, Vector>& reduce_table();
const Table<ReduceScalarProblem<Matrix>, Scalar>& reduce_scalar_table(const Matrix*);
const Table<ReduceScalarProblem<Vector>, Scalar>& reduce_scalar_table(const Vector*);
const Table<TransposeProblem, Matrix>& transpose_table();
const Table<IndexedProblem, Matrix>& extract_table();
const Table<IndexedProblem, Matrix>& assign_table();
const Table<AssignScalarProblem, Vector>& assign_scalar_table();
const Table<EwiseProblem<Matrix>, Matrix>& kronecker_table();
// include/ringblas/index_vectors.hpp (rows in dispatch_tables_index_vectors.cpp).
const Table<IndexVectorsProblem, Matrix>& extract_vectors_table();
const Table<SortPermutationProblem, Vector>& sort_permutation_table();
const Table<LayerChainProblem, DenseMatrix>& mxm_layers_table();
const Table<LayerNetworkProblem, SparseNetwork>& prepare_network_table();
const Table<PreparedLayersProblem, std::vector<Index>>& mxm_layers_prepared_table();
// The dense nn operations (include/ringblas/nn.hpp; rows in dispatch_tables_nn.cpp).
const Table<GemmProblem, DenseMatrix>& gemm_table();
const Table<DropoutGemmProblem, DenseMatrix>& dropout_gemm_table();
const Table<ColumnSumsProblem, DenseVector>& column_sums_table();
const Table<ReluBackwardProblem, DenseMatrix>& relu_backward_table();
const Table<DropoutProblem, DenseMatrix>& dropout_table();
const Table<BiasReluDropoutProblem, DenseMatrix>& bias_relu_dropout_table();
const Table<LinearBackwardProblem, GradientOut>& linear_dropout_relu_backward_table();
const Table<LayerBackwardProblem, LayerGradientOut>& dense_layer_backward_table();
const Table<RowsProblem, LossOut>& softmax_cross_entropy_table();
const Table<RowsProblem, LossOut>& accuracy_table();
const Table<AdamProblem, AdamOut>& adam_step_table();
const Table<SigmoidLossProblem, LossOut>& sigmoid_cross_entropy_table();

}  // namespace ringblas::detail
