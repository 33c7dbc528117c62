// `ringblas gcn DIR [options]`: GCN training (algorithms/gcn.hpp). A DIR in Planetoid layout
// trains node classification (this file); a DIR in TU layout goes to graph classification
// (gcn_tu.cpp).
#include <chrono>
#include <cstdio>
#include <iostream>

#include "algorithms/planetoid_io.hpp"
#include "gcn_command.hpp"
#include "graph_command.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cli {

namespace {
constexpr const char* kUsage =
    "usage: ringblas gcn DIR [--epochs N] [--hidden H] [--layers L] [--lr f] [--dropout f]\n"
    "                        [--weight-decay f] [--maxk K] [--seed S] [--early-stopping W]\n"
    "                        [--backend auto|cpu|cuda|verify] [--trace]\n"
    "  Trains a graph convolutional network (Kipf & Welling 2017) and prints one line per epoch,\n"
    "  then `test accuracy: 0.xxxx` (node classification) or the mean test ROC-AUC (graph\n"
    "  classification).\n"
    "  DIR in Planetoid layout: <name>_adj.mtx[.gz], <name>_features.mtx[.gz] (optional: without\n"
    "  it every node gets a one-hot identity feature), <name>_labels.txt (class per node, -1 =\n"
    "  unlabeled), <name>_split_{train,val,test}.txt (0-based node ids). DIR in TU layout\n"
    "  (*_A.txt, *_graph_indicator.txt, labels): graph classification.\n"
    "  --epochs N          default 200\n"
    "  --hidden H          hidden units per layer, default 16\n"
    "  --layers L          GCN layers, default 2\n"
    "  --lr f              Adam learning rate, default 0.01\n"
    "  --dropout f         dropout before every layer, default 0.5\n"
    "  --weight-decay f    L2 on the first layer's parameters, default 5e-4\n"
    "  --maxk K            MaxK nonlinearity (top K per row) instead of ReLU in hidden layers\n"
    "  --seed S            weights and dropout masks, default 0 (deterministic on the cpu)\n"
    "  --early-stopping W  stop when the validation loss exceeds the mean of the last W, default\n"
    "                      10 (Kipf's train.py); 0 trains every epoch\n"
    "  --backend B         auto (default), cpu, cuda, verify\n"
    "  --trace             print dispatch decisions to stderr\n";

Index integer(Args& args, const char* name, Index fallback, Index min) {
  const double v = args.number(name, double(fallback));
  if (v != double(Index(v)) || v < double(min))
    args.usage_error(std::string(name) + " must be an integer >= " + std::to_string(min));
  return Index(v);
}

}  // namespace

int cmd_gcn(Args& args) {
  args.set_usage(kUsage);
  if (args.help()) {
    std::cout << args.usage();
    return 0;
  }
  GraphOptions g = graph_options(args);
  if (g.output) args.usage_error("gcn writes no output file (-o)");
  gcn::Options o;
  o.epochs = integer(args, "--epochs", o.epochs, 0);
  o.hidden = integer(args, "--hidden", o.hidden, 1);
  o.layers = integer(args, "--layers", o.layers, 1);
  o.lr = args.number("--lr", o.lr);
  o.dropout = args.number("--dropout", o.dropout);
  o.weight_decay = args.number("--weight-decay", o.weight_decay);
  o.maxk = integer(args, "--maxk", o.maxk, 0);
  o.seed = std::uint64_t(integer(args, "--seed", Index(o.seed), 0));
  o.early_stopping = integer(args, "--early-stopping", o.early_stopping, 0);
  if (!(o.dropout >= 0 && o.dropout < 1)) args.usage_error("--dropout must be in [0, 1)");
  if (!(o.lr > 0)) args.usage_error("--lr must be > 0");
  if (!(o.weight_decay >= 0)) args.usage_error("--weight-decay must be >= 0");
  const std::string dir = args.positionals(1, 1)[0];
  if (is_tu_dir(dir)) return gcn_graph_classification(dir, o, g.ctx);
  if (!planetoid::is_planetoid_dir(dir))
    throw IoError("gcn: " + dir +
                  " is neither a Planetoid data set (<name>_adj.mtx[.gz]) nor a TU data set "
                  "(*_A.txt)");

  const planetoid::Dataset d = planetoid::read(dir);
  const Index n = d.adjacency.nrows();
  std::cout << "data: " << d.name << ", " << n << " nodes, " << d.adjacency.nnz()
            << " adjacency entries, " << d.classes << " classes, train/val/test " << d.train.size()
            << "/" << d.val.size() << "/" << d.test.size() << '\n';
  gcn::Features x;
  if (d.has_features) {
    x = gcn::make_features(d.features, o.type, g.ctx);
    std::cout << "features: " << d.features.ncols() << " per node, rows normalised ("
              << (x.sparse ? "sparse" : "dense") << ")\n";
  } else {
    x = gcn::identity_features(n, o.type, g.ctx);
    std::cout << "features: none in " << dir << "; using one-hot identity features (" << n << " x "
              << n << ", sparse)\n";
  }
  const Matrix a_hat = gcn::normalized_adjacency(d.adjacency, o.type, g.ctx);
  std::cout << "model: " << o.layers << " layers, hidden " << o.hidden
            << (o.maxk > 0 ? ", MaxK k " + std::to_string(o.maxk) + " (hidden layers)" : "")
            << ", dropout " << o.dropout
            << ", lr " << o.lr << ", weight decay " << o.weight_decay << " (first layer), seed "
            << o.seed << ", backend " << backend_name(g.ctx.backend) << '\n';
  auto last = std::chrono::steady_clock::now();
  const gcn::Result r = gcn::train(a_hat, x, d.labels, d.classes, d.train, d.val, d.test, o, g.ctx,
                                   [&](const gcn::EpochStats& e) {
                                     const auto now = std::chrono::steady_clock::now();
                                     const double s =
                                         std::chrono::duration<double>(now - last).count();
                                     last = now;
                                     std::printf(
                                         "Epoch: %04lld train_loss= %.5f train_acc= %.5f val_loss= "
                                         "%.5f val_acc= %.5f time= %.5f\n",
                                         static_cast<long long>(e.epoch + 1), e.train_loss,
                                         e.train_acc, e.val_loss, e.val_acc, s);
                                     std::fflush(stdout);
                                   });
  if (r.stopped_early) std::printf("Early stopping after epoch %zu\n", r.history.size());
  std::printf("test loss: %.5f\ntest accuracy: %.4f\n", r.test_loss, r.test_acc);
  return 0;
}

}  // namespace ringblas::cli
