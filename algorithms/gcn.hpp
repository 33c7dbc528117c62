// Graph convolutional network for node classification (Kipf & Welling, "Semi-Supervised
// Classification with Graph Convolutional Networks", ICLR 2017; reference code tkipf/gcn and
// PyTorch Geometric's GCNConv), forward and backward written out on the public API:
//
//   Â = D^-1/2 (A + I) D^-1/2,   D = diag((A + I)·1)          (ewise_add, reduce, apply, mxm)
//   layer l = 0..L-1, H_0 = X (features, rows normalised to sum 1):
//     Hd = dropout(H_l)                    (training only; nn::dropout, a stream per epoch/layer)
//     T  = Hd · W_l                        (nn::gemm; SpMM through mxm for sparse features; for
//                                           l > 0 nn::dropout_gemm, Hd never written)
//     Z  = Â · T + b_l                     (mxm with a dense B and a bias epilogue)
//     H_{l+1} = σ(Z) for l < L-1 (σ = ReLU, fused as the bias_relu epilogue), logits Z for l = L-1
//   first layer aggregated first (Options::first_layer; Â(Xd W) = (Â Xd) W):
//     P = Â · Xd (mxm);  H_1 = dropout(ReLU(P · W_0 + b_0)) (nn::gemm, nn::bias_relu_dropout)
//   loss = mean over the training rows of −log softmax(Z)[label]      (nn::softmax_cross_entropy)
//   backward, G = ∂loss/∂Z:   ∂b_l = Σ_rows G;   ∂T = Âᵀ G;   ∂W_l = Hdᵀ ∂T;
//                             ∂H_l = dropout(∂T · W_lᵀ) ⊙ (H_l > 0), its column sums ∂b_{l-1}
//                             (for l > 0 with ∂W_l in one pass over H_l: nn::dense_layer_backward)
//                             aggregated first: ∂W_0 = Pᵀ G (no ∂T, no SpMM)
//   Adam (lr 0.01) with L2 weight decay 5e-4 on the first layer's parameters only.
//   MaxK-GCN (Options::maxk = k > 0; MaxK-GNN, Peng et al., ASPLOS 2024) replaces the hidden
//   layers' ReLU: S = maxk(Hd · W_l, k) in CBSR, H_{l+1} = Â · S + b_l (include/ringblas/cbsr.hpp;
//   the next layer's input dropout applied as H_{l+1} is written, its mask drawn again backward);
//   backward ∂S = (Âᵀ G) sampled at S's pattern (SSpMM), ∂T = densify(∂S).
// Defaults are Kipf & Welling's: 2 layers, hidden 16, dropout 0.5, 200 epochs, Glorot-uniform
// weights and zero biases (PyG's GCNConv, whose bias the reference PyG example also decays),
// early stopping when the validation loss exceeds the mean of the 10 before it (tkipf/gcn
// train.py). Deterministic for a seed on the cpu executor.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "ringblas/cbsr.hpp"
#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"
#include "ringblas/nn.hpp"

namespace ringblas::gcn {

struct Options {
  Index epochs = 200;
  Index hidden = 16;
  Index layers = 2;
  double lr = 0.01;
  double dropout = 0.5;
  double weight_decay = 5e-4;  ///< first layer's weights and bias only (Kipf & Welling)
  /// > 0: MaxK (keep the k largest entries of each row) replaces ReLU in the hidden layers
  /// (MaxK-GNN, Peng et al., ASPLOS 2024): H_{l+1} = Â · maxk(Hd · W_l, k) + b_l, the
  /// aggregation on the CBSR rows (include/ringblas/cbsr.hpp). Needs fp32, k <= hidden <= 256.
  Index maxk = 0;
  std::uint64_t seed = 0;
  /// Stop when the validation loss exceeds the mean of the previous `early_stopping` epochs'
  /// (checked after that many epochs); 0 = train every epoch.
  Index early_stopping = 10;
  Type type = Type::fp32;  ///< fp32; fp64 runs on the cpu executor (gradient tests)
  /// The order of the first layer's two products, Â·(Xd·W) or (Â·Xd)·W: the same model
  /// (associativity), different costs. Aggregating first needs no backward SpMM for this layer
  /// (its input has no gradient; ∂W = (Â·Xd)ᵀ·G) and its forward SpMM is as wide as the features.
  /// automatic: aggregate first when the features are dense, the first layer is a ReLU hidden
  /// layer and it has no more input than output columns (DGL GraphConv's rule). Forcing
  /// aggregate_first where it cannot apply (sparse features, MaxK, a single layer) throws
  /// NotImplemented.
  enum class FirstLayer { automatic, transform_first, aggregate_first };
  FirstLayer first_layer = FirstLayer::automatic;
};

/// The node features of the first layer: dense (row-major) or a sparse matrix (one-hot identity
/// features and other very sparse inputs: the first transform is then an SpMM).
struct Features {
  bool sparse = false;
  DenseMatrix dense;
  Matrix matrix;
  Index rows() const { return sparse ? matrix.nrows() : dense.nrows(); }
  Index cols() const { return sparse ? matrix.ncols() : dense.ncols(); }
};

/// Whether the operations on ctx run on the device (cuda backend, or automatic with a GPU), so
/// that the model keeps its matrices there.
bool runs_on_device(const Context& ctx);

/// Â = D^-1/2 (A + I) D^-1/2 with values of type t (existing self-loops keep their weight, as
/// PyG's add_remaining_self_loops). A must be square (DimensionMismatch).
Matrix normalized_adjacency(const Matrix& A, Type t, Context& ctx);

/// X with every row divided by its sum (rows summing to 0 stay 0; Kipf's preprocess_features),
/// values of type t.
Matrix row_normalize(const Matrix& X, Type t, Context& ctx);

/// Row-normalised features from a feature matrix: dense when n·f values take at most
/// `dense_limit_bytes`, else sparse.
Features make_features(const Matrix& X, Type t, Context& ctx,
                       std::size_t dense_limit_bytes = std::size_t(1) << 28);
/// One-hot identity features (n x n, sparse).
Features identity_features(Index n, Type t, Context& ctx);

/// The network, its parameters, gradients and Adam state, and the work arrays of one pass, all
/// where ctx computes (runs_on_device). Steps are separate so that tests can check gradients
/// and the benchmark can time epochs; train() below is the usual loop.
class Model {
 public:
  /// Throws InvalidValue for layers < 1, hidden < 1, dropout outside [0, 1), a type other than
  /// fp32/fp64, maxk > hidden or maxk with a single layer; NotImplemented for maxk with fp64 or
  /// hidden > 256 (CBSR's 8-bit columns); DimensionMismatch when A_hat and the features disagree.
  Model(const Matrix& a_hat, const Features& x, Index classes, const Options& options,
        Context& ctx);

  /// Forward pass; `training` applies dropout with the streams of `epoch`.
  void forward(bool training, Index epoch);
  /// Logits of the last forward pass (n x classes).
  const DenseMatrix& logits() const { return out_.back(); }
  /// Loss and accuracy of the last forward pass over `rows`, written to stats(loss_slot) and
  /// stats(acc_slot) (acc_slot < 0: no accuracy, as in a plain training step); with `gradient`,
  /// also ∂loss/∂logits for backward().
  void loss(DenseVector& stats, Index loss_slot, Index acc_slot, const DenseVector& labels,
            const DenseVector& rows, bool gradient);
  /// Gradients of every parameter from the last loss(…, gradient = true); `training` and
  /// `epoch` as given to the forward pass (the same dropout masks).
  void backward(bool training, Index epoch);
  /// One Adam step of every parameter with the gradients of backward().
  void step();

  Index layers() const { return Index(weights_.size()); }
  std::vector<DenseMatrix>& weights() { return weights_; }
  std::vector<DenseVector>& biases() { return biases_; }
  const std::vector<DenseMatrix>& weight_gradients() const { return d_weights_; }
  const std::vector<DenseVector>& bias_gradients() const { return d_biases_; }

 private:
  DenseMatrix place(DenseMatrix m) const;
  DenseVector place(DenseVector v) const;
  std::uint64_t stream(Index epoch, Index layer) const;
  bool dropping(bool training) const { return training && options_.dropout > 0; }
  /// Is layer l a MaxK layer (a hidden layer with options.maxk > 0)?
  bool maxk_layer(Index l) const { return options_.maxk > 0 && l + 1 < options_.layers; }
  /// Hidden layer l's aggregation and nonlinearity σ: out_[l] = σ(Â·t_[l] + b_l) (a MaxK layer
  /// also drops it for the next layer when training: dropped_in_forward).
  void hidden_forward(Index l, bool training, Index epoch);
  /// The first layer aggregated first: out_[0] = dropout(ReLU((Â·in)·W_0 + b_0)), P = Â·in kept.
  void aggregate_first_forward(const DenseMatrix& in, bool training, Index epoch);
  /// Is out_[l] already dropped by its forward pass (the fused bias_relu_dropout of the first
  /// layer aggregated first, or a MaxK layer's mxm with an output dropout)?
  bool dropped_in_forward(Index l) const { return (aggregate_first_ && l == 0) || maxk_layer(l); }
  /// The dropout layer l > 0 applies to its input out_[l-1] as it reads it (0: none, or done).
  double input_dropout(bool training, Index l) const {
    return dropping(training) && !dropped_in_forward(l - 1) ? options_.dropout : 0.0;
  }
  /// d_t_[l] = ∂loss/∂t_[l] from G = grad_[l], the gradient at the aggregation's output: Âᵀ·G,
  /// or for a MaxK layer Âᵀ·G sampled at maxk(t_[l])'s pattern and densified.
  void aggregation_backward(Index l);

  Options options_;
  Context& ctx_;
  Matrix a_hat_, a_hat_t_;  ///< a_hat_t_ only when Â is not symmetric
  bool symmetric_ = true;
  bool aggregate_first_ = false;  ///< the first layer as (Â·Xd)·W_0 (Options::first_layer)
  DenseMatrix agg_x_;             ///< P = Â·Xd of the last forward pass (aggregate_first_)
  Features x_;
  DenseMatrix x_drop_;  ///< dense features after dropout
  Matrix x_drop_sparse_, x_drop_sparse_t_;
  std::vector<DenseMatrix> weights_, d_weights_, m_weights_, v_weights_;
  std::vector<DenseVector> biases_, d_biases_, m_biases_, v_biases_;
  std::vector<DenseMatrix> t_;     ///< T = input · W per layer
  std::vector<DenseMatrix> out_;   ///< H_{l+1} (activated) per layer; the last is the logits
  std::vector<DenseMatrix> grad_;  ///< ∂loss/∂Z per layer
  std::vector<DenseMatrix> d_t_;   ///< ∂loss/∂T per layer
  Index adam_t_ = 0;
  /// MaxK hidden layers (options.maxk > 0): S = maxk(T) per hidden layer; backward() writes ∂S
  /// over its values (same pattern).
  std::vector<Cbsr> s_;
};

struct EpochStats {
  Index epoch = 0;
  double train_loss = 0, train_acc = 0, val_loss = 0, val_acc = 0;
};

struct Result {
  std::vector<EpochStats> history;
  double test_loss = 0, test_acc = 0;
  bool stopped_early = false;
};

/// Trains on `train` rows, watches `val`, reports `test` (node ids; labels of size n, each id's
/// label in 0..classes-1). `on_epoch` (optional) receives every epoch's numbers as soon as they
/// are known (the loop reads the device once per epoch for them).
Result train(const Matrix& a_hat, const Features& x, const std::vector<std::int32_t>& labels,
             Index classes, const std::vector<std::int32_t>& train_rows,
             const std::vector<std::int32_t>& val_rows, const std::vector<std::int32_t>& test_rows,
             const Options& options, Context& ctx,
             const std::function<void(const EpochStats&)>& on_epoch = {});

}  // namespace ringblas::gcn
