// Dense building blocks for training graph neural networks (issue 12): GEMM, bias gradient,
// ReLU backward, counter-based dropout, softmax cross-entropy, accuracy and Adam, and two fused
// passes of a hidden layer (bias + ReLU + dropout forward; its backward with the bias gradient).
//
// Every operation takes row-major DenseMatrix/DenseVector operands of one float type: fp32 on
// every executor, fp64 on the cpu executor as well (the finite-difference tests use it; the cuda
// rows answer NotImplemented for fp64). Like the rest of the API each has one dispatch table
// (`ringblas kernels` lists them): the cpu row ("host_dense": OpenBLAS for gemm, plain loops for
// the rest) and the cuda rows ("cublas" and skinny "dense_nn" for gemm, "dense_nn" for the rest).
// On the cuda executor no operation synchronises with the host: the scalar results (loss, accuracy)
// are written into a slot of a DenseVector so that a training loop reads all of an epoch's scalars
// with one copy.
//
// Shared rules: shapes are checked before anything runs (DimensionMismatch naming the operation),
// layouts must be row_major and types must agree (InvalidValue). Each executor copies inputs that
// live elsewhere for the call (counted in ctx.transfers) and moves an output it writes to its own
// side: the cuda executor leaves outputs on the device, the cpu executor on the host. Keep a
// training loop's matrices on the device so that nothing is copied.
#pragma once
#include <cstdint>

#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/matrix.hpp"
#include "ringblas/ops.hpp"

namespace ringblas::nn {

/// C = alpha · op(A) · op(B) + beta · C, op transposing per desc.transpose_a / desc.transpose_b
/// (BLAS sgemm/dgemm on row-major data). C must already have the product's shape; with beta == 0
/// its old values are not read (NaN in C does not propagate). desc's mask flags and variant
/// other than automatic / host_dense / cublas / dense_nn throw NotImplemented. On the cuda
/// executor Aᵀ·B with at most 32 columns in C (beta == 0, B not transposed: a layer's weight
/// gradient) runs on dense_nn's skinny kernel (the tall A read once), any other on cuBLAS
/// (dense_nn can be forced for the untransposed skinny product too).
void gemm(DenseMatrix& C, double alpha, const DenseMatrix& A, const DenseMatrix& B, double beta,
          const Descriptor& desc = {}, Context& ctx = default_context());

/// C = alpha · op(dropout(A; p, seed, stream)) · op(B): a product whose first operand is dropped
/// as it is read (the mask of nn::dropout over A's elements, index i·A.ncols() + j, before op);
/// A is not changed. The same as gemm(C, alpha, dropout(A), B, 0, desc) without writing the
/// dropped A: a layer's transform of its dropped input and its weight gradient (transpose_a).
/// Shapes, types and flags as gemm's (beta is 0); p in [0, 1) (InvalidValue).
void dropout_gemm(DenseMatrix& C, double alpha, const DenseMatrix& A, const DenseMatrix& B,
                  double p, std::uint64_t seed, std::uint64_t stream, const Descriptor& desc = {},
                  Context& ctx = default_context());

/// s(j) = Σ_i A(i, j) (the bias gradient of a layer whose output gradient is A). s must have
/// size A.ncols() and A's type; its old values are overwritten.
void column_sums(DenseVector& s, const DenseMatrix& A, Context& ctx = default_context());

/// G(i,j) = Y(i,j) > 0 ? G(i,j) : 0: the gradient through Y = max(X, 0) given Y (ReLU backward),
/// in place. G and Y have the same shape.
void relu_backward(DenseMatrix& G, const DenseMatrix& Y, Context& ctx = default_context());

/// The uniform number in [0, 1) that dropout draws for element `index` (= i·ncols + j) under
/// (seed, stream): a counter-based generator (SplitMix64-style finaliser of the three words, 24
/// bits), so that the cpu and cuda executors draw the same numbers, in any order, without state.
float dropout_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t index);

/// Inverted dropout in place: X(i,j) = u(i,j) >= p ? X(i,j) / (1 - p) : 0, u = dropout_uniform(
/// seed, stream, i·ncols + j). Calling it again with the same (p, seed, stream) on the gradient
/// of the output is the backward pass (same mask, same scale). Use a new stream per epoch and
/// per dropout site. p in [0, 1) (InvalidValue otherwise); p == 0 leaves X unchanged.
void dropout(DenseMatrix& X, double p, std::uint64_t seed, std::uint64_t stream,
             Context& ctx = default_context());
/// The same out of place: Y = dropout(X) (Y has X's shape and type; X is not changed). Saves a
/// copy where X must be kept (a network's input features).
void dropout(DenseMatrix& Y, const DenseMatrix& X, double p, std::uint64_t seed,
             std::uint64_t stream, Context& ctx = default_context());

/// A dense layer's forward epilogue in one pass over H (in place): bias, ReLU, dropout mask,
///   H(i,j) = dropout(max(H(i,j) + b(j), 0); p, seed, stream)
/// with the mask and scale of nn::dropout (index i·ncols + j; p == 0: no dropout). Equal to
/// adding b to every row, ReLU, then dropout(H, p, seed, stream). b has H.ncols() entries and
/// H's type (DimensionMismatch / InvalidValue); p in [0, 1) (InvalidValue).
void bias_relu_dropout(DenseMatrix& H, const DenseVector& b, double p, std::uint64_t seed,
                       std::uint64_t stream, Context& ctx = default_context());

/// The gradient at a hidden layer's pre-activation Z from the next layer's ∂T = D, where the
/// forward pass was Y = relu(Z) (Y given) or Y = Z (Y nullptr), Yd = dropout(Y; p, seed, stream),
/// T = Yd · W. In one pass (the output written once, D and W read once):
///   G = dropout(D · Wᵀ; p, seed, stream) ⊙ (Y > 0 where Y is given)
///   s = Σ_i G(i, :)  (the bias gradient; skipped when s is nullptr)
/// equal to gemm(G, 1, D, W, 0, transpose_b) followed by dropout(G, p, seed, stream),
/// relu_backward(G, *Y) and column_sums(*s, G). Y may be the dropped Yd (dropout zeroes what it
/// drops, and the mask zeroes those gradients anyway). Shapes: D is n x k, W is m x k, G and Y are
/// n x m, s has m entries (DimensionMismatch); one float type (InvalidValue); p in [0, 1).
void linear_dropout_relu_backward(DenseMatrix& G, DenseVector* s, const DenseMatrix& D,
                                  const DenseMatrix& W, const DenseMatrix* Y, double p,
                                  std::uint64_t seed, std::uint64_t stream,
                                  Context& ctx = default_context());

/// The backward of a dense layer T = dropout(X; p, seed, stream) · W whose input is X = relu(Z)
/// (relu) or X = Z, given D = ∂T, in one pass over X (X: n x m, W: m x k, D: n x k):
///   dW = dropout(X)ᵀ · D                        (m x k)
///   G  = dropout(D · Wᵀ) ⊙ (X > 0 where relu)   (n x m, the gradient at Z)
///   s  = Σ_i G(i, :)                            (the bias gradient of Z's layer; nullptr: none)
/// with the forward's mask for both. Equal to dropout_gemm(dW, 1, X, D, p, seed, stream,
/// transpose_a) then linear_dropout_relu_backward(G, s, D, W, relu ? &X : nullptr, p, seed,
/// stream). x_dropped: X holds the dropped input already (bias_relu_dropout; a MaxK-GCN layer's
/// mxm with an output dropout, cbsr.hpp), so dW = Xᵀ·D (dropout_gemm with p = 0), then the same
/// G: with relu the mask is X > 0 (no draws), without it the mask is drawn again (X's zeros need
/// not be dropped entries). Shapes DimensionMismatch, one float type InvalidValue, p in [0, 1).
void dense_layer_backward(DenseMatrix& dW, DenseMatrix& G, DenseVector* s, const DenseMatrix& X,
                          const DenseMatrix& D, const DenseMatrix& W, bool relu, bool x_dropped,
                          double p, std::uint64_t seed, std::uint64_t stream,
                          Context& ctx = default_context());

/// Softmax cross-entropy over the rows R = `rows` (int32 row indices of Z) of the logits Z
/// (n x C) with int32 `labels` (size n; read only at rows in R, each in [0, C)):
///   loss = (1/|R|) Σ_{r ∈ R} −log softmax(Z(r,:))[labels(r)]   written to out(slot);
///   G = ∂loss/∂Z: (softmax(Z(r,:)) − onehot(labels(r))) / |R| on rows r ∈ R, 0 on the others
/// (skipped when G is nullptr; else G has Z's shape and type). out has Z's type and slot <
/// out.size(). Rows in R must be distinct. A label out of range throws InvalidIndex when the
/// labels are on the host; on the device (no synchronisation) it makes the loss NaN.
void softmax_cross_entropy(DenseMatrix* G, DenseVector& out, Index slot, const DenseMatrix& Z,
                           const DenseVector& labels, const DenseVector& rows,
                           Context& ctx = default_context());

/// out(slot) = (1/|R|) · #{r ∈ R : argmax_j Z(r, j) == labels(r)} (ties: the lowest j), with R,
/// labels and out as in softmax_cross_entropy.
void accuracy(DenseVector& out, Index slot, const DenseMatrix& Z, const DenseVector& labels,
              const DenseVector& rows, Context& ctx = default_context());

/// Masked sigmoid cross-entropy of multi-task binary logits Z (n x T) against targets Y (n x T,
/// each 0, 1 or NaN = missing; torch's BCEWithLogitsLoss averaged over the present targets):
///   loss = (1/P) Σ_{Y(i,t) present} max(z,0) − z·y + log(1 + e^−|z|)   written to out(slot),
///   G = (σ(Z) − Y) / P where Y is present, 0 where missing (skipped when G is nullptr),
/// P the number of present targets (loss and G are 0 when P = 0). Y and G have Z's shape and
/// type; out has Z's type and slot < out.size() (InvalidIndex otherwise). Targets other than
/// 0, 1, NaN are not checked (they enter the formula as given).
void sigmoid_cross_entropy(DenseMatrix* G, DenseVector& out, Index slot, const DenseMatrix& Z,
                           const DenseMatrix& Y, Context& ctx = default_context());

/// Adam's settings (Kingma & Ba 2015); weight_decay is L2 added to the gradient (g + wd·w) as in
/// torch.optim.Adam and Kipf & Welling's GCN, not AdamW's decoupled decay.
struct AdamOptions {
  double lr = 0.01;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
};

/// One Adam step t (1-based) on parameters W with gradient G and moments m, v (same shape and
/// type as W; zero before step 1), in place:
///   g = G + wd·W;  m = β1·m + (1−β1)·g;  v = β2·v + (1−β2)·g²;
///   W -= lr · (m / (1−β1^t)) / (sqrt(v / (1−β2^t)) + eps).
void adam_step(DenseMatrix& W, const DenseMatrix& G, DenseMatrix& m, DenseMatrix& v,
               const AdamOptions& o, Index t, Context& ctx = default_context());
/// The same for a parameter vector (a bias).
void adam_step(DenseVector& w, const DenseVector& g, DenseVector& m, DenseVector& v,
               const AdamOptions& o, Index t, Context& ctx = default_context());

}  // namespace ringblas::nn
