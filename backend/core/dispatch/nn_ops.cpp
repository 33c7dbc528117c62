// Public dense nn operations (include/ringblas/nn.hpp): validate, then run the operation's
// dispatch table (dispatch_tables_nn.cpp) through detail::execute. A loss with its gradient and
// Adam's parameters with their moments are outputs of several containers: the hooks below let
// execute move, copy and compare them (the verify backend compares every one).
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "backend/core/dispatch/compare.hpp"
#include "backend/core/dispatch/dispatch_tables.hpp"
#include "backend/core/dispatch/validate.hpp"
#include "backend/core/nn_counter_rng.hpp"
#include "ringblas/nn.hpp"

namespace ringblas {
namespace detail {
namespace {

// --- the hooks of execute() for the several-container outputs (nn_problems.hpp) -----------------

DenseMatrix host_of(const DenseMatrix& m, const Context& ctx) {
  return m.location() == Location::host ? m : m.to(Location::host, ctx);
}
DenseVector host_of(const DenseVector& v, const Context& ctx) {
  return v.location() == Location::host ? v : v.to(Location::host, ctx);
}

}  // namespace

void move_to_host(LossOut& o, const Context& ctx) {
  *o.out = host_of(*o.out, ctx);
  if (o.G) *o.G = host_of(*o.G, ctx);
}
void move_to_host(AdamOut& o, const Context& ctx) {
  *o.W = host_of(*o.W, ctx);
  *o.m = host_of(*o.m, ctx);
  *o.v = host_of(*o.v, ctx);
}
LossHost host_copy(const LossOut& o, const Context& ctx) {
  LossHost h{host_of(*o.out, ctx), std::nullopt};
  if (o.G) h.G = host_of(*o.G, ctx);
  return h;
}
AdamHost host_copy(const AdamOut& o, const Context& ctx) {
  return {host_of(*o.W, ctx), host_of(*o.m, ctx), host_of(*o.v, ctx)};
}
void move_to_host(GradientOut& o, const Context& ctx) {
  *o.G = host_of(*o.G, ctx);
  if (o.s) *o.s = host_of(*o.s, ctx);
}
GradientHost host_copy(const GradientOut& o, const Context& ctx) {
  GradientHost h{host_of(*o.G, ctx), std::nullopt};
  if (o.s) h.s = host_of(*o.s, ctx);
  return h;
}
GradientOut view_of(GradientHost& h) { return {&h.G, h.s ? &*h.s : nullptr}; }
std::optional<std::string> compare(const GradientHost& a, const GradientHost& b,
                                   const Tolerance& t) {
  if (auto d = compare(a.G, b.G, t)) return "the gradient " + *d;
  if (a.s)
    if (auto d = compare(*a.s, *b.s, t)) return "the column sums " + *d;
  return std::nullopt;
}
void move_to_host(LayerGradientOut& o, const Context& ctx) {
  *o.dW = host_of(*o.dW, ctx);
  *o.G = host_of(*o.G, ctx);
  if (o.s) *o.s = host_of(*o.s, ctx);
}
LayerGradientHost host_copy(const LayerGradientOut& o, const Context& ctx) {
  LayerGradientHost h{host_of(*o.dW, ctx), host_of(*o.G, ctx), std::nullopt};
  if (o.s) h.s = host_of(*o.s, ctx);
  return h;
}
LayerGradientOut view_of(LayerGradientHost& h) { return {&h.dW, &h.G, h.s ? &*h.s : nullptr}; }
std::optional<std::string> compare(const LayerGradientHost& a, const LayerGradientHost& b,
                                   const Tolerance& t) {
  if (auto d = compare(a.dW, b.dW, t)) return "dW " + *d;
  if (auto d = compare(a.G, b.G, t)) return "the gradient " + *d;
  if (a.s)
    if (auto d = compare(*a.s, *b.s, t)) return "the column sums " + *d;
  return std::nullopt;
}
LossOut view_of(LossHost& h) { return {&h.out, h.G ? &*h.G : nullptr}; }
AdamOut view_of(AdamHost& h) { return {&h.W, &h.m, &h.v}; }
std::optional<std::string> compare(const LossHost& a, const LossHost& b, const Tolerance& t) {
  if (auto d = compare(a.out, b.out, t)) return "the scalar output " + *d;
  if (a.G)
    if (auto d = compare(*a.G, *b.G, t)) return "the gradient " + *d;
  return std::nullopt;
}
std::optional<std::string> compare(const AdamHost& a, const AdamHost& b, const Tolerance& t) {
  if (auto d = compare(a.W, b.W, t)) return "W " + *d;
  if (auto d = compare(a.m, b.m, t)) return "m " + *d;
  if (auto d = compare(a.v, b.v, t)) return "v " + *d;
  return std::nullopt;
}

namespace {

// --- validation ---------------------------------------------------------------------------------

void require_float(const char* op, Type t, const char* what) {
  if (t != Type::fp32 && t != Type::fp64)
    throw InvalidValue(std::string(op) + ": " + what + " must be fp32 or fp64, not " +
                       std::string(type_name(t)));
}
void require_same_type(const char* op, Type want, Type got, const char* what) {
  if (want != got)
    throw InvalidValue(std::string(op) + ": " + what + " is " + std::string(type_name(got)) +
                       " but the operation computes in " + std::string(type_name(want)));
}
void require_row_major(const char* op, const DenseMatrix& m, const char* what) {
  if (m.layout() != Layout::row_major)
    throw InvalidValue(std::string(op) + ": " + what + " must be row_major");
}
void require_shape(const char* op, const DenseMatrix& m, Index r, Index c, const char* what) {
  require(m.nrows() == r && m.ncols() == c, op,
          std::string(what) + " is " + str({m.nrows(), m.ncols()}) + " but must be " + str({r, c}));
}
/// Checks rows (int32, each in [0, n), when on the host) and labels (int32, size n; each of
/// the rows' labels in [0, classes) when both are on the host).
void check_rows_labels(const char* op, const DenseVector& labels, const DenseVector& rows, Index n,
                       Index classes) {
  if (labels.type() != Type::int32 || rows.type() != Type::int32)
    throw InvalidValue(std::string(op) + ": labels and rows must be int32 (labels " +
                       std::string(type_name(labels.type())) + ", rows " +
                       std::string(type_name(rows.type())) + ")");
  require(labels.size() == n, op,
          "labels has size " + std::to_string(labels.size()) + " but Z has " + std::to_string(n) +
              " rows");
  if (rows.size() == 0) throw InvalidValue(std::string(op) + ": the row subset is empty");
  if (rows.location() != Location::host) return;
  const std::int32_t* r = rows.values().as<std::int32_t>();
  const std::int32_t* l =
      labels.location() == Location::host ? labels.values().as<std::int32_t>() : nullptr;
  for (Index k = 0; k < rows.size(); ++k) {
    if (r[k] < 0 || r[k] >= n)
      throw InvalidIndex(std::string(op) + ": rows(" + std::to_string(k) + ") = " +
                         std::to_string(r[k]) + " is out of range 0.." + std::to_string(n - 1));
    if (l && (l[r[k]] < 0 || l[r[k]] >= classes))
      throw InvalidIndex(std::string(op) + ": labels(" + std::to_string(r[k]) +
                         ") = " + std::to_string(l[r[k]]) + " is out of range 0.." +
                         std::to_string(classes - 1));
  }
}
/// v has one entry per column of a matrix with `cols` columns.
void require_size(const char* op, const DenseVector& v, Index cols, const char* what,
                  const char* of) {
  require(v.size() == cols, op,
          std::string(what) + " has size " + std::to_string(v.size()) + " but " + of + " has " +
              std::to_string(cols) + " columns");
}
void check_slot(const char* op, const DenseVector& out, Index slot, Type t) {
  require_same_type(op, t, out.type(), "out");
  if (slot < 0 || slot >= out.size())
    throw InvalidIndex(std::string(op) + ": slot " + std::to_string(slot) +
                       " is outside out (size " + std::to_string(out.size()) + ")");
}

}  // namespace
}  // namespace detail

namespace nn {

using detail::require;
using detail::str;

namespace {
/// gemm's and dropout_gemm's checks; returns the inner dimension.
Index check_gemm(const char* op, const DenseMatrix& C, const DenseMatrix& A, const DenseMatrix& B,
                 const Descriptor& d) {
  detail::require_float(op, C.type(), "C");
  detail::require_same_type(op, C.type(), A.type(), "A");
  detail::require_same_type(op, C.type(), B.type(), "B");
  detail::require_row_major(op, C, "C");
  detail::require_row_major(op, A, "A");
  detail::require_row_major(op, B, "B");
  if (d.replace || d.mask_complement || d.mask_structure)
    throw NotImplemented(std::string(op) +
                         ": a dense product takes no mask, so replace and mask flags do not apply");
  const detail::Dims a =
      d.transpose_a ? detail::Dims{A.ncols(), A.nrows()} : detail::Dims{A.nrows(), A.ncols()};
  const detail::Dims b =
      d.transpose_b ? detail::Dims{B.ncols(), B.nrows()} : detail::Dims{B.nrows(), B.ncols()};
  require(a.cols == b.rows, op, "op(A) is " + str(a) + " but op(B) is " + str(b));
  detail::require_shape(op, C, a.rows, b.cols, "C");
  return a.cols;
}
}  // namespace

void gemm(DenseMatrix& C, double alpha, const DenseMatrix& A, const DenseMatrix& B, double beta,
          const Descriptor& d, Context& ctx) {
  const Index inner = check_gemm("gemm", C, A, B, d);
  detail::execute(detail::gemm_table(), detail::GemmProblem{alpha, A, B, beta, d}, d.variant, C,
                  ctx, detail::Tolerance::for_type(C.type(), double(inner)));
}

void dropout_gemm(DenseMatrix& C, double alpha, const DenseMatrix& A, const DenseMatrix& B,
                  double p, std::uint64_t seed, std::uint64_t stream, const Descriptor& d,
                  Context& ctx) {
  const Index inner = check_gemm("dropout_gemm", C, A, B, d);
  detail::require_p("dropout_gemm", p);
  detail::execute(detail::dropout_gemm_table(),
                  detail::DropoutGemmProblem{alpha, A, B, p, seed, stream, d}, d.variant, C, ctx,
                  detail::Tolerance::for_type(C.type(), double(inner)));
}

void column_sums(DenseVector& s, const DenseMatrix& A, Context& ctx) {
  const char* op = "column_sums";
  detail::require_float(op, A.type(), "A");
  detail::require_same_type(op, A.type(), s.type(), "s");
  detail::require_row_major(op, A, "A");
  detail::require_size(op, s, A.ncols(), "s", "A");
  detail::execute(detail::column_sums_table(), detail::ColumnSumsProblem{A}, Variant::automatic, s,
                  ctx, detail::Tolerance::for_type(A.type(), double(A.nrows())));
}

void relu_backward(DenseMatrix& G, const DenseMatrix& Y, Context& ctx) {
  const char* op = "relu_backward";
  detail::require_float(op, G.type(), "G");
  detail::require_same_type(op, G.type(), Y.type(), "Y");
  detail::require_row_major(op, G, "G");
  detail::require_row_major(op, Y, "Y");
  detail::require_shape(op, Y, G.nrows(), G.ncols(), "Y");
  detail::execute(detail::relu_backward_table(), detail::ReluBackwardProblem{Y}, Variant::automatic,
                  G, ctx, detail::Tolerance::for_type(G.type(), 1));
}

float dropout_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return detail::counter_uniform(seed, stream, index);
}

void dropout(DenseMatrix& X, double p, std::uint64_t seed, std::uint64_t stream, Context& ctx) {
  const char* op = "dropout";
  detail::require_float(op, X.type(), "X");
  detail::require_row_major(op, X, "X");
  detail::require_p("dropout", p);
  if (p == 0.0) return;
  detail::execute(detail::dropout_table(), detail::DropoutProblem{nullptr, p, seed, stream},
                  Variant::automatic, X, ctx, detail::Tolerance::for_type(X.type(), 1));
}

void dropout(DenseMatrix& Y, const DenseMatrix& X, double p, std::uint64_t seed,
             std::uint64_t stream, Context& ctx) {
  const char* op = "dropout";
  detail::require_float(op, X.type(), "X");
  detail::require_same_type(op, X.type(), Y.type(), "Y");
  detail::require_row_major(op, X, "X");
  detail::require_row_major(op, Y, "Y");
  detail::require_shape(op, Y, X.nrows(), X.ncols(), "Y");
  if (&Y == &X) return dropout(Y, p, seed, stream, ctx);
  detail::require_p("dropout", p);
  detail::execute(detail::dropout_table(), detail::DropoutProblem{&X, p, seed, stream},
                  Variant::automatic, Y, ctx, detail::Tolerance::for_type(X.type(), 1));
}

void bias_relu_dropout(DenseMatrix& H, const DenseVector& b, double p, std::uint64_t seed,
                       std::uint64_t stream, Context& ctx) {
  const char* op = "bias_relu_dropout";
  detail::require_float(op, H.type(), "H");
  detail::require_same_type(op, H.type(), b.type(), "b");
  detail::require_row_major(op, H, "H");
  detail::require_size(op, b, H.ncols(), "b", "H");
  detail::require_p("bias_relu_dropout", p);
  detail::execute(detail::bias_relu_dropout_table(),
                  detail::BiasReluDropoutProblem{b, p, seed, stream}, Variant::automatic, H, ctx,
                  detail::Tolerance::for_type(H.type(), 1));
}

void linear_dropout_relu_backward(DenseMatrix& G, DenseVector* s, const DenseMatrix& D,
                                  const DenseMatrix& W, const DenseMatrix* Y, double p,
                                  std::uint64_t seed, std::uint64_t stream, Context& ctx) {
  const char* op = "linear_dropout_relu_backward";
  detail::require_float(op, G.type(), "G");
  detail::require_same_type(op, G.type(), D.type(), "D");
  detail::require_same_type(op, G.type(), W.type(), "W");
  detail::require_row_major(op, G, "G");
  detail::require_row_major(op, D, "D");
  detail::require_row_major(op, W, "W");
  require(D.ncols() == W.ncols(), op,
          "D is " + str({D.nrows(), D.ncols()}) + " but W is " + str({W.nrows(), W.ncols()}) +
              " (D·Wᵀ needs equal column counts)");
  detail::require_shape(op, G, D.nrows(), W.nrows(), "G");
  if (Y) {
    detail::require_same_type(op, G.type(), Y->type(), "Y");
    detail::require_row_major(op, *Y, "Y");
    detail::require_shape(op, *Y, G.nrows(), G.ncols(), "Y");
  }
  if (s) {
    detail::require_same_type(op, G.type(), s->type(), "s");
    detail::require_size(op, *s, G.ncols(), "s", "G");
  }
  detail::require_p("linear_dropout_relu_backward", p);
  detail::GradientOut o{&G, s};
  detail::execute(detail::linear_dropout_relu_backward_table(),
                  detail::LinearBackwardProblem{D, W, Y, p, seed, stream}, Variant::automatic, o,
                  ctx,
                  detail::Tolerance::for_type(G.type(), double(D.ncols()) * double(D.nrows())));
}

void dense_layer_backward(DenseMatrix& dW, DenseMatrix& G, DenseVector* s, const DenseMatrix& X,
                          const DenseMatrix& D, const DenseMatrix& W, bool relu, bool x_dropped,
                          double p, std::uint64_t seed, std::uint64_t stream, Context& ctx) {
  const char* op = "dense_layer_backward";
  detail::require_float(op, X.type(), "X");
  const DenseMatrix* parts[] = {&dW, &G, &D, &W};
  const char* names[] = {"dW", "G", "D", "W"};
  for (int q = 0; q < 4; ++q) {
    detail::require_same_type(op, X.type(), parts[q]->type(), names[q]);
    detail::require_row_major(op, *parts[q], names[q]);
  }
  detail::require_row_major(op, X, "X");
  const Index n = X.nrows(), m = X.ncols(), k = D.ncols();
  require(D.nrows() == n, op,
          "X is " + str({n, m}) + " but D is " + str({D.nrows(), k}) + " (rows must agree)");
  detail::require_shape(op, W, m, k, "W");
  detail::require_shape(op, dW, m, k, "dW");
  detail::require_shape(op, G, n, m, "G");
  if (s) {
    detail::require_same_type(op, X.type(), s->type(), "s");
    detail::require_size(op, *s, m, "s", "X");
  }
  detail::require_p("dense_layer_backward", p);
  detail::LayerGradientOut o{&dW, &G, s};
  detail::execute(detail::dense_layer_backward_table(),
                  detail::LayerBackwardProblem{X, D, W, relu, x_dropped, p, seed, stream},
                  Variant::automatic, o, ctx,
                  detail::Tolerance::for_type(X.type(), double(n) * double(k)));
}

void softmax_cross_entropy(DenseMatrix* G, DenseVector& out, Index slot, const DenseMatrix& Z,
                           const DenseVector& labels, const DenseVector& rows, Context& ctx) {
  const char* op = "softmax_cross_entropy";
  detail::require_float(op, Z.type(), "Z");
  detail::require_row_major(op, Z, "Z");
  detail::check_slot(op, out, slot, Z.type());
  if (Z.ncols() == 0) throw InvalidValue("softmax_cross_entropy: Z has no columns (classes)");
  if (G) {
    detail::require_same_type(op, Z.type(), G->type(), "G");
    detail::require_row_major(op, *G, "G");
    detail::require_shape(op, *G, Z.nrows(), Z.ncols(), "G");
  }
  detail::check_rows_labels(op, labels, rows, Z.nrows(), Z.ncols());
  detail::LossOut o{&out, G};
  detail::execute(detail::softmax_cross_entropy_table(), detail::RowsProblem{slot, Z, labels, rows},
                  Variant::automatic, o, ctx,
                  detail::Tolerance::for_type(Z.type(), double(rows.size())));
}

void accuracy(DenseVector& out, Index slot, const DenseMatrix& Z, const DenseVector& labels,
              const DenseVector& rows, Context& ctx) {
  const char* op = "accuracy";
  detail::require_float(op, Z.type(), "Z");
  detail::require_row_major(op, Z, "Z");
  detail::check_slot(op, out, slot, Z.type());
  if (Z.ncols() == 0) throw InvalidValue("accuracy: Z has no columns (classes)");
  detail::check_rows_labels(op, labels, rows, Z.nrows(), Z.ncols());
  detail::LossOut o{&out, nullptr};
  detail::execute(detail::accuracy_table(), detail::RowsProblem{slot, Z, labels, rows},
                  Variant::automatic, o, ctx, detail::Tolerance::for_type(Z.type(), 1));
}

void adam_step(DenseMatrix& W, const DenseMatrix& G, DenseMatrix& m, DenseMatrix& v,
               const AdamOptions& o, Index t, Context& ctx) {
  const char* op = "adam_step";
  detail::require_float(op, W.type(), "W");
  const DenseMatrix* parts[] = {&G, &m, &v};
  const char* names[] = {"G", "m", "v"};
  for (int k = 0; k < 3; ++k) {
    detail::require_same_type(op, W.type(), parts[k]->type(), names[k]);
    detail::require_row_major(op, *parts[k], names[k]);
    detail::require_shape(op, *parts[k], W.nrows(), W.ncols(), names[k]);
  }
  detail::require_row_major(op, W, "W");
  if (t < 1) throw InvalidValue("adam_step: step t = " + std::to_string(t) + " must be >= 1");
  if (!(o.lr >= 0) || !(o.beta1 >= 0 && o.beta1 < 1) || !(o.beta2 >= 0 && o.beta2 < 1) ||
      !(o.eps > 0) || !(o.weight_decay >= 0))
    throw InvalidValue(
        "adam_step: need lr >= 0, beta1 and beta2 in [0, 1), eps > 0, weight_decay >= 0");
  detail::AdamOut out{&W, &m, &v};
  detail::execute(detail::adam_step_table(), detail::AdamProblem{G, o, t}, Variant::automatic, out,
                  ctx, detail::Tolerance::for_type(W.type(), 1));
}

void adam_step(DenseVector& w, const DenseVector& g, DenseVector& m, DenseVector& v,
               const AdamOptions& o, Index t, Context& ctx) {
  // The vectors' buffers are lent to 1 x n matrices for the step and handed back after it, also
  // when the step throws (no copies: a bias lives on the device in training).
  const DenseVector* parts[] = {&g, &m, &v};
  const char* names[] = {"g", "m", "v"};
  for (int k = 0; k < 3; ++k)
    require(parts[k]->size() == w.size(), "adam_step",
            std::string(names[k]) + " has size " + std::to_string(parts[k]->size()) +
                " but w has " + std::to_string(w.size()));
  auto lend = [](DenseVector& x) {
    return DenseMatrix::from_buffer(1, x.size(), x.type(), Layout::row_major,
                                    std::move(x.values()));
  };
  DenseVector& g_mut = const_cast<DenseVector&>(g);  // lent and returned unchanged
  DenseMatrix W = lend(w), G = lend(g_mut), M = lend(m), V = lend(v);
  struct Return {
    DenseVector* vec[4];
    DenseMatrix* mat[4];
    ~Return() {
      for (int k = 0; k < 4; ++k) vec[k]->values() = std::move(mat[k]->values());
    }
  } give_back{{&w, &g_mut, &m, &v}, {&W, &G, &M, &V}};
  adam_step(W, G, M, V, o, t, ctx);
}

void sigmoid_cross_entropy(DenseMatrix* G, DenseVector& out, Index slot, const DenseMatrix& Z,
                           const DenseMatrix& Y, Context& ctx) {
  const char* op = "sigmoid_cross_entropy";
  detail::require_float(op, Z.type(), "Z");
  detail::require_row_major(op, Z, "Z");
  detail::check_slot(op, out, slot, Z.type());
  detail::require_same_type(op, Z.type(), Y.type(), "Y");
  detail::require_row_major(op, Y, "Y");
  detail::require_shape(op, Y, Z.nrows(), Z.ncols(), "Y");
  if (G) {
    detail::require_same_type(op, Z.type(), G->type(), "G");
    detail::require_row_major(op, *G, "G");
    detail::require_shape(op, *G, Z.nrows(), Z.ncols(), "G");
  }
  detail::LossOut o{&out, G};
  detail::execute(detail::sigmoid_cross_entropy_table(), detail::SigmoidLossProblem{slot, Z, Y},
                  Variant::automatic, o, ctx,
                  detail::Tolerance::for_type(Z.type(), double(Z.nrows() * Z.ncols())));
}

}  // namespace nn
}  // namespace ringblas
