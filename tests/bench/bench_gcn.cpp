// Benchmark (a program, not a test) of GCN training on ringblas's cuda executor
// (algorithms/gcn.hpp); its peer, PyTorch Geometric's GCNConv with the same settings, is
// tests/bench/pyg_gcn.py, run in the same device call on the same inputs.
// - Cora (Planetoid split, real features): 2 layers, hidden 16, dropout 0.5, lr 0.01, weight
//   decay 5e-4 on layer 1, 200 epochs without early stopping, for each of --seeds seeds; test
//   accuracy at the epoch of the best validation accuracy (as PyG's example gcn.py reports it)
//   and after the last epoch; mean / min / max over the seeds.
// - PubMed: its graph with random features of PubMed's width 500 (its features are not in the
//   shared data), speed only.
// - A generated power-law graph (R-MAT scale 20 = 1,048,576 nodes, edge factor 16, symmetrised,
//   tests/support/rmat.hpp) with random features of width 256, hidden 256, 16 random classes,
//   every node a training node, ReLU GCN and MaxK-GCN (k = 32); written to --graph-file (int64
//   n, int64 m, then m int32 (row, col) pairs of Â's pattern without self-loops) so that
//   pyg_gcn.py trains on the same graph.
// Time per epoch = one training step (forward with dropout, loss, backward, Adam) between CUDA
// events; evaluation and the per-epoch read of the four numbers are outside the events. Reported:
// the median and the mean over the epochs. Rows are printed as they are measured.
// Usage: bench_gcn --out PREFIX [--data DIR] [--seeds N] [--epochs N] [--graph-file F]
//                  [--scale S] [--only cora,pubmed,powerlaw] [--runs relu,maxk] [--trace]
//                  [--first-layer automatic|aggregate|transform]
//   writes PREFIX.md and PREFIX.json. --runs picks the power-law graph's runs; --first-layer
//   the order of the first layer's products there (gcn::Options::first_layer; automatic
//   aggregates first for the ReLU GCN, 256 features -> 256 hidden).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#if defined(RINGBLAS_HAS_CUDA)
#include <cuda_runtime.h>
#endif

#include "algorithms/gcn.hpp"
#include "algorithms/planetoid_io.hpp"
#include "ringblas/nn.hpp"
#include "ringblas/ringblas.hpp"
#include "tests/bench/bench_args.hpp"
#include "tests/support/rmat.hpp"

namespace {

using namespace ringblas;

#if defined(RINGBLAS_HAS_CUDA)
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
std::string gpu_name() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "none";
  return p.name;
}
/// Milliseconds of f() between two CUDA events on the legacy stream (ringblas's default).
struct EventTimer {
  cudaEvent_t a{}, b{};
  EventTimer() {
    check(cudaEventCreate(&a), "cudaEventCreate");
    check(cudaEventCreate(&b), "cudaEventCreate");
  }
  ~EventTimer() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  double time(const std::function<void()>& f) {
    check(cudaEventRecord(a), "cudaEventRecord");
    f();
    check(cudaEventRecord(b), "cudaEventRecord");
    check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    return ms;
  }
};
#else
std::string gpu_name() { return "none (built without CUDA)"; }
struct EventTimer {
  double time(const std::function<void()>& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
};
#endif

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}
double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? NAN : s / double(v.size());
}

struct Run {
  std::vector<double> epoch_ms;
  double best_val_test_acc = NAN, final_test_acc = NAN;
};

/// Trains for `epochs` epochs, timing each training step; with val/test rows, evaluates after
/// every step (untimed) and keeps the test accuracy at the best validation accuracy.
Run train_timed(const Matrix& a_hat, const gcn::Features& x,
                const std::vector<std::int32_t>& labels, Index classes,
                const std::vector<std::int32_t>& train, const std::vector<std::int32_t>& val,
                const std::vector<std::int32_t>& test, const gcn::Options& o, Context& ctx,
                bool trace_one_epoch = false) {
  gcn::Model model(a_hat, x, classes, o, ctx);
  auto put = [&](const std::vector<std::int32_t>& v) {
    return DenseVector::from_values(v).to(Location::device, ctx);
  };
  const DenseVector lab = put(labels), tr = put(train);
  const bool eval = !val.empty();
  DenseVector va, te;
  if (eval) va = put(val), te = put(test);
  DenseVector stats = DenseVector(6, Type::fp32).to(Location::device, ctx);
  EventTimer timer;
  Run r;
  double best_val = -1;
  for (Index epoch = 0; epoch < o.epochs; ++epoch) {
    // --trace: epoch 2 (after warm-up) prints each operation's variant and wall time; that epoch
    // is synchronised per operation, so it is left out of the timings.
    const bool traced = trace_one_epoch && epoch == 2;
    ctx.trace = ctx.trace_time = traced;
    if (traced) std::printf("-- trace of epoch 2 (untimed) --\n"), std::fflush(stdout);
    r.epoch_ms.push_back(timer.time([&] {
      model.forward(true, epoch);
      model.loss(stats, 0, -1, lab, tr, true);  // no accuracy: PyG's step computes none
      model.backward(true, epoch);
      model.step();
    }));
    if (traced) {
      r.epoch_ms.pop_back();
      ctx.trace = ctx.trace_time = false;
    }
    if (!eval) continue;
    model.forward(false, epoch);
    model.loss(stats, 2, 3, lab, va, false);
    model.loss(stats, 4, 5, lab, te, false);
    const DenseVector h = stats.to(Location::host, ctx);
    const float* s = h.values().as<float>();
    if (s[3] > best_val) {
      best_val = s[3];
      r.best_val_test_acc = s[5];
    }
    r.final_test_acc = s[5];
  }
  return r;
}

struct Row {
  std::string dataset, what;
  Index nodes = 0, nnz = 0, features = 0, hidden = 0;
  double median_ms = NAN, mean_ms = NAN;
  double acc_mean = NAN, acc_min = NAN, acc_max = NAN, final_acc_mean = NAN;
  int seeds = 0;
};

void print_row(const Row& r) {
  std::printf(
      "%-10s %-28s n=%-8lld nnz=%-10lld f=%-5lld h=%-4lld  epoch median %.3f ms mean %.3f ms",
      r.dataset.c_str(), r.what.c_str(), static_cast<long long>(r.nodes),
      static_cast<long long>(r.nnz), static_cast<long long>(r.features),
      static_cast<long long>(r.hidden), r.median_ms, r.mean_ms);
  if (!std::isnan(r.acc_mean))
    std::printf(
        "  test acc (best val) mean %.4f min %.4f max %.4f; after last epoch mean %.4f (%d seeds)",
        r.acc_mean, r.acc_min, r.acc_max, r.final_acc_mean, r.seeds);
  std::printf("\n");
  std::fflush(stdout);
}

gcn::Features random_features(Index n, Index f, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> v(std::size_t(n * f));
  for (float& x : v) x = u(g);
  gcn::Features x;
  x.dense = DenseMatrix::from_values(n, f, v);
  return x;
}

/// The 256 -> 16 layer's products on the power-law graph's shapes (n x 256 by 256 x 16, and the
/// weight gradient n x 256 transposed by n x 16), each gemm variant forced, plain and with the
/// input's dropout (nn::dropout_gemm): median of 10 after a warm-up, printed as measured. Tells
/// whether the skinny dense_nn kernels, which the dispatch prefers, beat cuBLAS here.
void time_skinny_gemms(Index n, Context& ctx) {
  std::mt19937_64 g(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  auto random = [&](Index r, Index c) {
    std::vector<float> v(std::size_t(r * c));
    for (float& x : v) x = u(g);
    return DenseMatrix::from_values(r, c, v).to(Location::device, ctx);
  };
  const DenseMatrix H = random(n, 256), W = random(256, 16), D = random(n, 16);
  DenseMatrix T = random(n, 16), dW = random(256, 16);
  EventTimer timer;
  for (bool tn : {false, true})
    for (double p : {0.0, 0.5})
      for (Variant v : {Variant::cublas, Variant::dense_nn}) {
        Descriptor d;
        d.variant = v;
        d.transpose_a = tn;
        auto run = [&] {
          if (p == 0)
            nn::gemm(tn ? dW : T, 1.0, H, tn ? D : W, 0.0, d, ctx);
          else
            nn::dropout_gemm(tn ? dW : T, 1.0, H, tn ? D : W, p, 1, 2, d, ctx);
        };
        run();
        std::vector<double> ms;
        for (int r = 0; r < 10; ++r) ms.push_back(timer.time(run));
        std::printf("  %s %s %lldx256 %s: %s %.3f ms\n", p == 0 ? "gemm" : "dropout_gemm",
                    tn ? "TN" : "NN", static_cast<long long>(n),
                    tn ? "transposed by n x 16" : "by 256 x 16",
                    std::string(variant_name(v)).c_str(), median(ms));
        std::fflush(stdout);
      }
  // The layer's backward: one pass (dense_layer_backward) against the two it stands for, as the
  // MaxK run calls it (input not dropped, no ReLU) and as the ReLU run does (input dropped).
  DenseMatrix G = random(n, 256);
  DenseVector s = DenseVector(256, Type::fp32).to(Location::device, ctx);
  for (bool relu_run : {false, true})
    for (bool fused : {true, false}) {
      auto run = [&] {
        if (fused) {
          nn::dense_layer_backward(dW, G, &s, H, D, W, relu_run, relu_run, 0.5, 1, 2, ctx);
        } else {
          Descriptor ta;
          ta.transpose_a = true;
          nn::dropout_gemm(dW, 1.0, H, D, relu_run ? 0.0 : 0.5, 1, 2, ta, ctx);
          nn::linear_dropout_relu_backward(G, &s, D, W, relu_run ? &H : nullptr, 0.5, 1, 2, ctx);
        }
      };
      run();
      std::vector<double> ms;
      for (int r = 0; r < 10; ++r) ms.push_back(timer.time(run));
      std::printf("  layer backward (%s run) %lldx256 by 16: %s %.3f ms\n",
                  relu_run ? "ReLU" : "MaxK", static_cast<long long>(n),
                  fused ? "dense_layer_backward" : "dropout_gemm TN + linear_dropout_relu_backward",
                  median(ms));
      std::fflush(stdout);
    }
}

/// The pattern of A (no self-loops) as the binary file pyg_gcn.py reads.
void write_graph(const std::string& path, const Matrix& a) {
  std::ofstream out(path, std::ios::binary);
  const auto rp = a.row_ptr_vector(), ci = a.col_idx_vector();
  std::vector<std::int32_t> pairs;
  pairs.reserve(ci.size() * 2);
  for (Index i = 0; i < a.nrows(); ++i)
    for (Index k = rp[std::size_t(i)]; k < rp[std::size_t(i + 1)]; ++k)
      if (ci[std::size_t(k)] != i)
        pairs.push_back(std::int32_t(i)), pairs.push_back(std::int32_t(ci[std::size_t(k)]));
  const std::int64_t header[2] = {a.nrows(), std::int64_t(pairs.size() / 2)};
  out.write(reinterpret_cast<const char*>(header), sizeof header);
  out.write(reinterpret_cast<const char*>(pairs.data()),
            std::streamsize(pairs.size() * sizeof(std::int32_t)));
  if (!out) throw IoError("bench_gcn: cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_prefix, data = RINGBLAS_DATA_DIR, graph_file = "powerlaw_graph.bin",
                          only = "cora,pubmed,powerlaw";
  int seeds = 10, scale = 20;
  bool trace = false;
  Index epochs = 200;
  std::string runs = "relu,maxk";
  gcn::Options::FirstLayer first_layer = gcn::Options::FirstLayer::automatic;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return bench::option_value(argc, argv, i, "bench_gcn"); };
    if (a == "--out")
      out_prefix = next();
    else if (a == "--data")
      data = next();
    else if (a == "--seeds")
      seeds = std::stoi(next());
    else if (a == "--epochs")
      epochs = std::stoll(next());
    else if (a == "--graph-file")
      graph_file = next();
    else if (a == "--scale")
      scale = std::stoi(next());
    else if (a == "--only")
      only = next();
    else if (a == "--trace")
      trace = true;
    else if (a == "--runs")
      runs = next();
    else if (a == "--first-layer") {
      const std::string v = next();
      if (v == "automatic")
        first_layer = gcn::Options::FirstLayer::automatic;
      else if (v == "aggregate")
        first_layer = gcn::Options::FirstLayer::aggregate_first;
      else if (v == "transform")
        first_layer = gcn::Options::FirstLayer::transform_first;
      else {
        std::cerr << "bench_gcn: --first-layer takes automatic, aggregate or transform\n";
        return 2;
      }
    } else {
      std::cerr << "usage: bench_gcn --out PREFIX [--data DIR] [--seeds N] [--epochs N] "
                   "[--graph-file F] [--scale S] [--only cora,pubmed,powerlaw] [--runs relu,maxk] "
                   "[--first-layer automatic|aggregate|transform] [--trace]\n";
      return 2;
    }
  }
  if (out_prefix.empty()) {
    std::cerr << "bench_gcn: --out PREFIX is required\n";
    return 2;
  }
  if (!cuda_available()) {
    std::cerr << "bench_gcn: no GPU visible; this benchmark times the cuda executor\n";
    return 1;
  }
  const std::string gpu = gpu_name();
  std::printf("bench_gcn on %s\n", gpu.c_str());
  Context ctx(Backend::cuda);
  std::vector<Row> rows;
  auto wants = [&](const std::string& what) { return only.find(what) != std::string::npos; };
  // Written after every data set, so that a later failure keeps the rows measured so far.
  auto write_all = [&] {
    const std::string date = bench::utc_date();
    std::ofstream md(out_prefix + ".md");
    md << "# GCN training on ringblas (cuda), " << gpu << ", " << date << "\n\n"
       << "Per epoch: forward with dropout, softmax cross-entropy, backward, Adam, between CUDA "
          "events (evaluation outside). Kipf & Welling settings (2 layers, dropout 0.5, lr 0.01, "
          "weight decay 5e-4 on layer 1), "
       << epochs << " epochs without early stopping; the power-law graph runs "
       << std::min<Index>(epochs, 20)
       << " epochs. Test accuracy at the best validation accuracy "
          "(PyG's example) and after the last epoch.\n\n"
       << "| data | run | nodes | nnz(Â) | features | hidden | epoch median ms | epoch mean ms | "
          "test acc mean (min-max) | after last epoch "
          "|\n|---|---|---|---|---|---|---|---|---|---|\n";
    std::ofstream js(out_prefix + ".json");
    js << "{\"gpu\": \"" << gpu << "\", \"date\": \"" << date << "\", \"epochs\": " << epochs
       << ", \"rows\": [";
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const Row& r = rows[k];
      char acc[96] = "-", fin[32] = "-";
      if (!std::isnan(r.acc_mean)) {
        std::snprintf(acc, sizeof acc, "%.4f (%.4f-%.4f)", r.acc_mean, r.acc_min, r.acc_max);
        std::snprintf(fin, sizeof fin, "%.4f", r.final_acc_mean);
      }
      char ms[64];
      std::snprintf(ms, sizeof ms, "%.3f | %.3f", r.median_ms, r.mean_ms);
      md << "| " << r.dataset << " | " << r.what << " | " << r.nodes << " | " << r.nnz << " | "
         << r.features << " | " << r.hidden << " | " << ms << " | " << acc << " | " << fin
         << " |\n";
      auto num = [](double v) { return std::isnan(v) ? std::string("null") : std::to_string(v); };
      js << (k ? ", " : "") << "{\"dataset\": \"" << r.dataset << "\", \"run\": \"" << r.what
         << "\", \"nodes\": " << r.nodes << ", \"nnz\": " << r.nnz
         << ", \"features\": " << r.features << ", \"hidden\": " << r.hidden
         << ", \"epoch_median_ms\": " << num(r.median_ms)
         << ", \"epoch_mean_ms\": " << num(r.mean_ms) << ", \"test_acc_mean\": " << num(r.acc_mean)
         << ", \"test_acc_min\": " << num(r.acc_min) << ", \"test_acc_max\": " << num(r.acc_max)
         << ", \"final_test_acc_mean\": " << num(r.final_acc_mean) << ", \"seeds\": " << r.seeds
         << "}";
    }
    js << "]}\n";
  };

  if (wants("cora")) {
    const planetoid::Dataset d = planetoid::read(data + "/gcn/planetoid/cora");
    const Matrix a_hat = gcn::normalized_adjacency(d.adjacency, Type::fp32, ctx);
    const gcn::Features x = gcn::make_features(d.features, Type::fp32, ctx);
    Row r{"cora", "ringblas cuda", d.adjacency.nrows(), a_hat.nnz(), d.features.ncols(), 16};
    std::vector<double> ms, best, final_acc;
    for (int s = 0; s < seeds; ++s) {
      gcn::Options o;
      o.seed = std::uint64_t(s);
      o.epochs = epochs;
      o.early_stopping = 0;
      const Run run = train_timed(a_hat, x, d.labels, d.classes, d.train, d.val, d.test, o, ctx);
      // The first epoch of the first seed includes cuBLAS's and the kernels' first-use costs.
      ms.insert(ms.end(), run.epoch_ms.begin() + (s == 0 ? 1 : 0), run.epoch_ms.end());
      best.push_back(run.best_val_test_acc);
      final_acc.push_back(run.final_test_acc);
      std::printf(
          "  cora seed %d: epoch median %.3f ms, test acc (best val) %.4f, after last epoch %.4f\n",
          s, median(run.epoch_ms), run.best_val_test_acc, run.final_test_acc);
      std::fflush(stdout);
    }
    r.median_ms = median(ms);
    r.mean_ms = mean(ms);
    r.acc_mean = mean(best);
    r.acc_min = *std::min_element(best.begin(), best.end());
    r.acc_max = *std::max_element(best.begin(), best.end());
    r.final_acc_mean = mean(final_acc);
    r.seeds = seeds;
    print_row(r);
    rows.push_back(r);
    write_all();
  }

  if (wants("pubmed")) {
    const planetoid::Dataset d = planetoid::read(data + "/gcn/planetoid/pubmed");
    const Matrix a_hat = gcn::normalized_adjacency(d.adjacency, Type::fp32, ctx);
    const gcn::Features x = random_features(d.adjacency.nrows(), 500, 7);
    gcn::Options o;
    o.epochs = epochs;
    o.early_stopping = 0;
    const Run run = train_timed(a_hat, x, d.labels, d.classes, d.train, {}, {}, o, ctx);
    Row r{"pubmed", "ringblas cuda (random x)", d.adjacency.nrows(), a_hat.nnz(), 500, 16};
    r.median_ms = median(std::vector<double>(run.epoch_ms.begin() + 1, run.epoch_ms.end()));
    r.mean_ms = mean(std::vector<double>(run.epoch_ms.begin() + 1, run.epoch_ms.end()));
    print_row(r);
    rows.push_back(r);
    write_all();
  }

  if (wants("powerlaw")) {
    const auto t0 = std::chrono::steady_clock::now();
    const test::RmatGraph g = test::rmat(scale, 16);
    write_graph(graph_file, g.adjacency);
    const Index n = g.adjacency.nrows();
    std::printf(
        "  power-law graph: R-MAT scale %d, %lld nodes, %lld entries, written to %s (%.1f s)\n",
        scale, static_cast<long long>(n), static_cast<long long>(g.adjacency.nnz()),
        graph_file.c_str(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::fflush(stdout);
    time_skinny_gemms(n, ctx);
    const Matrix a_hat = gcn::normalized_adjacency(g.adjacency, Type::fp32, ctx);
    const gcn::Features x = random_features(n, 256, 8);
    std::vector<std::int32_t> labels(static_cast<std::size_t>(n)),
        train(static_cast<std::size_t>(n));
    std::mt19937_64 rng(9);
    for (Index i = 0; i < n; ++i)
      labels[std::size_t(i)] = std::int32_t(rng() % 16), train[std::size_t(i)] = std::int32_t(i);
    gcn::Options o;
    o.hidden = 256;
    o.epochs = std::min<Index>(epochs, 20);
    o.early_stopping = 0;
    o.first_layer = first_layer;
    if (runs.find("relu") != std::string::npos) {
      const Run run = train_timed(a_hat, x, labels, 16, train, {}, {}, o, ctx, trace);
      const char* order = first_layer == gcn::Options::FirstLayer::transform_first
                              ? "ringblas cuda ReLU GCN (transform first)"
                              : "ringblas cuda ReLU GCN";
      Row r{"powerlaw", order, n, a_hat.nnz(), 256, 256};
      r.median_ms = median(std::vector<double>(run.epoch_ms.begin() + 1, run.epoch_ms.end()));
      r.mean_ms = mean(std::vector<double>(run.epoch_ms.begin() + 1, run.epoch_ms.end()));
      print_row(r);
      rows.push_back(r);
      write_all();
    }
    if (runs.find("maxk") != std::string::npos) {
      // MaxK-GCN (MaxK-GNN, Peng et al.): k = 32 of the 256 hidden features kept per row (its
      // first layer transforms first: MaxK sits between the transform and the aggregation).
      o.maxk = 32;
      o.first_layer = gcn::Options::FirstLayer::automatic;
      const Run run_maxk = train_timed(a_hat, x, labels, 16, train, {}, {}, o, ctx, trace);
      Row rk{"powerlaw", "ringblas cuda MaxK-GCN (k 32)", n, a_hat.nnz(), 256, 256};
      rk.median_ms =
          median(std::vector<double>(run_maxk.epoch_ms.begin() + 1, run_maxk.epoch_ms.end()));
      rk.mean_ms =
          mean(std::vector<double>(run_maxk.epoch_ms.begin() + 1, run_maxk.epoch_ms.end()));
      print_row(rk);
      rows.push_back(rk);
      write_all();
    }
  }

  std::printf("wrote %s.md and %s.json\n", out_prefix.c_str(), out_prefix.c_str());
  return 0;
}
