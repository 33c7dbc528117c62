// Batched GCN graph classification on Tox21: ringblas (mxm_batched + nn ops) against PyTorch
// Geometric (tests/bench/pyg_tox21.py) on the same split, batch order and initial weights.
//
// Usage: bench_tox21 --out PREFIX [--data DIR] [--epochs N] [--hidden H] [--layers L]
//                    [--batch B] [--lr F] [--seed S] [--backend cuda|cpu]
//                    [--pyg tests/bench/pyg_tox21.py] [--python python3] [--stacked-items]
// --stacked-items: the GCN's products over the graphs' matrices as items instead of each
// mini-batch's MatrixBatch objects (graph_gcn::Options::batch_objects), to time both.
// Writes PREFIX.plan (what the PyG script reads: hyper-parameters, split, every epoch's order of
// the training graphs, the initial weights), PREFIX.md and PREFIX.json. Epoch time = one pass
// over the training graphs (batch assembly on the host, forward, backward, Adam), measured on the
// host clock around train_epoch, which ends with its single device read (the epoch's losses), so
// the GPU work is complete; the median over epochs 2.. (epoch 1 is the warm-up). Evaluation
// (validation and test ROC-AUC every epoch) is not timed, in either program. Test ROC-AUC is
// reported at the epoch of best validation ROC-AUC (MoleculeNet's model selection), mean over the
// 12 tasks. Each row is printed when measured.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/gcn_graph_classification.hpp"
#include "algorithms/tu_dataset_io.hpp"
#include "ringblas/ringblas.hpp"
#include "tests/bench/bench_args.hpp"

#ifdef RINGBLAS_HAS_CUDA
#include <cuda_runtime.h>
#endif

using namespace ringblas;

namespace {

std::string gpu_name() {
#ifdef RINGBLAS_HAS_CUDA
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) == cudaSuccess) return p.name;
#endif
  return "none";
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

template <class T>
void write_values(std::ostream& out, const T* p, std::size_t n) {
  out << std::setprecision(9);
  for (std::size_t k = 0; k < n; ++k) out << ' ' << p[k];
}

void write_ids(std::ostream& out, const char* key, const std::vector<Index>& ids) {
  out << key << ' ' << ids.size();
  for (Index g : ids) out << ' ' << g;
  out << '\n';
}

struct Run {
  std::string who, device;
  double epoch_ms = NAN, test_auc = NAN, val_auc = NAN, final_test_auc = NAN;
  Index best_epoch = -1;
};

/// Runs the PyG script and reads its RESULT line; rows it prints are passed through.
Run run_pyg(const std::string& python, const std::string& script, const std::string& plan,
            const std::string& data) {
  Run r;
  r.who = "PyG GCNConv";
  const std::string cmd = python + " " + script + " --plan " + plan + " --data " + data + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    std::cout << "pyg: could not start: " << cmd << std::endl;
    return r;
  }
  char line[4096];
  while (std::fgets(line, sizeof line, p)) {
    std::string s(line);
    std::cout << s << std::flush;
    if (s.rfind("RESULT ", 0) != 0) continue;
    std::istringstream in(s.substr(7));
    std::string kv;
    while (in >> kv) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos) continue;
      const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
      if (k == "epoch_ms_median") r.epoch_ms = std::stod(v);
      if (k == "test_auc") r.test_auc = std::stod(v);
      if (k == "val_auc") r.val_auc = std::stod(v);
      if (k == "final_test_auc") r.final_test_auc = std::stod(v);
      if (k == "best_epoch") r.best_epoch = std::stoll(v);
      if (k == "device") r.device = v;
    }
  }
  const int rc = pclose(p);
  if (rc != 0) std::cout << "pyg: exit status " << rc << std::endl;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_prefix, data = std::string(RINGBLAS_DATA_DIR) + "/molecules/tox21_graphs";
  std::string pyg, python = "python3", backend = "cuda";
  graph_gcn::Options opt;
  opt.epochs = 30;
  opt.lr = 0.01;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return bench::option_value(argc, argv, i, "bench_tox21"); };
    if (a == "--out")
      out_prefix = next();
    else if (a == "--data")
      data = next();
    else if (a == "--epochs")
      opt.epochs = std::stoll(next());
    else if (a == "--hidden")
      opt.hidden = std::stoll(next());
    else if (a == "--layers")
      opt.layers = std::stoll(next());
    else if (a == "--batch")
      opt.batch_size = std::stoll(next());
    else if (a == "--lr")
      opt.lr = std::stod(next());
    else if (a == "--seed")
      opt.seed = std::stoull(next());
    else if (a == "--backend")
      backend = next();
    else if (a == "--pyg")
      pyg = next();
    else if (a == "--python")
      python = next();
    else if (a == "--stacked-items")
      opt.batch_objects = false;
    else {
      std::cerr << "usage: bench_tox21 --out PREFIX [--data DIR] [--epochs N] [--hidden H] "
                   "[--layers L] [--batch B] [--lr F] [--seed S] [--backend cuda|cpu] "
                   "[--pyg pyg_tox21.py] [--python python3] [--stacked-items]\n";
      return 2;
    }
  }
  if (out_prefix.empty()) {
    std::cerr << "bench_tox21: --out PREFIX is required\n";
    return 2;
  }
  Context ctx(parse_backend(backend));
  const tu::Dataset ds = tu::read_dataset(data);
  const DenseMatrix x = tu::one_hot_node_labels(ds);
  const graph_gcn::Split split = graph_gcn::random_split(ds.num_graphs, opt.seed);
  graph_gcn::Model model(ds, x, opt, ctx);
  const std::string gpu = gpu_name();
  std::cout << "tox21: " << ds.num_graphs << " graphs, " << ds.num_nodes << " nodes, " << x.ncols()
            << " features, " << ds.num_tasks << " tasks; split " << split.train.size() << "/"
            << split.val.size() << "/" << split.test.size() << " (seed " << opt.seed << "); hidden "
            << opt.hidden << ", layers " << opt.layers << ", batch " << opt.batch_size << ", lr "
            << opt.lr << ", " << opt.epochs << " epochs; backend " << backend << ", GPU " << gpu
            << std::endl;

  // The plan: everything the PyG run needs to repeat this one.
  const std::string plan = out_prefix + ".plan";
  std::vector<std::vector<Index>> orders;
  for (Index e = 0; e < opt.epochs; ++e)
    orders.push_back(graph_gcn::permutation(split.train, opt.seed, 1 + e));
  {
    std::ofstream p(plan);
    p << "# bench_tox21 plan: graph ids are 0-based in file order\n"
      << "param name " << ds.name << "\nparam hidden " << opt.hidden << "\nparam layers "
      << opt.layers << "\nparam batch " << opt.batch_size << "\nparam lr " << opt.lr
      << "\nparam seed " << opt.seed << '\n';
    write_ids(p, "train", split.train);
    write_ids(p, "val", split.val);
    write_ids(p, "test", split.test);
    for (const auto& o : orders) write_ids(p, "epoch", o);
    for (std::size_t l = 0; l < model.weights().size(); ++l) {
      const DenseMatrix w = model.weights()[l].to(Location::host, ctx);
      p << "weight " << l << ' ' << w.nrows() << ' ' << w.ncols();
      write_values(p, w.values().as<float>(), static_cast<std::size_t>(w.nrows() * w.ncols()));
      p << '\n';
      const DenseVector b = model.biases()[l].to(Location::host, ctx);
      p << "bias " << l << ' ' << b.size();
      write_values(p, b.values().as<float>(), static_cast<std::size_t>(b.size()));
      p << '\n';
    }
  }

  Run ours;
  ours.who = "ringblas (" + backend + (opt.batch_objects ? ")" : ", stacked items)");
  ours.device = gpu;
  std::vector<double> times;
  double best_val = -1;
  for (Index e = 0; e < opt.epochs; ++e) {
    const auto t0 = std::chrono::steady_clock::now();
    const double loss = model.train_epoch(orders[e], e);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    times.push_back(ms);
    const double val = model.roc_auc(split.val);
    const double test = model.roc_auc(split.test);
    if (val > best_val)
      best_val = val, ours.best_epoch = e, ours.test_auc = test, ours.val_auc = val;
    ours.final_test_auc = test;
    std::cout << "ringblas epoch " << std::setw(3) << e << "  loss " << std::fixed
              << std::setprecision(4) << loss << "  val ROC-AUC " << val << "  test ROC-AUC "
              << test << "  " << std::setprecision(1) << ms << " ms" << std::endl;
  }
  ours.epoch_ms = median(std::vector<double>(times.begin() + (times.size() > 1), times.end()));

  std::vector<Run> runs{ours};
  if (!pyg.empty()) runs.push_back(run_pyg(python, pyg, plan, data));

  std::ofstream md(out_prefix + ".md");
  md << "# Tox21 batched GCN: ringblas vs PyTorch Geometric\n\nGPU: " << gpu << ". "
     << ds.num_graphs << " molecules, split " << split.train.size() << "/" << split.val.size()
     << "/" << split.test.size() << " (seed " << opt.seed << "), " << opt.layers
     << " GCN layers of " << opt.hidden << ", mean readout, linear head, batch " << opt.batch_size
     << ", Adam lr " << opt.lr << ", " << opt.epochs
     << " epochs; same split, batch order and initial weights in both.\n"
        "Epoch time: median over epochs 2.., training pass only. Test ROC-AUC: mean over 12 "
        "tasks at the best-validation epoch (and at the last epoch).\n\n"
        "| program | epoch ms | test ROC-AUC | best epoch | val ROC-AUC | last-epoch test ROC-AUC "
        "|\n|---|---|---|---|---|---|\n";
  std::ofstream js(out_prefix + ".json");
  js << "{\n  \"gpu\": \"" << gpu << "\",\n  \"epochs\": " << opt.epochs
     << ",\n  \"hidden\": " << opt.hidden << ",\n  \"layers\": " << opt.layers
     << ",\n  \"batch\": " << opt.batch_size << ",\n  \"runs\": [\n";
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const Run& r = runs[k];
    md << "| " << r.who << " | " << std::fixed << std::setprecision(2) << r.epoch_ms << " | "
       << std::setprecision(4) << r.test_auc << " | " << r.best_epoch << " | " << r.val_auc << " | "
       << r.final_test_auc << " |\n";
    js << "    {\"program\": \"" << r.who << "\", \"epoch_ms\": " << r.epoch_ms
       << ", \"test_auc\": " << r.test_auc << ", \"best_epoch\": " << r.best_epoch
       << ", \"val_auc\": " << r.val_auc << ", \"final_test_auc\": " << r.final_test_auc << "}"
       << (k + 1 < runs.size() ? "," : "") << "\n";
  }
  js << "  ]\n}\n";
  if (runs.size() == 2 && runs[1].epoch_ms > 0) {
    md << "\nringblas / PyG epoch time: " << std::setprecision(3)
       << runs[0].epoch_ms / runs[1].epoch_ms
       << " (target <= 0.5); test ROC-AUC difference: " << std::setprecision(4)
       << runs[0].test_auc - runs[1].test_auc << " (target within 0.01; last epoch "
       << runs[0].final_test_auc - runs[1].final_test_auc << ")\n";
    std::cout << "ratio epoch time ringblas/PyG " << runs[0].epoch_ms / runs[1].epoch_ms
              << ", ROC-AUC difference " << runs[0].test_auc - runs[1].test_auc << std::endl;
  }
  std::cout << "wrote " << out_prefix << ".md, .json, .plan" << std::endl;
  return 0;
}
