// The rows of the dense nn operations' dispatch tables (include/ringblas/nn.hpp): gemm on the
// skinny kernels (dense_nn) or cuBLAS (cublas) or OpenBLAS (host_dense), the other operations on
// the dense_nn kernels or host loops (host_dense). The cuda rows answer through
// cuda::can_implement_gemm / can_implement_dense_nn.
#include "backend/core/dispatch/dispatch_rows.hpp"
#include "backend/cpu/cpu_backend.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/dense_nn/skinny_gemm.hpp"

namespace ringblas::detail {
using namespace rows;

namespace {
/// The skinny kernels' cost against cuBLAS's 1: measured by bench_gcn on an H100 (n = 1M,
/// 256 x 16): TN 0.49 ms against 0.57 (with dropout 0.80 against 1.30), NN 0.66 against 0.53
/// (with dropout 2.24 against 1.29), so cuBLAS keeps the untransposed product.
double skinny_cost(const Descriptor& d) { return d.transpose_a ? 0.5 : 2.0; }
}  // namespace

const Table<GemmProblem, DenseMatrix>& gemm_table() {
  using P = GemmProblem;
  static const Table<P, DenseMatrix> t{
      "gemm",
      {
          // The skinny kernels where they apply (an operand of <= 32 columns), ahead of cuBLAS
          // for the transposed product only (skinny_cost).
          {Variant::dense_nn, kCuda,
           [](const P& p, const DenseMatrix& c) {
             return cuda::dense_nn::can_implement_skinny_gemm(c, p.A, p.B, p.beta, p.d);
           },
           [](const P& p, DenseMatrix& c, Context& x) {
             cuda::dense_nn::skinny_gemm(c, p.alpha, p.A, p.B, 0.0, 0, 0, chosen(p.d), x);
           },
           [](const P& p, const DenseMatrix&) { return skinny_cost(p.d); }},
          {Variant::cublas, kCuda,
           [](const P& p, const DenseMatrix& c) { return cuda::can_implement_gemm(c, p.A, p.B); },
           [](const P& p, DenseMatrix& c, Context& x) {
             cuda::gemm(c, p.alpha, p.A, p.B, p.beta, chosen(p.d), x);
           },
           [](const P&, const DenseMatrix&) { return 1.0; }},
          {Variant::host_dense, kCpu, always<P, DenseMatrix>,
           [](const P& p, DenseMatrix& c, Context& x) {
             HostInputs h(x);
             cpu::gemm(c, p.alpha, h(p.A), h(p.B), p.beta, chosen(p.d), x);
           }},
      }};
  return t;
}

const Table<DropoutGemmProblem, DenseMatrix>& dropout_gemm_table() {
  using P = DropoutGemmProblem;
  static const Table<P, DenseMatrix> t{
      "dropout_gemm",
      {
          {Variant::dense_nn, kCuda,
           [](const P& p, const DenseMatrix& c) {
             return cuda::dense_nn::can_implement_skinny_gemm(c, p.A, p.B, 0.0, p.d);
           },
           [](const P& p, DenseMatrix& c, Context& x) {
             cuda::dense_nn::skinny_gemm(c, p.alpha, p.A, p.B, p.p, p.seed, p.stream, chosen(p.d),
                                         x);
           },
           [](const P& p, const DenseMatrix&) { return skinny_cost(p.d); }},
          // Otherwise the dropped A written out (p > 0), then cuBLAS.
          {Variant::cublas, kCuda,
           [](const P& p, const DenseMatrix& c) { return cuda::can_implement_gemm(c, p.A, p.B); },
           [](const P& p, DenseMatrix& c, Context& x) {
             cuda::dropout_gemm(c, p.alpha, p.A, p.B, p.p, p.seed, p.stream, chosen(p.d), x);
           },
           [](const P&, const DenseMatrix&) { return 1.0; }},
          {Variant::host_dense, kCpu, always<P, DenseMatrix>,
           [](const P& p, DenseMatrix& c, Context& x) {
             HostInputs h(x);
             cpu::dropout_gemm(c, p.alpha, h(p.A), h(p.B), p.p, p.seed, p.stream, chosen(p.d), x);
           }},
      }};
  return t;
}

const Table<ColumnSumsProblem, DenseVector>& column_sums_table() {
  using P = ColumnSumsProblem;
  static const Table<P, DenseVector> t{
      "column_sums",
      {
          {Variant::dense_nn, kCuda,
           [](const P& p, const DenseVector&) { return cuda::can_implement_dense_nn(p.A.type()); },
           [](const P& p, DenseVector& s, Context& x) { cuda::column_sums(s, p.A, x); }},
          {Variant::host_dense, kCpu, always<P, DenseVector>,
           [](const P& p, DenseVector& s, Context& x) {
             HostInputs h(x);
             cpu::column_sums(s, h(p.A), x);
           }},
      }};
  return t;
}

const Table<ReluBackwardProblem, DenseMatrix>& relu_backward_table() {
  using P = ReluBackwardProblem;
  static const Table<P, DenseMatrix> t{
      "relu_backward",
      {
          {Variant::dense_nn, kCuda,
           [](const P& p, const DenseMatrix&) { return cuda::can_implement_dense_nn(p.Y.type()); },
           [](const P& p, DenseMatrix& g, Context& x) { cuda::relu_backward(g, p.Y, x); }},
          {Variant::host_dense, kCpu, always<P, DenseMatrix>,
           [](const P& p, DenseMatrix& g, Context& x) {
             HostInputs h(x);
             cpu::relu_backward(g, h(p.Y), x);
           }},
      }};
  return t;
}

const Table<DropoutProblem, DenseMatrix>& dropout_table() {
  using P = DropoutProblem;
  static const Table<P, DenseMatrix> t{
      "dropout",
      {
          {Variant::dense_nn, kCuda,
           [](const P&, const DenseMatrix& m) { return cuda::can_implement_dense_nn(m.type()); },
           [](const P& p, DenseMatrix& m, Context& x) {
             cuda::dropout(m, p.X, p.p, p.seed, p.stream, x);
           }},
          {Variant::host_dense, kCpu, always<P, DenseMatrix>,
           [](const P& p, DenseMatrix& m, Context& x) {
             HostInputs h(x);
             cpu::dropout(m, h(p.X), p.p, p.seed, p.stream, x);
           }},
      }};
  return t;
}

const Table<BiasReluDropoutProblem, DenseMatrix>& bias_relu_dropout_table() {
  using P = BiasReluDropoutProblem;
  static const Table<P, DenseMatrix> t{
      "bias_relu_dropout",
      {
          {Variant::dense_nn, kCuda,
           [](const P&, const DenseMatrix& h) { return cuda::can_implement_dense_nn(h.type()); },
           [](const P& p, DenseMatrix& h, Context& x) {
             cuda::bias_relu_dropout(h, p.b, p.p, p.seed, p.stream, x);
           }},
          {Variant::host_dense, kCpu, always<P, DenseMatrix>,
           [](const P& p, DenseMatrix& h, Context& x) {
             HostInputs in(x);
             cpu::bias_relu_dropout(h, in(p.b), p.p, p.seed, p.stream, x);
           }},
      }};
  return t;
}

const Table<LinearBackwardProblem, GradientOut>& linear_dropout_relu_backward_table() {
  using P = LinearBackwardProblem;
  static const Table<P, GradientOut> t{
      "linear_dropout_relu_backward",
      {
          {Variant::dense_nn, kCuda,
           [](const P& p, const GradientOut&) { return cuda::can_implement_dense_nn(p.D.type()); },
           [](const P& p, GradientOut& o, Context& x) {
             cuda::linear_dropout_relu_backward(*o.G, o.s, p.D, p.W, p.Y, p.p, p.seed, p.stream, x);
           }},
          {Variant::host_dense, kCpu, always<P, GradientOut>,
           [](const P& p, GradientOut& o, Context& x) {
             HostInputs h(x);
             cpu::linear_dropout_relu_backward(*o.G, o.s, h(p.D), h(p.W), h(p.Y), p.p, p.seed,
                                               p.stream, x);
           }},
      }};
  return t;
}

const Table<LayerBackwardProblem, LayerGradientOut>& dense_layer_backward_table() {
  using P = LayerBackwardProblem;
  static const Table<P, LayerGradientOut> t{
      "dense_layer_backward",
      {
          {Variant::dense_nn, kCuda,
           [](const P& p, const LayerGradientOut&) {
             return cuda::can_implement_dense_nn(p.X.type());
           },
           [](const P& p, LayerGradientOut& o, Context& x) {
             cuda::dense_layer_backward(*o.dW, *o.G, o.s, p.X, p.D, p.W, p.relu, p.x_dropped, p.p,
                                        p.seed, p.stream, x);
           }},
          {Variant::host_dense, kCpu, always<P, LayerGradientOut>,
           [](const P& p, LayerGradientOut& o, Context& x) {
             HostInputs h(x);
             cpu::dense_layer_backward(*o.dW, *o.G, o.s, h(p.X), h(p.D), h(p.W), p.relu,
                                       p.x_dropped, p.p, p.seed, p.stream, x);
           }},
      }};
  return t;
}

const Table<RowsProblem, LossOut>& softmax_cross_entropy_table() {
  using P = RowsProblem;
  static const Table<P, LossOut> t{
      "softmax_cross_entropy",
      {
          {Variant::dense_nn, kCuda,
           [](const P& p, const LossOut&) { return cuda::can_implement_dense_nn(p.Z.type()); },
           [](const P& p, LossOut& o, Context& x) {
             cuda::softmax_cross_entropy(o.G, *o.out, p.slot, p.Z, p.labels, p.rows, x);
           }},
          {Variant::host_dense, kCpu, always<P, LossOut>,
           [](const P& p, LossOut& o, Context& x) {
             HostInputs h(x);
             cpu::softmax_cross_entropy(o.G, *o.out, p.slot, h(p.Z), h(p.labels), h(p.rows), x);
           }},
      }};
  return t;
}

const Table<RowsProblem, LossOut>& accuracy_table() {
  using P = RowsProblem;
  static const Table<P, LossOut> t{
      "accuracy",
      {
          {Variant::dense_nn, kCuda,
           [](const P& p, const LossOut&) { return cuda::can_implement_dense_nn(p.Z.type()); },
           [](const P& p, LossOut& o, Context& x) {
             cuda::accuracy(*o.out, p.slot, p.Z, p.labels, p.rows, x);
           }},
          {Variant::host_dense, kCpu, always<P, LossOut>,
           [](const P& p, LossOut& o, Context& x) {
             HostInputs h(x);
             cpu::accuracy(*o.out, p.slot, h(p.Z), h(p.labels), h(p.rows), x);
           }},
      }};
  return t;
}

const Table<AdamProblem, AdamOut>& adam_step_table() {
  using P = AdamProblem;
  static const Table<P, AdamOut> t{
      "adam_step",
      {
          {Variant::dense_nn, kCuda,
           [](const P& p, const AdamOut&) { return cuda::can_implement_dense_nn(p.G.type()); },
           [](const P& p, AdamOut& o, Context& x) {
             cuda::adam_step(*o.W, p.G, *o.m, *o.v, p.o, p.t, x);
           }},
          {Variant::host_dense, kCpu, always<P, AdamOut>,
           [](const P& p, AdamOut& o, Context& x) {
             HostInputs h(x);
             cpu::adam_step(*o.W, h(p.G), *o.m, *o.v, p.o, p.t, x);
           }},
      }};
  return t;
}

const Table<SigmoidLossProblem, LossOut>& sigmoid_cross_entropy_table() {
  using P = SigmoidLossProblem;
  static const Table<P, LossOut> t{
      "sigmoid_cross_entropy",
      {
          {Variant::dense_nn, kCuda,
           [](const P& p, const LossOut&) { return cuda::can_implement_dense_nn(p.Z.type()); },
           [](const P& p, LossOut& o, Context& x) {
             cuda::sigmoid_cross_entropy(o.G, *o.out, p.slot, p.Z, p.Y, x);
           }},
          {Variant::host_dense, kCpu, always<P, LossOut>,
           [](const P& p, LossOut& o, Context& x) {
             HostInputs h(x);
             cpu::sigmoid_cross_entropy(o.G, *o.out, p.slot, h(p.Z), h(p.Y), x);
           }},
      }};
  return t;
}

}  // namespace ringblas::detail
