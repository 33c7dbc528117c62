// `ringblas gcn DIR` for a DIR in TU layout (graph classification: batched GCN over many small
// graphs through mxm_batched, mean readout, a linear head, masked sigmoid cross-entropy, ROC-AUC;
// algorithms/gcn_graph_classification.hpp).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "algorithms/gcn_graph_classification.hpp"
#include "algorithms/tu_dataset_io.hpp"
#include "gcn_command.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cli {
namespace {

void print_epoch(const graph_gcn::EpochStats& s, void*) {
  std::printf("epoch %4lld  loss %.4f  val loss %.4f  val ROC-AUC %.4f  test ROC-AUC %.4f\n",
              static_cast<long long>(s.epoch + 1), s.train_loss, s.val_loss, s.val_auc, s.test_auc);
  std::fflush(stdout);
}

}  // namespace

bool is_tu_dir(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string f = e.path().filename().string();
    for (const std::string suffix : {"_A.txt", "_A.txt.gz"})
      if (f.size() > suffix.size() &&
          f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0)
        return true;
  }
  return false;
}

int gcn_graph_classification(const std::string& dir, const gcn::Options& options, Context& ctx) {
  if (options.maxk > 0)
    throw NotImplemented("gcn: --maxk is not available for graph classification (TU layout) yet");
  const tu::Dataset ds = tu::read_dataset(dir);
  graph_gcn::Options o;
  o.epochs = options.epochs;
  o.hidden = options.hidden;
  o.layers = options.layers;
  o.lr = options.lr;
  o.dropout = options.dropout;
  o.weight_decay = options.weight_decay;
  o.seed = options.seed;
  o.early_stopping = options.early_stopping;
  o.type = options.type;
  std::cout << "data: " << ds.name << " (TU layout), " << ds.num_graphs << " graphs, "
            << ds.num_nodes << " nodes, " << ds.adjacency.nnz() << " adjacency entries, "
            << ds.num_tasks << " task" << (ds.num_tasks == 1 ? "" : "s") << '\n';
  DenseMatrix x;
  if (ds.node_labels.empty()) {
    x = DenseMatrix::from_values(ds.num_nodes, 1, std::vector<float>(ds.num_nodes, 1.0f));
    std::cout << "features: no node labels in " << dir << "; one constant feature per node\n";
  } else {
    x = tu::one_hot_node_labels(ds);
    std::cout << "features: one-hot node labels (" << x.ncols() << " distinct)\n";
  }
  const graph_gcn::Split split = graph_gcn::random_split(ds.num_graphs, o.seed);
  std::cout << "split: random 80/10/10 with seed " << o.seed << ": train/val/test "
            << split.train.size() << "/" << split.val.size() << "/" << split.test.size() << '\n'
            << "model: " << o.layers << " GCN layers of " << o.hidden
            << " (ReLU), mean readout, linear head; masked sigmoid cross-entropy; Adam lr " << o.lr
            << ", weight decay " << o.weight_decay << " on every parameter, dropout " << o.dropout
            << "; mini-batches of " << o.batch_size << " graphs through mxm_batched; " << o.epochs
            << " epochs"
            << (o.early_stopping ? ", early stopping on the validation loss (window " +
                                       std::to_string(o.early_stopping) + ")"
                                 : std::string())
            << '\n';
  graph_gcn::Model model(ds, x, o, ctx);
  Index best = -1;
  const auto stats = graph_gcn::train(model, split, o, print_epoch, nullptr, &best);
  if (best < 0) throw InvalidValue("gcn: no epoch was run (--epochs 0)");
  const graph_gcn::EpochStats& b = stats[static_cast<std::size_t>(best)];
  std::printf("best validation ROC-AUC %.4f at epoch %lld; test ROC-AUC per task there:\n",
              b.val_auc, static_cast<long long>(best + 1));
  for (std::size_t t = 0; t < b.test_auc_per_task.size(); ++t) {
    if (std::isnan(b.test_auc_per_task[t]))
      std::printf("  %-16s n/a (one class only in the test set)\n", ds.task_names[t].c_str());
    else
      std::printf("  %-16s %.4f\n", ds.task_names[t].c_str(), b.test_auc_per_task[t]);
  }
  std::printf("test ROC-AUC: %.4f\n", b.test_auc);
  return 0;
}

}  // namespace ringblas::cli
