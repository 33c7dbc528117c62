// Public mxm_layers (include/ringblas/sparse_layer.hpp): validation, then the cuda sparse_layer
// chain; builds without CUDA throw NotCompiled.
#include <string>

#include "ringblas/error.hpp"
#include "ringblas/sparse_layer.hpp"
#if defined(RINGBLAS_HAS_CUDA)
#include "backend/cuda/sparse_layer/sparse_layer.hpp"
#endif

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
  if (ctx.backend == Backend::cpu)
    throw NotImplemented(std::string(op) + ": the fused layer chain runs on the cuda backend only; "
                         "use mxm, apply and select on the cpu backend");
#if defined(RINGBLAS_HAS_CUDA)
  if (!cuda_available()) throw NotImplemented(std::string(op) + ": no CUDA device is visible");
  return cuda::sparse_layer::run_chain(weights, bias, ymax, features, ids, options, stats, ctx);
#else
  (void)ids;
  (void)options;
  (void)stats;
  throw NotCompiled(std::string(op) + ": this ringblas was built without CUDA");
#endif
}

}  // namespace ringblas
