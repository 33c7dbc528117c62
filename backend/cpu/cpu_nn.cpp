// cpu executor: the dense nn operations (include/ringblas/nn.hpp) on host row-major arrays:
// gemm through OpenBLAS (cblas_sgemm / cblas_dgemm), the element-wise ones as plain loops in a
// fixed order (so that a training run is deterministic for a seed). Arguments were validated by
// backend/core/dispatch/nn_ops.cpp; every operand is on the host.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "backend/core/nn_counter_rng.hpp"
#include "backend/cpu/cpu_backend.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cpu {
namespace {

/// Calls f(T{}) for fp32 or fp64 (validation has rejected the other types).
template <class F>
void visit_float(Type t, F&& f) {
  if (t == Type::fp32)
    f(float{});
  else
    f(double{});
}

template <class T>
T* data(DenseMatrix& m) {
  return m.values().as<T>();
}
template <class T>
const T* data(const DenseMatrix& m) {
  return m.values().as<T>();
}

/// Calls f(row i, its logits, its label) for every row i of the subset, in the subset's order
/// (softmax cross-entropy and accuracy read the same things).
template <class T, class F>
void for_each_row(const DenseMatrix& Z, const DenseVector& labels, const DenseVector& rows, F&& f) {
  const Index c = Z.ncols();
  const T* z = data<T>(Z);
  const std::int32_t* lab = labels.values().as<std::int32_t>();
  const std::int32_t* r = rows.values().as<std::int32_t>();
  for (Index k = 0; k < rows.size(); ++k) f(Index(r[k]), z + Index(r[k]) * c, lab[r[k]]);
}

}  // namespace

void gemm(DenseMatrix& C, double alpha, const DenseMatrix& A, const DenseMatrix& B, double beta,
          const Descriptor& desc, Context&) {
  const Index m = C.nrows(), n = C.ncols();
  const Index k = desc.transpose_a ? A.nrows() : A.ncols();
  if (m == 0 || n == 0) return;
  const Index limit = std::numeric_limits<blasint>::max();
  if (m > limit || n > limit || k > limit || A.ncols() > limit || B.ncols() > limit)
    throw NotImplemented("cpu gemm: a dimension exceeds OpenBLAS's integer range");
  const CBLAS_TRANSPOSE ta = desc.transpose_a ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE tb = desc.transpose_b ? CblasTrans : CblasNoTrans;
  // BLAS reads C when beta != 0 only; beta == 0 must not let NaN in C through, which BLAS
  // implementations do not all promise, so C is cleared first.
  if (beta == 0.0)
    std::fill_n(static_cast<unsigned char*>(C.values().data()), C.values().size(), 0);
  // A k of 0 leaves C = beta·C, which BLAS does (lda must still be >= 1).
  const blasint lda = blasint(std::max<Index>(1, A.ncols()));
  const blasint ldb = blasint(std::max<Index>(1, B.ncols()));
  if (C.type() == Type::fp32)
    cblas_sgemm(CblasRowMajor, ta, tb, blasint(m), blasint(n), blasint(k), float(alpha),
                data<float>(A), lda, data<float>(B), ldb, float(beta), data<float>(C), blasint(n));
  else
    cblas_dgemm(CblasRowMajor, ta, tb, blasint(m), blasint(n), blasint(k), alpha, data<double>(A),
                lda, data<double>(B), ldb, beta, data<double>(C), blasint(n));
}

void dropout_gemm(DenseMatrix& C, double alpha, const DenseMatrix& A, const DenseMatrix& B,
                  double p, std::uint64_t seed, std::uint64_t stream, const Descriptor& desc,
                  Context& ctx) {
  if (p == 0.0) return gemm(C, alpha, A, B, 0.0, desc, ctx);
  DenseMatrix dropped(A.nrows(), A.ncols(), A.type());
  dropout(dropped, &A, p, seed, stream, ctx);
  gemm(C, alpha, dropped, B, 0.0, desc, ctx);
}

void column_sums(DenseVector& s, const DenseMatrix& A, Context&) {
  visit_float(A.type(), [&](auto z) {
    using T = decltype(z);
    const T* a = data<T>(A);
    T* out = s.values().as<T>();
    const Index n = A.ncols();
    std::fill_n(out, n, T(0));
    for (Index i = 0; i < A.nrows(); ++i)
      for (Index j = 0; j < n; ++j) out[j] += a[i * n + j];
  });
}

void relu_backward(DenseMatrix& G, const DenseMatrix& Y, Context&) {
  visit_float(G.type(), [&](auto z) {
    using T = decltype(z);
    T* g = data<T>(G);
    const T* y = data<T>(Y);
    const Index total = G.nrows() * G.ncols();
    for (Index e = 0; e < total; ++e)
      if (!(y[e] > T(0))) g[e] = T(0);
  });
}

void dropout(DenseMatrix& Y, const DenseMatrix* X, double p, std::uint64_t seed,
             std::uint64_t stream, Context&) {
  visit_float(Y.type(), [&](auto z) {
    using T = decltype(z);
    T* y = data<T>(Y);
    const T* x = X ? data<T>(*X) : y;
    const float threshold = float(p);
    const T scale = T(1.0 / (1.0 - p));
    const Index total = Y.nrows() * Y.ncols();
    for (Index e = 0; e < total; ++e)
      y[e] = detail::counter_uniform(seed, stream, std::uint64_t(e)) >= threshold ? x[e] * scale
                                                                                  : T(0);
  });
}

// The two fused passes are, on the cpu, the unfused sequence they stand for (nn.hpp): one
// definition of each step, so that the cpu path is the reference for the cuda kernels.
void bias_relu_dropout(DenseMatrix& H, const DenseVector& b, double p, std::uint64_t seed,
                       std::uint64_t stream, Context& ctx) {
  visit_float(H.type(), [&](auto z) {
    using T = decltype(z);
    T* h = data<T>(H);
    const T* bias = b.values().as<T>();
    const Index c = H.ncols();
    for (Index i = 0; i < H.nrows(); ++i)
      for (Index j = 0; j < c; ++j) h[i * c + j] = std::max(h[i * c + j] + bias[j], T(0));
  });
  if (p > 0) dropout(H, nullptr, p, seed, stream, ctx);
}

void linear_dropout_relu_backward(DenseMatrix& G, DenseVector* s, const DenseMatrix& D,
                                  const DenseMatrix& W, const DenseMatrix* Y, double p,
                                  std::uint64_t seed, std::uint64_t stream, Context& ctx) {
  Descriptor tb;
  tb.transpose_b = true;
  gemm(G, 1.0, D, W, 0.0, tb, ctx);
  if (p > 0) dropout(G, nullptr, p, seed, stream, ctx);
  if (Y) relu_backward(G, *Y, ctx);
  if (s) column_sums(*s, G, ctx);
}

void dense_layer_backward(DenseMatrix& dW, DenseMatrix& G, DenseVector* s, const DenseMatrix& X,
                          const DenseMatrix& D, const DenseMatrix& W, bool relu, bool x_dropped,
                          double p, std::uint64_t seed, std::uint64_t stream, Context& ctx) {
  Descriptor ta;
  ta.transpose_a = true;
  dropout_gemm(dW, 1.0, X, D, x_dropped ? 0.0 : p, seed, stream, ta, ctx);
  linear_dropout_relu_backward(G, s, D, W, relu ? &X : nullptr, p, seed, stream, ctx);
}

void softmax_cross_entropy(DenseMatrix* G, DenseVector& out, Index slot, const DenseMatrix& Z,
                           const DenseVector& labels, const DenseVector& rows, Context&) {
  visit_float(Z.type(), [&](auto zero) {
    using T = decltype(zero);
    const Index c = Z.ncols();
    T* g = G ? data<T>(*G) : nullptr;
    if (g) std::fill_n(g, Z.nrows() * c, T(0));
    const T inv = T(1) / T(rows.size());
    double loss = 0;  // summed in double: the order is fixed, the rounding small
    for_each_row<T>(Z, labels, rows, [&](Index i, const T* zi, std::int32_t label) {
      const T mx = *std::max_element(zi, zi + c);
      T sum = 0;
      for (Index j = 0; j < c; ++j) sum += std::exp(zi[j] - mx);
      const T log_sum = std::log(sum);
      loss += double(log_sum - (zi[label] - mx));
      if (g) {
        T* gi = g + i * c;
        for (Index j = 0; j < c; ++j) gi[j] = std::exp(zi[j] - mx - log_sum) * inv;
        gi[label] -= inv;
      }
    });
    out.values().as<T>()[slot] = T(loss / double(rows.size()));
  });
}

void accuracy(DenseVector& out, Index slot, const DenseMatrix& Z, const DenseVector& labels,
              const DenseVector& rows, Context&) {
  visit_float(Z.type(), [&](auto zero) {
    using T = decltype(zero);
    const Index c = Z.ncols();
    Index correct = 0;
    for_each_row<T>(Z, labels, rows, [&](Index, const T* zi, std::int32_t label) {
      correct += std::max_element(zi, zi + c) - zi == label;  // first maximum: the lowest j
    });
    out.values().as<T>()[slot] = T(double(correct) / double(rows.size()));
  });
}

void adam_step(DenseMatrix& W, const DenseMatrix& G, DenseMatrix& m, DenseMatrix& v,
               const nn::AdamOptions& o, Index t, Context&) {
  visit_float(W.type(), [&](auto zero) {
    using T = decltype(zero);
    T* w = data<T>(W);
    const T* g = data<T>(G);
    T* mm = data<T>(m);
    T* vv = data<T>(v);
    // The scalars are formed in double and rounded once, as the cuda launcher passes them.
    const T b1 = T(o.beta1), b2 = T(o.beta2), wd = T(o.weight_decay), eps = T(o.eps);
    const T step = T(o.lr / (1.0 - std::pow(o.beta1, double(t))));
    const T bc2 = T(1.0 / (1.0 - std::pow(o.beta2, double(t))));
    const Index total = W.nrows() * W.ncols();
    for (Index e = 0; e < total; ++e) {
      const T ge = g[e] + wd * w[e];
      mm[e] = b1 * mm[e] + (T(1) - b1) * ge;
      vv[e] = b2 * vv[e] + (T(1) - b2) * ge * ge;
      w[e] -= step * mm[e] / (std::sqrt(vv[e] * bc2) + eps);
    }
  });
}

void sigmoid_cross_entropy(DenseMatrix* G, DenseVector& out, Index slot, const DenseMatrix& Z,
                           const DenseMatrix& Y, Context&) {
  visit_float(Z.type(), [&](auto zero) {
    using T = decltype(zero);
    const Index n = Z.nrows() * Z.ncols();
    const T* z = data<T>(Z);
    const T* y = data<T>(Y);
    Index present = 0;
    double loss = 0;  // summed in double, in element order
    for (Index e = 0; e < n; ++e) {
      if (std::isnan(y[e])) continue;
      ++present;
      loss += double(std::max(z[e], T(0)) - z[e] * y[e] + std::log1p(std::exp(-std::abs(z[e]))));
    }
    const T inv = present ? T(1) / T(present) : T(0);
    if (G) {
      T* g = data<T>(*G);
      for (Index e = 0; e < n; ++e) {
        // σ(z) without overflow for large |z|.
        const T s =
            z[e] >= 0 ? T(1) / (T(1) + std::exp(-z[e])) : std::exp(z[e]) / (T(1) + std::exp(z[e]));
        g[e] = std::isnan(y[e]) ? T(0) : (s - y[e]) * inv;
      }
    }
    out.values().as<T>()[slot] = present ? T(loss / double(present)) : T(0);
  });
}

}  // namespace ringblas::cpu
