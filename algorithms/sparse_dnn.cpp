// Sparse DNN inference on the public API (method in sparse_dnn.hpp).
#include "algorithms/sparse_dnn.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <future>
#include <mutex>
#include <string>
#include <thread>

#include "algorithms/graph_challenge_io.hpp"
#include "algorithms/radixnet.hpp"
#include "ringblas/error.hpp"
#include "ringblas/sparse_layer.hpp"

namespace ringblas::sparse_dnn {
namespace {

/// Rows with at least one entry, counted from a host CSR matrix.
Index nonempty_rows(const Matrix& y) {
  const std::vector<Index> rp = y.row_ptr_vector();
  Index n = 0;
  for (Index i = 0; i < y.nrows(); ++i) n += rp[std::size_t(i + 1)] > rp[std::size_t(i)];
  return n;
}

/// One layer by the generic operations: Y = min(select(Y W ⊕ b, > 0), ymax).
Matrix layer_generic(const Matrix& y, const Matrix& w, float bias, float ymax, Context& ctx) {
  const Index m = y.nrows(), n = w.ncols();
  const Semiring plus_times = semiring("plus_times", Type::fp32);
  Matrix z(m, n, Type::fp32), zb(m, n, Type::fp32), pos(m, n, Type::fp32), out(m, n, Type::fp32);
  mxm(z, nullptr, no_accum, plus_times, y, w, {}, ctx);
  apply(zb, nullptr, no_accum, BinaryOpCode::plus, BindSide::second, Scalar(bias), z, {}, ctx);
  select(pos, nullptr, no_accum, SelectOpCode::value_gt, Scalar(0.0f), zb, {}, ctx);
  apply(out, nullptr, no_accum, BinaryOpCode::min, BindSide::second, Scalar(ymax), pos, {}, ctx);
  return out;
}

Matrix infer_generic(const Network& net, Matrix y, Context& ctx, const LayerCallback& on_layer) {
  for (Index k = 0; k < net.layers(); ++k) {
    y = layer_generic(y, net.weights[std::size_t(k)], net.bias[std::size_t(k)], net.ymax, ctx);
    if (y.location() != Location::host) y = y.to(Location::host, ctx);
    if (on_layer) on_layer(k + 1, nonempty_rows(y));
  }
  return y;
}

/// The fused chain: the network prepared on the device, the sparse features (images x neurons)
/// in, the surviving images' ids out, and, when `scores` is given, their final activations as the
/// rows of an images x neurons sparse matrix.
std::vector<Index> run_fused(const Network& net, const Matrix& y0, Context& ctx,
                             const LayerCallback& on_layer, InferStats* stats, Matrix* scores,
                             SparseUpload upload = SparseUpload::csr, bool overlap = false,
                             SparseTail tail = SparseTail::automatic) {
  // With `overlap`, host features are staged on the device (stage_features) by a second host
  // thread while the weights are prepared: neither needs the other. Its own Context copy keeps the
  // trace and the transfer counters of the two threads apart.
  std::future<Matrix> staging;
  std::size_t staged_bytes = 0;
  if (overlap && y0.location() == Location::host)
    staging = std::async(std::launch::async, [&y0, &staged_bytes, upload, side = ctx]() mutable {
      side.trace = false;
      return stage_features(y0, upload, side, &staged_bytes);
    });
  LayerChainStats prep;
  const SparseNetwork prepared =
      prepare_network(net.weights, net.bias, net.ymax, ctx, &prep, upload);
  const bool staged_early = staging.valid();
  const Matrix staged = staged_early ? staging.get() : Matrix();
  if (staged_early)
    ctx.trace_line("sparse_dnn: features staged during prepare_network, " +
                   std::to_string(staged_bytes) + " bytes sent");
  LayerChainOptions opt;
  opt.on_layer = on_layer;
  opt.upload = upload;
  opt.tail = tail;
  DenseMatrix survivors;
  const std::vector<Index> ids =
      mxm_layers(prepared, staged_early ? staged : y0, opt, stats ? &stats->chain : nullptr, ctx,
                 scores ? &survivors : nullptr);
  if (stats && staged_early) stats->chain.bytes_in = staged_bytes;
  if (stats) {
    stats->fused = true;
    stats->chain.prepare_ms = prep.prepare_ms;
    stats->weight_bytes_in = prep.bytes_in;
  }
  if (scores) {
    // Surviving images keep their nonzero activations; every other row is empty.
    const Index images = y0.nrows(), n = net.neurons;
    const DenseMatrix out = survivors.to(Location::host, ctx);
    std::vector<Index> row_ptr(std::size_t(images + 1), 0), cols;
    std::vector<float> vals;
    const float* d = out.values().as<float>();
    std::size_t next = 0;
    for (Index f = 0; f < images; ++f) {
      if (next < ids.size() && ids[next] == f) {
        for (Index i = 0; i < n; ++i) {
          const float x = d[next * std::size_t(n) + std::size_t(i)];
          if (x != 0.0f) {
            cols.push_back(i);
            vals.push_back(x);
          }
        }
        ++next;
      }
      row_ptr[std::size_t(f + 1)] = Index(cols.size());
    }
    *scores = Matrix::from_csr(images, n, row_ptr, cols, vals);
  }
  return ids;
}

Matrix infer_fused(const Network& net, const Matrix& y0, Context& ctx, const LayerCallback& on_layer,
                   InferStats* stats) {
  Matrix scores;
  run_fused(net, y0, ctx, on_layer, stats, &scores);
  return scores;
}

/// First difference between two fp32 results (structure exact, values relative 1e-4), or "".
std::string first_difference(const Matrix& got, const Matrix& want) {
  const auto gr = got.row_ptr_vector(), wr = want.row_ptr_vector();
  const auto gc = got.col_idx_vector(), wc = want.col_idx_vector();
  const auto gv = got.values_vector<float>(), wv = want.values_vector<float>();
  for (Index i = 0; i < want.nrows(); ++i) {
    if (gr[std::size_t(i + 1)] - gr[std::size_t(i)] != wr[std::size_t(i + 1)] - wr[std::size_t(i)])
      return "row " + std::to_string(i) + " has " + std::to_string(gr[std::size_t(i + 1)] - gr[std::size_t(i)]) +
             " entries, expected " + std::to_string(wr[std::size_t(i + 1)] - wr[std::size_t(i)]);
    for (Index p = wr[std::size_t(i)], q = gr[std::size_t(i)]; p < wr[std::size_t(i + 1)]; ++p, ++q) {
      if (gc[std::size_t(q)] != wc[std::size_t(p)])
        return "row " + std::to_string(i) + ": column " + std::to_string(gc[std::size_t(q)]) +
               ", expected " + std::to_string(wc[std::size_t(p)]);
      const float a = gv[std::size_t(q)], b = wv[std::size_t(p)];
      if (std::fabs(a - b) > 1e-4f * std::max(1.0f, std::fabs(b)))
        return "(" + std::to_string(i) + ", " + std::to_string(wc[std::size_t(p)]) + "): " +
               std::to_string(a) + " vs " + std::to_string(b);
    }
  }
  return {};
}

}  // namespace

Index Network::edges() const {
  Index e = 0;
  for (const Matrix& w : weights) e += w.nnz();
  return e;
}

void Network::check() const {
  if (bias.size() != weights.size())
    throw InvalidValue("sparse_dnn::Network: " + std::to_string(weights.size()) + " layers but " +
                       std::to_string(bias.size()) + " biases");
  for (std::size_t k = 0; k < weights.size(); ++k)
    if (weights[k].nrows() != neurons || weights[k].ncols() != neurons)
      throw DimensionMismatch("sparse_dnn::Network: layer " + std::to_string(k + 1) + " is " +
                              std::to_string(weights[k].nrows()) + "x" +
                              std::to_string(weights[k].ncols()) + ", expected " +
                              std::to_string(neurons) + "x" + std::to_string(neurons));
}

Network graph_challenge_network(Index neurons, Index layers, const std::string& dir) {
  Network net;
  net.neurons = neurons;
  const float b = graph_challenge::bias_for(neurons);
  // The random state advances in layer order (cheap recipes); the layers themselves, read from
  // their files or built from their recipes, are independent and spread over the host's cores.
  radixnet::Generator gen(neurons);
  std::vector<radixnet::Generator::Recipe> recipe;
  std::vector<std::string> path;
  for (Index k = 1; k <= layers; ++k) {
    recipe.push_back(gen.next_recipe());  // advances the random state even when the file is used
    path.push_back(dir.empty() ? std::string() : graph_challenge::find_layer(dir, neurons, k));
  }
  net.weights.resize(std::size_t(layers));
  net.bias.assign(std::size_t(layers), b);
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_lock;
  auto work = [&] {
    for (std::size_t k; (k = next++) < std::size_t(layers);) {
      try {
        net.weights[k] = path[k].empty() ? gen.build(recipe[k])
                                         : graph_challenge::read_triples(path[k], neurons, neurons);
      } catch (...) {
        const std::lock_guard<std::mutex> hold(failure_lock);
        if (!failure) failure = std::current_exception();
        next = std::size_t(layers);
      }
    }
  };
  const unsigned threads =
      unsigned(std::min<Index>(std::max(1u, std::thread::hardware_concurrency()), std::max<Index>(layers, 1)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  return net;
}

Matrix infer(const Network& net, const Matrix& features, Context& ctx, const LayerCallback& on_layer,
             InferStats* stats) {
  net.check();
  if (stats) *stats = InferStats{};
  if (features.ncols() != net.neurons)
    throw DimensionMismatch("sparse_dnn::infer: features have " + std::to_string(features.ncols()) +
                            " columns but the network has " + std::to_string(net.neurons) + " neurons");
  Matrix y = features.location() == Location::host ? features : features.to(Location::host, ctx);
  if (y.type() != Type::fp32) y = y.cast(Type::fp32);
  if (net.layers() == 0) return y;  // Y_0
  // The fused chain computes the sparse layers only when every bias is <= 0 (see mxm_layers);
  // whether it can run on ctx is mxm_layers' dispatch table's answer.
  const bool fusable = std::all_of(net.bias.begin(), net.bias.end(), [](float b) { return b <= 0.0f; });
  if (ctx.backend == Backend::verify) {  // the fused chain (cuda) against the generic one (cpu)
    Context cpu_ctx = ctx, cuda_ctx = ctx;
    cpu_ctx.backend = Backend::cpu;
    cuda_ctx.backend = Backend::cuda;
    const Matrix want = infer_generic(net, y, cpu_ctx, {});
    if (!fusable) return want;
    const Matrix got = infer_fused(net, y, cuda_ctx, on_layer, stats);
    const std::string diff = first_difference(got, want);
    if (!diff.empty())
      throw VerificationFailed("sparse_dnn::infer: cuda and cpu differ at " + diff + " (cuda vs cpu)");
    ctx.trace_line("sparse_dnn::infer: verify passed");
    return got;
  }
  if (!fusable && ctx.backend == Backend::cuda)
    throw NotImplemented("sparse_dnn::infer: the fused cuda layers need every bias <= 0");
  // On the cuda backend mxm_layers itself reports why it cannot run (NotCompiled, no device).
  const std::string no_chain = fusable ? mxm_layers_unavailable(ctx) : "a bias is > 0";
  if (fusable && (ctx.backend == Backend::cuda || no_chain.empty()))
    return infer_fused(net, y, ctx, on_layer, stats);
  if (ctx.trace) ctx.trace_line("sparse_dnn::infer: generic operations (fused chain: " + no_chain + ")");
  return infer_generic(net, std::move(y), ctx, on_layer);
}

std::vector<Index> infer_categories(const Network& net, const Matrix& features, Context& ctx,
                                    const LayerCallback& on_layer, InferStats* stats,
                                    SparseUpload upload, bool overlap, SparseTail tail) {
  net.check();
  if (stats) *stats = InferStats{};
  if (features.ncols() != net.neurons)
    throw DimensionMismatch("sparse_dnn::infer_categories: features have " + std::to_string(features.ncols()) +
                            " columns but the network has " + std::to_string(net.neurons) + " neurons");
  const bool fusable = std::all_of(net.bias.begin(), net.bias.end(), [](float b) { return b <= 0.0f; });
  const bool fused = fusable && net.layers() > 0 && ctx.backend != Backend::verify &&
                     (ctx.backend == Backend::cuda || mxm_layers_unavailable(ctx).empty());
  if (!fused) {  // verify, the generic operations, or the errors infer gives
    Matrix y = infer(net, features, ctx, on_layer, stats);
    return categories(y.location() == Location::host ? y : y.to(Location::host, ctx));
  }
  // The features go as they are (host or device, any value type): mxm_layers uploads the sparse
  // arrays and builds the dense layout on the device.
  return run_fused(net, features, ctx, on_layer, stats, nullptr, upload, overlap, tail);
}

std::vector<Index> categories(const Matrix& scores) {
  if (scores.location() != Location::host)
    throw InvalidValue("sparse_dnn::categories: scores must be on the host");
  const std::vector<Index> rp = scores.row_ptr_vector();
  std::vector<Index> out;
  for (Index i = 0; i < scores.nrows(); ++i)
    if (rp[std::size_t(i + 1)] > rp[std::size_t(i)]) out.push_back(i);
  return out;
}

}  // namespace ringblas::sparse_dnn
