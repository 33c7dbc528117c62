// Public mxm_layers (include/ringblas/sparse_layer.hpp): validation, then its dispatch table
// (one row: the cuda sparse_layer chain; there is no cpu row, so the cpu and verify backends are
// refused with NotImplemented and builds without CUDA throw NotCompiled).
#include <string>

#include "backend/core/dispatch_tables.hpp"
#include "ringblas/error.hpp"
#include "ringblas/sparse_layer.hpp"

namespace ringblas {

DenseMatrix mxm_layers(const std::vector<Matrix>& weights, const std::vector<float>& bias, float ymax,
                       const DenseMatrix& features, std::vector<Index>& ids,
                       const LayerChainOptions& options, LayerChainStats* stats, Context& ctx) {
  const char* op = "mxm_layers";
  if (bias.size() != weights.size())
    throw InvalidValue(std::string(op) + ": " + std::to_string(weights.size()) + " layers but " +
                       std::to_string(bias.size()) + " biases");
  const Index n = features.nrows();
  for (std::size_t k = 0; k < weights.size(); ++k) {
    if (weights[k].nrows() != n || weights[k].ncols() != n)
      throw DimensionMismatch(std::string(op) + ": layer " + std::to_string(k + 1) + " is " +
                              std::to_string(weights[k].nrows()) + "x" + std::to_string(weights[k].ncols()) +
                              " but the features have " + std::to_string(n) + " neurons (rows)");
    if (!(bias[k] <= 0.0f))
      throw InvalidValue(std::string(op) + ": bias of layer " + std::to_string(k + 1) + " is " +
                         std::to_string(bias[k]) + "; the fused layers need bias <= 0");
  }
  if (!(ymax > 0.0f)) throw InvalidValue(std::string(op) + ": ymax must be > 0");
  if (features.type() != Type::fp32)
    throw InvalidValue(std::string(op) + ": features must be fp32, not " + std::string(type_name(features.type())));
  if (n >= (Index{1} << 31) || features.ncols() >= (Index{1} << 31))
    throw NotImplemented(std::string(op) + ": 2^31 or more neurons or features");
  DenseMatrix out;
  detail::execute(detail::mxm_layers_table(),
                  detail::LayerChainProblem{weights, bias, ymax, features, ids, options, stats},
                  Variant::automatic, out, ctx, detail::Tolerance::for_type(Type::fp32));
  return out;
}

std::string mxm_layers_unavailable(const Context& ctx) {
  // The question choose() asks of the table's one row (sparse_layer, cuda, can_implement: yes).
  if (ctx.backend == Backend::cpu || ctx.backend == Backend::verify)
    return std::string("the fused layer chain has no cpu implementation (backend ") +
           backend_name(ctx.backend) + ")";
  if (auto why = detail::cuda_unavailable()) return *why;
  return {};
}

}  // namespace ringblas
