// The inputs and outputs of the dense nn operations (include/ringblas/nn.hpp) as values that their
// dispatch tables (dispatch_tables_nn.cpp) read, and the outputs that are more than one container
// (a loss with its gradient, Adam's parameters with their moments). Internal to backend/core.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "backend/core/dispatch/compare.hpp"
#include "ringblas/nn.hpp"

namespace ringblas::detail {

/// C = alpha·op(A)·op(B) + beta·C.
struct GemmProblem {
  double alpha;
  const DenseMatrix& A;
  const DenseMatrix& B;
  double beta;
  const Descriptor& d;
};

/// C = alpha·op(dropout(A))·op(B).
struct DropoutGemmProblem {
  double alpha;
  const DenseMatrix& A;
  const DenseMatrix& B;
  double p;
  std::uint64_t seed;
  std::uint64_t stream;
  const Descriptor& d;
};

/// s = Σ_i A(i, :).
struct ColumnSumsProblem {
  const DenseMatrix& A;
};

/// G ⊙= (Y > 0).
struct ReluBackwardProblem {
  const DenseMatrix& Y;
};

/// Y = dropout(X; p, seed, stream); X nullptr: in place (Y = dropout(Y)).
struct DropoutProblem {
  const DenseMatrix* X;
  double p;
  std::uint64_t seed;
  std::uint64_t stream;
};

/// H = dropout(relu(H + b)) in place.
struct BiasReluDropoutProblem {
  const DenseVector& b;
  double p;
  std::uint64_t seed;
  std::uint64_t stream;
};

/// G = dropout(D·Wᵀ) ⊙ (Y > 0), s = Σ_i G(i, :).
struct LinearBackwardProblem {
  const DenseMatrix& D;
  const DenseMatrix& W;
  const DenseMatrix* Y;
  double p;
  std::uint64_t seed;
  std::uint64_t stream;
};
/// What it writes: the gradient and the column sums (nullptr: none).
struct GradientOut {
  DenseMatrix* G;
  DenseVector* s;
};

/// dW = dropout(X)ᵀ·D, G = dropout(D·Wᵀ) ⊙ (X > 0 if relu), s = Σ_i G(i, :).
struct LayerBackwardProblem {
  const DenseMatrix& X;
  const DenseMatrix& D;
  const DenseMatrix& W;
  bool relu;
  bool x_dropped;
  double p;
  std::uint64_t seed;
  std::uint64_t stream;
};
/// What it writes.
struct LayerGradientOut {
  DenseMatrix* dW;
  DenseMatrix* G;
  DenseVector* s;
};

/// Loss or accuracy of logits Z over rows R with labels.
struct RowsProblem {
  Index slot;
  const DenseMatrix& Z;
  const DenseVector& labels;
  const DenseVector& rows;
};
/// What a loss writes: the scalar slot's vector and the gradient (nullptr: none).
struct LossOut {
  DenseVector* out;
  DenseMatrix* G;
};

/// Masked sigmoid cross-entropy of logits Z against targets Y (NaN = missing).
struct SigmoidLossProblem {
  Index slot;
  const DenseMatrix& Z;
  const DenseMatrix& Y;
};

/// One Adam step with gradient G.
struct AdamProblem {
  const DenseMatrix& G;
  const nn::AdamOptions& o;
  Index t;
};
/// What Adam updates.
struct AdamOut {
  DenseMatrix* W;
  DenseMatrix* m;
  DenseMatrix* v;
};

// Owning host copies of the two outputs above, and the hooks through which dispatch.hpp's
// execute() moves, copies and compares them (defined in nn_ops.cpp).
struct LossHost {
  DenseVector out;
  std::optional<DenseMatrix> G;
};
struct AdamHost {
  DenseMatrix W, m, v;
};
struct GradientHost {
  DenseMatrix G;
  std::optional<DenseVector> s;
};
struct LayerGradientHost {
  DenseMatrix dW, G;
  std::optional<DenseVector> s;
};
void move_to_host(LossOut& o, const Context& ctx);
void move_to_host(AdamOut& o, const Context& ctx);
void move_to_host(GradientOut& o, const Context& ctx);
void move_to_host(LayerGradientOut& o, const Context& ctx);
LossHost host_copy(const LossOut& o, const Context& ctx);
AdamHost host_copy(const AdamOut& o, const Context& ctx);
GradientHost host_copy(const GradientOut& o, const Context& ctx);
LayerGradientHost host_copy(const LayerGradientOut& o, const Context& ctx);
LossOut view_of(LossHost& h);
AdamOut view_of(AdamHost& h);
GradientOut view_of(GradientHost& h);
LayerGradientOut view_of(LayerGradientHost& h);
std::optional<std::string> compare(const LossHost& a, const LossHost& b, const Tolerance& tol);
std::optional<std::string> compare(const AdamHost& a, const AdamHost& b, const Tolerance& tol);
std::optional<std::string> compare(const GradientHost& a, const GradientHost& b,
                                   const Tolerance& tol);
std::optional<std::string> compare(const LayerGradientHost& a, const LayerGradientHost& b,
                                   const Tolerance& tol);

}  // namespace ringblas::detail
