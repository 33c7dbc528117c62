// Batched GCN for graph classification (multi-task, missing labels): Tox21 and the TU sets.
//
// Model (Kipf & Welling's GCN layers, mean readout, a linear head; PyTorch Geometric's
// GCNConv + global_mean_pool + Linear with add_remaining_self_loops normalisation):
//   Â_g = D_g^-1/2 (A_g + I) D_g^-1/2      per graph g, D_g = rowsum(A_g + I), built once
//   H⁰ = X (one-hot node labels),  Hˡ⁺¹ = ReLU(Â Hˡ Wˡ + bˡ)   l = 0 .. L-1
//   O_g = mean_{v ∈ g} H^L(v,:) W_out + b_out = P (H^L W_out) + b_out   (P(g, v) = 1/|g|: the
//        readout and the head are both linear, so they are applied in the cheaper order)
//   loss = mean over present targets of BCEWithLogits(O, Y)   (missing labels ignored)
// Â is block-diagonal over a mini-batch: every product with it is one `mxm_batched` over the
// batch's graphs (Nagasaka et al., "Batched sparse matrix multiplication for accelerating graph
// convolutional networks", CCGrid 2019), in the stacked layout (the batch's node rows one after
// another, as PyG's Batch); the readout P and its transpose are `mxm_batched` with 1 x |g| items.
// Each mini-batch's Â, P and Pᵀ are MatrixBatch objects (block-diagonal, built once per
// mini-batch and reused by its 2L+2 products, so no product walks the graphs on the host;
// Options::batch_objects).
// Backward, written out (Â symmetric: Âᵀ = Â):
//   G_O = ∂loss/∂O;  ∂b_out = colsum(G_O);  G_T = Pᵀ G_O;  ∂W_out = H^Lᵀ G_T;  G_{H^L} = G_T W_outᵀ
//   per layer: G_Z = G_H ⊙ [Hˡ⁺¹ > 0];  ∂bˡ = colsum(G_Z);  G_S = Â G_Z;  ∂Wˡ = Hˡᵀ G_S;
//              G_{Hˡ} = G_S Wˡᵀ (l > 0)
// Dense transforms through nn::gemm (OpenBLAS / cuBLAS), Adam (nn::adam_step), Glorot uniform
// weights, zero biases. ROC-AUC per task (algorithms/roc_auc.hpp) on validation and test.
// Split: a seeded permutation of the graphs, 80% train, 10% validation, 10% test; each epoch
// visits the training graphs in a seeded permutation, in mini-batches of batch_size (the last
// one smaller), as PyG's DataLoader(shuffle=True) does.
#pragma once
#include <cstdint>
#include <vector>

#include "algorithms/tu_dataset_io.hpp"
#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::graph_gcn {

struct Options {
  Index hidden = 64;       ///< width of every GCN layer
  Index layers = 3;        ///< GCN layers (>= 1)
  Index batch_size = 128;  ///< graphs per mini-batch
  Index epochs = 50;
  double lr = 0.001;
  double weight_decay = 0.0;  ///< L2 on every weight and bias (torch.optim.Adam's)
  double dropout = 0.0;       ///< inverted dropout on each GCN layer's output while training
  std::uint64_t seed = 0;     ///< weights, split, batch order and dropout
  /// train(): stop when the validation loss exceeds the mean of the previous `early_stopping`
  /// epochs' (Kipf & Welling's rule, checked after that many epochs); 0 = every epoch.
  Index early_stopping = 0;
  Type type = Type::fp32;  ///< fp64 on the cpu executor (gradient tests)
  /// The products with Â, P and Pᵀ over each mini-batch's MatrixBatch objects (true), or over
  /// the graphs' matrices as items (false: the stacked form before session 9, kept so that a
  /// GPU round can time both; the same results).
  bool batch_objects = true;
};

/// Graph ids of the train / validation / test sets.
struct Split {
  std::vector<Index> train, val, test;
};

/// The seeded 80/10/10 split of `num_graphs` graphs (a permutation by `permutation`).
Split random_split(Index num_graphs, std::uint64_t seed);

/// The ids in a seeded random order (Fisher-Yates driven by SplitMix64 of (seed, stream), so the
/// order is the same on every platform and standard library).
std::vector<Index> permutation(const std::vector<Index>& ids, std::uint64_t seed,
                               std::uint64_t stream);

/// Â_g = D^-1/2 (A_g + I) D^-1/2 of every graph (gcn::normalized_adjacency of the whole
/// block-diagonal adjacency, which is the block-diagonal of the graphs' Â_g) cut into per-graph
/// blocks (values of `type`, host, 32-bit indices).
std::vector<Matrix> normalized_blocks(const tu::Dataset& ds, Type type, Context& ctx);

/// What one epoch reports.
struct EpochStats {
  Index epoch = 0;
  double train_loss = 0;  ///< mean over the epoch's mini-batches
  double val_loss = 0;    ///< masked sigmoid cross-entropy of the validation graphs
  double val_auc = 0;     ///< mean ROC-AUC over tasks (NaN tasks left out)
  double test_auc = 0;
  std::vector<double> test_auc_per_task;
};

/// The GCN, its parameters (on the device when ctx runs cuda, else on the host) and Adam's state.
class Model {
 public:
  /// InvalidValue for an undirected graph's missing reverse edge (the backward pass uses Âᵀ = Â),
  /// features whose rows differ from the node count, or options out of range.
  Model(const tu::Dataset& ds, const DenseMatrix& features, const Options& opt, Context& ctx);

  /// One epoch over `order` (graph ids) in mini-batches: forward, backward, Adam. `epoch` (from
  /// 0) seeds dropout. Returns the mean mini-batch loss (one host read per epoch).
  double train_epoch(const std::vector<Index>& order, Index epoch);

  /// Loss of the graphs `ids` as one mini-batch and the gradients of every parameter (no update,
  /// no dropout); for gradient checks.
  double loss_and_gradients(const std::vector<Index>& ids);

  /// Logits O (host, row-major |ids| x tasks), in mini-batches of batch_size.
  std::vector<float> predict(const std::vector<Index>& ids);

  /// Mean and per-task ROC-AUC of the graphs `ids`; `loss` receives their masked sigmoid
  /// cross-entropy.
  double roc_auc(const std::vector<Index>& ids, std::vector<double>* per_task = nullptr,
                 double* loss = nullptr);

  /// Weights W⁰ .. W^{L-1}, W_out (in x out, row-major) and biases b⁰ .. b^{L-1}, b_out;
  /// gradients in the same order after loss_and_gradients (tests, and the benchmark, which
  /// writes the initial weights for the PyG run).
  std::vector<DenseMatrix>& weights() { return w_; }
  std::vector<DenseVector>& biases() { return b_; }
  const std::vector<DenseMatrix>& weight_gradients() const { return gw_; }
  const std::vector<DenseVector>& bias_gradients() const { return gb_; }

  Index num_tasks() const { return tasks_; }

 private:
  struct Batch;
  class Lease;
  /// The mini-batch of graphs ids[begin, end): their Â_g and readout matrices are moved (lent)
  /// into the batch, not copied, and moved back by give_back (Lease does it, also on errors).
  Batch make_batch(const std::vector<Index>& ids, std::size_t begin, std::size_t end);
  void give_back(Batch& b);
  /// Forward pass of a mini-batch, returning the logits; loss into losses_(slot); with
  /// `backward`, the gradients into gw_, gb_. `stream` > 0 seeds dropout (training).
  DenseMatrix step(const Batch& b, bool backward, Index slot, std::uint64_t stream);
  DenseMatrix blank(Index rows, Index cols) const;

  const tu::Dataset& ds_;
  Options opt_;
  Context& ctx_;
  Location where_;
  Index tasks_ = 0, in_width_ = 0;
  // Per graph, where the model computes (uploaded once): Â_g, and the 1 x |g| readout of 1/|g|
  // with its transpose. A batch borrows them (lent_[g]: where graph g is in the current batch,
  // or -1).
  std::vector<Matrix> adj_, pool_, pool_t_;
  std::vector<Index> lent_;
  std::vector<float> x_;  // host features, row-major n x in_width_
  std::vector<DenseMatrix> w_, gw_, mw_, vw_;
  std::vector<DenseVector> b_, gb_, mb_, vb_;
  DenseVector losses_;  // one slot per mini-batch, read once per epoch
  Index adam_t_ = 0;
};

/// Trains for opt.epochs on `split` (or until early stopping), calling `on_epoch` after each
/// epoch (the CLI prints it). Returns the stats of every epoch run; `best` receives the epoch
/// with the highest validation ROC-AUC (its test ROC-AUC is the one to report).
std::vector<EpochStats> train(Model& model, const Split& split, const Options& opt,
                              void (*on_epoch)(const EpochStats&, void*) = nullptr,
                              void* user = nullptr, Index* best = nullptr);

}  // namespace ringblas::graph_gcn
