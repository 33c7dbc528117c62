// `ringblas spdnn`: Graph Challenge sparse DNN inference with a PASS/FAIL check against the truth.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "algorithms/graph_challenge_io.hpp"
#include "algorithms/sparse_dnn.hpp"
#include "cli.hpp"
#include "ringblas/context.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cli {

namespace {
constexpr const char* kUsage =
    "usage: ringblas spdnn --neurons N --layers L --data DIR [options]\n"
    "  Graph Challenge sparse DNN: Y = min(max(Y W_k + b, 0), 32) for k = 1..L, then the images\n"
    "  with a nonzero row are the categories, checked against DIR/neuron{N}-l{L}-categories.tsv.\n"
    "  --neurons N      1024 (default), 4096, 16384 or 65536\n"
    "  --layers L       default 120; layers missing from DIR are generated (algorithms/radixnet)\n"
    "  --data DIR       folder with sparse-images-{N}.tsv (or the 1024 .mtx.gz subset), the\n"
    "                   neuron{N}/n{N}-l{k}.tsv layers and the truth; for N > 1024 without its\n"
    "                   images, the 1024 images are upsampled by pixel replication\n"
    "  --images K       use the first K images, repeating the file's images when K is larger\n"
    "  --gpus G         1 (default); more needs the MPI build (not available in this build)\n"
    "  --backend B      auto (default), cpu, cuda, verify\n"
    "  --progress P     print a progress line every P layers (default: every L/10 from 100 layers)\n"
    "  --trace          print dispatch decisions to stderr\n"
    "  exit status: 0 PASS or no truth file, 1 FAIL or error, 2 bad usage\n";

Index parse_count(Args& args, const std::string& what, const std::string& text) {
  try {
    std::size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used != text.size() || v < 0) throw std::invalid_argument(text);
    return Index(v);
  } catch (const std::exception&) {
    args.usage_error(what + " needs a non-negative integer, got '" + text + "'");
  }
}
}  // namespace

int cmd_spdnn(Args& args) {
  namespace gc = graph_challenge;
  args.set_usage(kUsage);
  if (args.help()) {
    std::cout << kUsage;
    return 0;
  }
  const auto neurons_opt = args.option("--neurons"), layers_opt = args.option("--layers");
  const auto data_opt = args.option("--data"), images_opt = args.option("--images");
  const auto gpus_opt = args.option("--gpus"), backend_opt = args.option("--backend");
  const auto progress_opt = args.option("--progress");
  const bool trace = args.flag("--trace");
  args.positionals(0, 0);
  const Index neurons = neurons_opt ? parse_count(args, "--neurons", *neurons_opt) : 1024;
  const Index layers = layers_opt ? parse_count(args, "--layers", *layers_opt) : 120;
  if (!data_opt) args.usage_error("--data DIR is needed for the input images");
  const Index gpus = gpus_opt ? parse_count(args, "--gpus", *gpus_opt) : 1;
  if (gpus != 1)
    throw NotImplemented("spdnn --gpus " + std::to_string(gpus) +
                         ": multi-GPU inference needs the MPI build, which this ringblas lacks");
  Context ctx(parse_backend(backend_opt.value_or("auto")));
  ctx.trace = trace;
  const std::string dir = *data_opt;

  // Images: the network's own, else the 1024-pixel ones upsampled.
  std::string images_path = gc::find_images(dir, neurons);
  Matrix images;
  Index upsample = 1;
  if (!images_path.empty()) {
    images = gc::read_images(images_path, neurons);
  } else {
    images_path = gc::find_images(dir, 1024);
    if (images_path.empty()) throw IoError("spdnn: no sparse-images-{" + std::to_string(neurons) + ",1024} file in " + dir);
    while (1024 * upsample * upsample < neurons) ++upsample;
    images = gc::upsample_images(gc::read_images(images_path, 1024), upsample);
  }
  const Index file_images = images.nrows();
  const Index count = images_opt ? parse_count(args, "--images", *images_opt) : file_images;
  if (count != file_images) images = gc::take_rows(images, count);

  const sparse_dnn::Network net = sparse_dnn::graph_challenge_network(neurons, layers, dir);
  const Index progress = progress_opt ? parse_count(args, "--progress", *progress_opt)
                                      : (layers >= 100 ? layers / 10 : 0);
  std::printf("spdnn: %lld neurons x %lld layers, %lld images (%s%s), %lld edges per image, backend %s\n",
              (long long)neurons, (long long)layers, (long long)count, images_path.c_str(),
              upsample > 1 ? ", upsampled" : "", (long long)net.edges(), backend_name(ctx.backend));
  std::fflush(stdout);

  const auto t0 = std::chrono::steady_clock::now();
  const Matrix y = sparse_dnn::infer(net, images, ctx, [&](Index k, Index active) {
    if (progress > 0 && (k % progress == 0 || k == layers))
      std::printf("  layer %lld: %lld images active\n", (long long)k, (long long)active);
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::vector<Index> got = sparse_dnn::categories(y);
  const double edges = double(count) * double(net.edges());
  std::printf("inference: %.4f s (conversions and weight preparation included), %.3f TeraEdges/s\n",
              seconds, edges / seconds / 1e12);
  std::printf("categories: %zu of %lld images\n", got.size(), (long long)count);

  const std::string truth_path = gc::find_categories(dir, neurons, layers);
  if (truth_path.empty() || upsample > 1) {
    std::printf("truth: none for this network (%s)\n",
                upsample > 1 ? "inputs upsampled" : "no neuron{N}-l{L}-categories.tsv");
    return 0;
  }
  std::vector<Index> truth;
  for (Index c : gc::read_categories(truth_path))
    if (c < file_images) truth.push_back(c);
  const bool pass = gc::replicate_categories(truth, file_images, count) == got;
  std::printf("%s (against %s)\n", pass ? "PASS" : "FAIL", truth_path.c_str());
  return pass ? 0 : 1;
}

}  // namespace ringblas::cli
