// `ringblas spdnn`: loading the Graph Challenge problem and checking categories against the truth.
#include "spdnn_problem.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "algorithms/graph_challenge_io.hpp"
#include "ringblas/buffer.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cli {

SpdnnProblem load_spdnn_problem(const SpdnnOptions& opt) {
  namespace gc = graph_challenge;
  SpdnnProblem p;
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  // Images: the network's own, else the 1024-pixel ones upsampled.
  p.images_path = gc::find_images(opt.dir, opt.neurons);
  if (!p.images_path.empty()) {
    p.images = gc::read_images(p.images_path, opt.neurons);
  } else {
    p.images_path = gc::find_images(opt.dir, 1024);
    if (p.images_path.empty())
      throw IoError("spdnn: no sparse-images-{" + std::to_string(opt.neurons) + ",1024} file in " +
                    opt.dir);
    while (1024 * p.upsample * p.upsample < opt.neurons) ++p.upsample;
    p.images = gc::upsample_images(gc::read_images(p.images_path, 1024), p.upsample);
  }
  p.file_images = p.images.nrows();
  p.count = opt.images.value_or(p.file_images);
  if (p.count != p.file_images) p.images = gc::take_rows(p.images, p.count);
  const auto t1 = clock::now();
  p.net = sparse_dnn::graph_challenge_network(opt.neurons, opt.layers, opt.dir);
  p.images_s = std::chrono::duration<double>(t1 - t0).count();
  p.network_s = std::chrono::duration<double>(clock::now() - t1).count();
  p.progress = opt.progress.value_or(opt.layers >= 100 ? opt.layers / 10 : 0);
  return p;
}

namespace {

/// The kernels the timed run launches load on their first launch (lazy module loading, CUDA's
/// default): the same path runs once on the network's first six layers (per-layer launches, then
/// the tail kernel where it applies) and 64 one-pixel images. Returns its wall time (ms).
double load_kernels(const SpdnnOptions& opt, const sparse_dnn::Network& net, Context& ctx) {
  sparse_dnn::Network small;
  small.neurons = net.neurons;
  small.ymax = net.ymax;
  for (Index k = 0; k < std::min<Index>(6, net.layers()); ++k) {
    small.weights.push_back(net.weights[std::size_t(k)]);
    small.bias.push_back(net.bias[std::size_t(k)]);
  }
  if (small.weights.empty() || net.neurons == 0) return 0;
  const Index images = 64;
  std::vector<Index> rp{0}, ci;
  for (Index i = 0; i < images; ++i) {
    ci.push_back((i * 37) % net.neurons);
    rp.push_back(i + 1);
  }
  const Matrix tiny =
      Matrix::from_csr(images, net.neurons, rp, ci, std::vector<float>(ci.size(), 1.0f));
  Context quiet = ctx;  // the warm-up is not traced
  quiet.trace = false;
  const auto t0 = std::chrono::steady_clock::now();
  sparse_dnn::infer_categories(small, tiny, quiet, {}, nullptr, opt.upload, opt.overlap,
                               opt.tail);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void reserve_start_up(const SpdnnOptions& opt, const sparse_dnn::Network& net, Index images,
                      Context& ctx, bool print) {
  const std::size_t activations = 3 * std::size_t(net.neurons) * std::size_t(images) * sizeof(float);
  const std::size_t weights = 64 * std::size_t(net.edges());  // upload, transpose, ranks, blob
  const std::size_t bytes = activations + weights;
  { const Buffer reserve(bytes, Location::device, &ctx); }
  const std::size_t pinned = opt.upload == SparseUpload::packed ? reserve_upload_staging(ctx) : 0;
  const double warm_ms = load_kernels(opt, net, ctx);
  if (print)
    std::printf(
        "device pool: %.1f MB reserved before timing%s; kernels loaded before timing (%.1f ms: "
        "the first 6 layers on 64 images)\n",
        double(bytes) / 1e6,
        pinned ? (", pinned staging: " + std::to_string(pinned >> 20) + " MB").c_str() : "",
        warm_ms);
}

void print_spdnn_header(const SpdnnOptions& opt, const SpdnnProblem& p, const std::string& extra) {
  std::printf(
      "spdnn: %lld neurons x %lld layers, %lld images (%s%s), %lld edges per image, backend %s%s\n",
      (long long)opt.neurons, (long long)opt.layers, (long long)p.count, p.images_path.c_str(),
      p.upsample > 1 ? ", upsampled" : "", (long long)p.net.edges(), backend_name(opt.backend),
      extra.c_str());
  std::printf("reading (not in the inference time): images %.3f s, network %.3f s\n", p.images_s,
              p.network_s);
  std::fflush(stdout);
}

int check_spdnn_truth(const SpdnnOptions& opt, const SpdnnProblem& p,
                      const std::vector<Index>& got) {
  namespace gc = graph_challenge;
  std::printf("categories: %zu of %lld images\n", got.size(), (long long)p.count);
  const std::string truth_path = gc::find_categories(opt.dir, opt.neurons, opt.layers);
  if (truth_path.empty() || p.upsample > 1) {
    std::printf("truth: none for this network (%s)\n",
                p.upsample > 1 ? "inputs upsampled" : "no neuron{N}-l{L}-categories.tsv");
    return 0;
  }
  std::vector<Index> truth;
  for (Index c : gc::read_categories(truth_path))
    if (c < p.file_images) truth.push_back(c);
  const bool pass = gc::replicate_categories(truth, p.file_images, p.count) == got;
  std::printf("%s (against %s)\n", pass ? "PASS" : "FAIL", truth_path.c_str());
  return pass ? 0 : 1;
}

}  // namespace ringblas::cli
