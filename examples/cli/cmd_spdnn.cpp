// `ringblas spdnn`: Graph Challenge sparse DNN inference with a PASS/FAIL check against the truth;
// one process, or with --gpus G under mpirun one rank per GPU (spdnn_mpi.cpp).
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "algorithms/sparse_dnn.hpp"
#include "cli.hpp"
#include "ringblas/context.hpp"
#include "ringblas/error.hpp"
#include "spdnn_mpi.hpp"
#include "spdnn_problem.hpp"

namespace ringblas::cli {

namespace {
constexpr const char* kUsage =
    "usage: ringblas spdnn --neurons N --layers L --data DIR [options]\n"
    "       mpirun -np G ringblas spdnn ... --gpus G          (one rank per GPU)\n"
    "  Graph Challenge sparse DNN: Y = min(max(Y W_k + b, 0), 32) for k = 1..L, then the images\n"
    "  with a nonzero row are the categories, checked against DIR/neuron{N}-l{L}-categories.tsv.\n"
    "  --neurons N      1024 (default), 4096, 16384 or 65536\n"
    "  --layers L       default 120; layers missing from DIR are generated (algorithms/radixnet)\n"
    "  --data DIR       folder with sparse-images-{N}.tsv (or the 1024 .mtx.gz subset), the\n"
    "                   neuron{N}/n{N}-l{k}.tsv layers and the truth; for N > 1024 without its\n"
    "                   images, the 1024 images are upsampled by pixel replication\n"
    "  --images K       use the first K images, repeating the file's images when K is larger\n"
    "  --gpus G         1 (default); G > 1 runs under `mpirun -np G` (MPI build): weights\n"
    "                   replicated, images split in G contiguous blocks, rank r on GPU\n"
    "                   (node-local rank) % (GPUs visible); with --backend cpu, G cpu ranks\n"
    "  --rebalance-after K   (G > 1) after layer K, move active images between ranks when the\n"
    "                   busiest rank holds more than --rebalance-threshold P percent over the\n"
    "                   mean (default 10); default 0: never\n"
    "  --baseline-ms T  (G > 1) the 1-rank run's \"layers: T ms\", for the scaling efficiency\n"
    "                   T / (G x layers time of the G ranks)\n"
    "  --backend B      auto (default), cpu, cuda, verify\n"
    "  --upload U       how weights and images cross the bus on the GPU: packed (default: 16-bit\n"
    "                   indices where they fit, one value for runs of equal values, pinned staging\n"
    "                   overlapping packing, copy and decoding) or csr (the arrays as stored)\n"
    "  --tail T         (GPU) how the tail kernel of the fused chain reads its activations: auto\n"
    "                   (default: staged up to 1024 neurons, else rows), rows, or staged (an\n"
    "                   error on wider networks)\n"
    "  --overlap        (GPU) send the images from a second host thread while the weights are\n"
    "                   prepared (they do not depend on each other)\n"
    "  --progress P     print a progress line every P layers (default: every L/10 from 100 "
    "layers)\n"
    "  --trace          print dispatch decisions to stderr, and on the GPU the wall time of every\n"
    "                   phase of the weights' preparation and of the features in (each phase\n"
    "                   synchronized: a profile, slower than an untraced run)\n"
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

double parse_real(Args& args, const std::string& what, const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used != text.size() || !(v >= 0)) throw std::invalid_argument(text);
    return v;
  } catch (const std::exception&) {
    args.usage_error(what + " needs a non-negative number, got '" + text + "'");
  }
}

int run_single(const SpdnnOptions& opt) {
  Context ctx(opt.backend);
  ctx.trace = opt.trace;
  const SpdnnProblem p = load_spdnn_problem(opt);
  print_spdnn_header(opt, p, "");
  sparse_dnn::InferStats stats;
  // The CUDA context and the device pool are created before timing (a process's one-time
  // start-up, like reading the files).
  const bool on_gpu = opt.backend == Backend::cuda || (opt.backend == Backend::automatic && cuda_available());
  if (on_gpu) reserve_start_up(opt, p.net, p.count, ctx, true);
  // The whole inference after reading: weight preparation, features in, layers, categories back.
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Index> got = sparse_dnn::infer_categories(
      p.net, p.images, ctx,
      [&](Index k, Index active) {
        if (p.progress > 0 && (k % p.progress == 0 || k == opt.layers))
          std::printf("  layer %lld: %lld images active\n", (long long)k, (long long)active);
      },
      &stats, opt.upload, opt.overlap, opt.tail);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double edges = double(p.count) * double(p.net.edges());
  const double layers_ms = stats.fused ? stats.chain.inference_ms : seconds * 1e3;
  std::printf("inference: %.4f s (whole: weight preparation, features in, layers, categories out), "
              "%.3f TeraEdges/s\n",
              seconds, edges / seconds / 1e12);
  std::printf("layers: %.3f ms, %.3f TeraEdges/s (%s)\n", layers_ms, edges / layers_ms / 1e9,
              stats.fused ? "fused GPU chain, CUDA events" : "wall clock");
  if (stats.fused)
    std::printf("time split: weight preparation %.1f ms (on the device), features in and ids out "
                "%.1f ms, layers %.1f ms, rest %.1f ms; whole / layers %.2fx\n",
                stats.chain.prepare_ms, stats.chain.transfer_ms, layers_ms,
                seconds * 1e3 - stats.chain.prepare_ms - stats.chain.transfer_ms - layers_ms,
                seconds * 1e3 / layers_ms);
  if (stats.fused)
    std::printf("sent to the device (--upload %s): weights %.1f MB, images %.1f MB\n",
                opt.upload == SparseUpload::packed ? "packed" : "csr",
                double(stats.weight_bytes_in) / 1e6, double(stats.chain.bytes_in) / 1e6);
  return check_spdnn_truth(opt, p, got);
}
}  // namespace

int cmd_spdnn(Args& args) {
  args.set_usage(kUsage);
  if (args.help()) {
    std::cout << kUsage;
    return 0;
  }
  const auto neurons_opt = args.option("--neurons"), layers_opt = args.option("--layers");
  const auto data_opt = args.option("--data"), images_opt = args.option("--images");
  const auto gpus_opt = args.option("--gpus"), backend_opt = args.option("--backend");
  const auto progress_opt = args.option("--progress");
  const auto rebalance_opt = args.option("--rebalance-after");
  const auto threshold_opt = args.option("--rebalance-threshold");
  const auto baseline_opt = args.option("--baseline-ms");
  const auto upload_opt = args.option("--upload"), tail_opt = args.option("--tail");
  SpdnnOptions opt;
  opt.trace = args.flag("--trace");
  opt.overlap = args.flag("--overlap");
  args.positionals(0, 0);
  if (neurons_opt) opt.neurons = parse_count(args, "--neurons", *neurons_opt);
  if (layers_opt) opt.layers = parse_count(args, "--layers", *layers_opt);
  if (!data_opt) args.usage_error("--data DIR is needed for the input images");
  opt.dir = *data_opt;
  if (images_opt) opt.images = parse_count(args, "--images", *images_opt);
  if (gpus_opt) opt.gpus = parse_count(args, "--gpus", *gpus_opt);
  if (opt.gpus < 1) args.usage_error("--gpus needs at least 1");
  if (progress_opt) opt.progress = parse_count(args, "--progress", *progress_opt);
  if (rebalance_opt) opt.rebalance_after = parse_count(args, "--rebalance-after", *rebalance_opt);
  if (opt.rebalance_after > 0 && opt.rebalance_after >= opt.layers)
    args.usage_error("--rebalance-after " + std::to_string(opt.rebalance_after) +
                     " must be before the last layer");
  if (threshold_opt)
    opt.rebalance_threshold = parse_real(args, "--rebalance-threshold", *threshold_opt) / 100.0;
  if (baseline_opt) opt.baseline_ms = parse_real(args, "--baseline-ms", *baseline_opt);
  opt.backend = parse_backend(backend_opt.value_or("auto"));
  if (upload_opt) {
    if (*upload_opt != "csr" && *upload_opt != "packed")
      args.usage_error("--upload needs csr or packed, got '" + *upload_opt + "'");
    opt.upload = *upload_opt == "packed" ? SparseUpload::packed : SparseUpload::csr;
  }
  if (tail_opt) {
    try {
      opt.tail = parse_sparse_tail(*tail_opt);
    } catch (const InvalidValue& e) {
      args.usage_error(std::string("--tail: ") + e.what());
    }
  }
  if (opt.gpus == 1) {
    if (opt.rebalance_after > 0) args.usage_error("--rebalance-after needs --gpus G > 1");
    return run_single(opt);
  }
  return run_spdnn_mpi(opt);
}

}  // namespace ringblas::cli
