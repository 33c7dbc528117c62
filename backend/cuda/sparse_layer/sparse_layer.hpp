// Entry points of the sparse_layer kernel family (plain C++; defined in the .cu files here).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ringblas/descriptor.hpp"
#include "ringblas/ops.hpp"
#include "ringblas/sparse_layer.hpp"

namespace ringblas::cuda::sparse_layer {

/// Whether the family computes C = epilogue(A ⊕.⊗ B) for these operands: plus_times over fp32
/// (ELL padding contributes 0 ⊗ x = 0, the identity of plus), no transpose_b. Empty string: yes;
/// otherwise the reason.
std::string can_implement(const Semiring& s, const Matrix& a, const DenseMatrix& b,
                          const DenseMatrix& c, const Descriptor& desc);

/// One fused product C = epilogue(op(A) ⊕.⊗ B) with op(A) = A or Aᵀ (desc.transpose_a); B and C
/// dense fp32 of any layout, host or device (C keeps its location). Throws NotImplemented with
/// can_implement's reason.
void run_mxm(DenseMatrix& c, const Semiring& s, const Matrix& a, const DenseMatrix& b,
             const Epilogue& ep, const Descriptor& desc, Context& ctx);

/// prepare_network's cuda row: the weights prepared on ctx.device (prepare_layers_device) the way
/// `options` says.
SparseNetwork prepare_network(const std::vector<Matrix>& weights, const std::vector<float>& bias,
                              float ymax, LayerChainStats* stats,
                              const NetworkPrepareOptions& options, Context& ctx);

/// reserve_upload_staging's cuda side (packed_upload.hpp: reserve_packed_staging).
std::size_t reserve_staging(Context& ctx);

/// ringblas::stage_features' cuda side: the features' CSR arrays on ctx.device (fp32 values),
/// packed by `threads` (upload packed).
Matrix stage_features(const Matrix& features, SparseUpload upload, Context& ctx,
                      std::size_t* bytes_in, PackThreads threads = PackThreads::crew);

/// Whether the layer chain runs `options` on networks of `neurons` (both forms of mxm_layers ask,
/// before any work): an explicit SparseTail::staged with the tail kernel on needs at most 1024
/// neurons (SparseTail::automatic takes rows there). nullopt: yes; otherwise the reason.
std::optional<std::string> can_implement_chain(const LayerChainOptions& options, Index neurons);

/// mxm_layers(SparseNetwork, sparse features)'s cuda row (arguments validated there).
std::vector<Index> run_network(const SparseNetwork& net, const Matrix& features,
                               const LayerChainOptions& options, LayerChainStats* stats,
                               DenseMatrix* survivors, Context& ctx);

/// The layer chain behind ringblas::mxm_layers (arguments validated there).
DenseMatrix run_chain(const std::vector<Matrix>& weights, const std::vector<float>& bias, float ymax,
                      const DenseMatrix& features, std::vector<Index>& ids,
                      const LayerChainOptions& options, LayerChainStats* stats, Context& ctx);

}  // namespace ringblas::cuda::sparse_layer
