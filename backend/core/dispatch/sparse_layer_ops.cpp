// Public mxm_layers (include/ringblas/sparse_layer.hpp): validation, then its dispatch table
// (one row: the cuda sparse_layer chain; there is no cpu row, so the cpu and verify backends are
// refused with NotImplemented and builds without CUDA throw NotCompiled).
#include <string>

#include "backend/core/dispatch/dispatch_tables.hpp"
#include "backend/cuda/sparse_layer/sparse_layer.hpp"
#include "ringblas/error.hpp"
#include "ringblas/sparse_layer.hpp"

namespace ringblas {

namespace {

/// The checks every form of mxm_layers shares: one bias per layer, each <= 0, square layers of
/// `n` neurons, ymax > 0, fewer than 2^31 neurons.
void check_network(const char* op, const std::vector<Matrix>& weights, const std::vector<float>& bias,
                   float ymax, Index n) {
  if (bias.size() != weights.size())
    throw InvalidValue(std::string(op) + ": " + std::to_string(weights.size()) + " layers but " +
                       std::to_string(bias.size()) + " biases");
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
  if (n >= (Index{1} << 31)) throw NotImplemented(std::string(op) + ": 2^31 or more neurons or features");
}

/// Runs the cuda entry chosen from a table that has no cpu entry (choose() throws NotCompiled or
/// NotImplemented for cpu, verify, and machines without a device).
template <class P, class Out>
void run_cuda_only(const detail::Table<P, Out>& t, const P& p, Out& out, Context& ctx) {
  const detail::Choice<P, Out> c = detail::choose(t, p, out, Variant::automatic, ctx.backend, ctx.trace,
                                                  detail::cuda_unavailable());
  if (ctx.trace) ctx.trace_line(c.trace);
  c.cuda->run(p, out, ctx);
}

}  // namespace

DenseMatrix mxm_layers(const std::vector<Matrix>& weights, const std::vector<float>& bias, float ymax,
                       const DenseMatrix& features, std::vector<Index>& ids,
                       const LayerChainOptions& options, LayerChainStats* stats, Context& ctx) {
  const char* op = "mxm_layers";
  check_network(op, weights, bias, ymax, features.nrows());
  if (features.type() != Type::fp32)
    throw InvalidValue(std::string(op) + ": features must be fp32, not " + std::string(type_name(features.type())));
  if (features.ncols() >= (Index{1} << 31))
    throw NotImplemented(std::string(op) + ": 2^31 or more neurons or features");
  DenseMatrix out;
  detail::execute(detail::mxm_layers_table(),
                  detail::LayerChainProblem{weights, bias, ymax, features, ids, options, stats},
                  Variant::automatic, out, ctx, detail::Tolerance::for_type(Type::fp32));
  return out;
}

SparseNetwork prepare_network(const std::vector<Matrix>& weights, const std::vector<float>& bias,
                              float ymax, Context& ctx, LayerChainStats* stats,
                              const NetworkPrepareOptions& options) {
  const char* op = "prepare_network";
  if (weights.empty()) throw InvalidValue(std::string(op) + ": the network has no layers");
  check_network(op, weights, bias, ymax, weights[0].nrows());
  SparseNetwork out;
  run_cuda_only(detail::prepare_network_table(),
                detail::LayerNetworkProblem{weights, bias, ymax, stats, options}, out, ctx);
  return out;
}

SparseNetwork prepare_network(const std::vector<Matrix>& weights, const std::vector<float>& bias,
                              float ymax, Context& ctx, LayerChainStats* stats,
                              SparseUpload upload) {
  NetworkPrepareOptions options;
  options.upload = upload;
  return prepare_network(weights, bias, ymax, ctx, stats, options);
}

std::vector<Index> mxm_layers(const SparseNetwork& net, const Matrix& features, const LayerChainOptions& options,
                              LayerChainStats* stats, Context& ctx, DenseMatrix* survivors) {
  const char* op = "mxm_layers (prepared network)";
  if (!net.state) throw InvalidValue(std::string(op) + ": the network was not prepared (prepare_network)");
  if (net.device != ctx.device)
    throw InvalidValue(std::string(op) + ": the network was prepared on device " + std::to_string(net.device) +
                       " but the context runs on device " + std::to_string(ctx.device));
  if (features.ncols() != net.neurons)
    throw DimensionMismatch(std::string(op) + ": features have " + std::to_string(features.ncols()) +
                            " columns (neurons) but the network has " + std::to_string(net.neurons));
  if (features.nrows() >= (Index{1} << 31))
    throw NotImplemented(std::string(op) + ": 2^31 or more features");
  std::vector<Index> ids;
  run_cuda_only(detail::mxm_layers_prepared_table(),
                detail::PreparedLayersProblem{net, features, options, stats, survivors}, ids, ctx);
  return ids;
}

std::size_t reserve_upload_staging(Context& ctx) {
  if (!mxm_layers_unavailable(ctx).empty()) return 0;
  return cuda::sparse_layer::reserve_staging(ctx);
}

Matrix stage_features(const Matrix& features, SparseUpload upload, Context& ctx,
                      std::size_t* bytes_in) {
  if (ctx.backend == Backend::cpu || ctx.backend == Backend::verify)
    throw NotImplemented("stage_features: " + mxm_layers_unavailable(ctx));
  return cuda::sparse_layer::stage_features(features, upload, ctx, bytes_in);
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
