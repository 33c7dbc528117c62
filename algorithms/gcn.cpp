// GCN node classification on the public API (see gcn.hpp for the method and its sources).
#include "algorithms/gcn.hpp"

#include <cmath>
#include <random>
#include <string>

#include "ringblas/error.hpp"
#include "ringblas/ops.hpp"
#include "ringblas/semiring.hpp"

namespace ringblas::gcn {
namespace {

Semiring plus_times(Type t) { return Semiring(MonoidCode::plus, BinaryOpCode::times, t); }

/// diag(v) as a sparse n x n matrix (absent entries of v stay absent), on the host.
Matrix diagonal(const Vector& v, Context& ctx) {
  const Vector h = v.location() == Location::host ? v : v.to(Location::host, ctx);
  const std::vector<Index> idx = h.indices_vector();
  return visit_type(h.type(), [&](auto z) -> Matrix {
    using T = decltype(z);
    if constexpr (std::is_floating_point_v<T>)
      return Matrix::from_triplets(h.size(), h.size(), idx, idx, h.values_vector<T>());
    else
      throw InvalidValue("gcn: diagonal of a non-float vector");
  });
}

/// Rows i of X scaled by s(i): diag(s) ⊕.⊗ X.
Matrix scale_rows(const Vector& s, const Matrix& X, Type t, Context& ctx) {
  Matrix out(X.nrows(), X.ncols(), t);
  mxm(out, nullptr, no_accum, plus_times(t), diagonal(s, ctx), X, {}, ctx);
  return out;
}

Matrix host(const Matrix& m, Context& ctx) {
  return m.location() == Location::host ? m : m.to(Location::host, ctx);
}

/// The n x n identity with values of type t, on the host.
Matrix identity(Index n, Type t) {
  std::vector<Index> diag(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) diag[std::size_t(i)] = i;
  if (t == Type::fp64)
    return Matrix::from_triplets(n, n, diag, diag, std::vector<double>(diag.size(), 1.0));
  return Matrix::from_triplets(n, n, diag, diag, std::vector<float>(diag.size(), 1.0f));
}

/// The a x b Glorot-uniform matrix (±sqrt(6 / (a + b))) drawn from g, row by row.
DenseMatrix glorot(Index a, Index b, Type t, std::mt19937_64& g) {
  const double r = std::sqrt(6.0 / double(a + b));
  std::uniform_real_distribution<double> u(-r, r);
  std::vector<double> v(std::size_t(a * b));
  for (double& x : v) x = u(g);
  if (t == Type::fp64) return DenseMatrix::from_values(a, b, v);
  return DenseMatrix::from_values(a, b, std::vector<float>(v.begin(), v.end()));
}

}  // namespace

bool runs_on_device(const Context& ctx) {
  return ctx.backend == Backend::cuda || (ctx.backend == Backend::automatic && cuda_available());
}

Matrix normalized_adjacency(const Matrix& A, Type t, Context& ctx) {
  const Index n = A.nrows();
  if (A.ncols() != n)
    throw DimensionMismatch("gcn: the adjacency must be square, it is " + std::to_string(n) + "x" +
                            std::to_string(A.ncols()));
  const Matrix a = host(A, ctx).cast(t);
  const Matrix I = identity(n, t);
  Matrix a_tilde(n, n, t);  // A + I, A's weight where it has a self-loop
  ewise_add(a_tilde, nullptr, no_accum, BinaryOpCode::first, a, I, {}, ctx);
  Vector deg(n, t), root(n, t), inv_root(n, t);
  reduce(deg, nullptr, no_accum, MonoidCode::plus, a_tilde, ReduceDim::rows, {}, ctx);
  apply(root, nullptr, no_accum, UnaryOpCode::sqrt, deg, {}, ctx);
  apply(inv_root, nullptr, no_accum, UnaryOpCode::minv, root, {}, ctx);
  const Matrix d = diagonal(inv_root, ctx);
  Matrix left(n, n, t), out(n, n, t);
  mxm(left, nullptr, no_accum, plus_times(t), d, a_tilde, {}, ctx);
  mxm(out, nullptr, no_accum, plus_times(t), left, d, {}, ctx);
  return out;
}

Matrix row_normalize(const Matrix& X, Type t, Context& ctx) {
  const Matrix x = host(X, ctx).cast(t);
  Vector sum(x.nrows(), t), inv(x.nrows(), t);
  reduce(sum, nullptr, no_accum, MonoidCode::plus, x, ReduceDim::rows, {},
         ctx);  // empty rows: absent
  apply(inv, nullptr, no_accum, UnaryOpCode::minv, sum, {}, ctx);
  return scale_rows(inv, x, t, ctx);
}

Features make_features(const Matrix& X, Type t, Context& ctx, std::size_t dense_limit_bytes) {
  Features f;
  Matrix norm = host(row_normalize(X, t, ctx), ctx);
  const std::size_t bytes = std::size_t(norm.nrows()) * std::size_t(norm.ncols()) * type_size(t);
  if (bytes > dense_limit_bytes) {
    f.sparse = true;
    f.matrix = std::move(norm);
    return f;
  }
  f.dense = DenseMatrix(norm.nrows(), norm.ncols(), t);
  const std::vector<Index> rp = norm.row_ptr_vector(), ci = norm.col_idx_vector();
  visit_type(t, [&](auto z) {
    using T = decltype(z);
    if constexpr (std::is_floating_point_v<T>) {
      const std::vector<T> v = norm.values_vector<T>();
      T* d = f.dense.values().as<T>();
      for (Index i = 0; i < norm.nrows(); ++i)
        for (Index k = rp[std::size_t(i)]; k < rp[std::size_t(i + 1)]; ++k)
          d[i * norm.ncols() + ci[std::size_t(k)]] = v[std::size_t(k)];
    }
  });
  return f;
}

Features identity_features(Index n, Type t, Context&) {
  Features f;
  f.sparse = true;
  f.matrix = identity(n, t);
  return f;
}

// --- Model ------------------------------------------------------------------------------------

DenseMatrix Model::place(DenseMatrix m) const {
  return runs_on_device(ctx_) ? m.to(Location::device, ctx_) : m;
}
DenseVector Model::place(DenseVector v) const {
  return runs_on_device(ctx_) ? v.to(Location::device, ctx_) : v;
}

std::uint64_t Model::stream(Index epoch, Index layer) const {
  return std::uint64_t(epoch) * std::uint64_t(layers() + 1) + std::uint64_t(layer);
}

Model::Model(const Matrix& a_hat, const Features& x, Index classes, const Options& options,
             Context& ctx)
    : options_(options), ctx_(ctx), x_(x) {
  const Type t = options.type;
  if (options.maxk < 0) throw InvalidValue("gcn: maxk must be >= 0");
  if (options.maxk > 0 && options.layers < 2)
    throw InvalidValue("gcn: --maxk replaces the hidden layers' ReLU, but 1 layer has none");
  if (options.maxk > 0 && options.layers > 1) {
    if (t != Type::fp32)
      throw NotImplemented("gcn: --maxk: the MaxK layers compute in fp32 only, not " +
                           std::string(type_name(t)));
    if (options.maxk > options.hidden)
      throw InvalidValue("gcn: --maxk " + std::to_string(options.maxk) +
                         " keeps more entries than the hidden size " +
                         std::to_string(options.hidden));
  }
  if (t != Type::fp32 && t != Type::fp64)
    throw InvalidValue("gcn: type must be fp32 or fp64, not " + std::string(type_name(t)));
  if (options.layers < 1) throw InvalidValue("gcn: layers must be >= 1");
  if (options.hidden < 1) throw InvalidValue("gcn: hidden must be >= 1");
  if (!(options.dropout >= 0 && options.dropout < 1))
    throw InvalidValue("gcn: dropout " + std::to_string(options.dropout) + " is outside [0, 1)");
  if (classes < 1) throw InvalidValue("gcn: classes must be >= 1");
  const Index n = a_hat.nrows();
  if (a_hat.ncols() != n || x.rows() != n)
    throw DimensionMismatch("gcn: Â is " + std::to_string(n) + "x" + std::to_string(a_hat.ncols()) +
                            " but the features have " + std::to_string(x.rows()) + " rows");
  if (a_hat.type() != t) throw InvalidValue("gcn: Â must have the model's type");

  // Â on the host with 32-bit indices where they fit (the SpMM kernels' preference); Âᵀ is
  // kept only when Â is not symmetric (the backward aggregation multiplies by Âᵀ).
  Matrix a = host(a_hat, ctx);
  if (a.nnz() < (Index{1} << 31) && n < (Index{1} << 31)) a = a.with_index_type(IndexType::i32);
  Matrix at(n, n, t, a.index_type());
  transpose(at, nullptr, no_accum, a, {}, ctx);
  at = host(at, ctx);
  symmetric_ = at.row_ptr_vector() == a.row_ptr_vector() &&
               at.col_idx_vector() == a.col_idx_vector() && visit_type(t, [&](auto z) {
                 using T = decltype(z);
                 if constexpr (std::is_floating_point_v<T>)
                   return at.values_vector<T>() == a.values_vector<T>();
                 else
                   return false;
               });
  const bool dev = runs_on_device(ctx);
  a_hat_ = dev ? a.to(Location::device, ctx) : a;
  if (!symmetric_) a_hat_t_ = dev ? at.to(Location::device, ctx) : at;

  if (x_.sparse) {
    Matrix xs = host(x_.matrix, ctx).cast(t);
    if (xs.nnz() < (Index{1} << 31)) xs = xs.with_index_type(IndexType::i32);
    x_.matrix = dev ? xs.to(Location::device, ctx) : xs;
    x_drop_sparse_ = x_.matrix;
  } else {
    if (x_.dense.type() != t || x_.dense.layout() != Layout::row_major)
      throw InvalidValue("gcn: dense features must be row-major with the model's type");
    if (x_.dense.location() != (dev ? Location::device : Location::host))
      x_.dense = x_.dense.to(dev ? Location::device : Location::host, ctx);
    x_drop_ = x_.dense;
  }

  using FirstLayer = Options::FirstLayer;
  const char* why_not = x_.sparse            ? "the features are sparse (Â·X would be an SpGEMM)"
                        : options.layers < 2 ? "a single layer has no ReLU after it"
                        : maxk_layer(0)      ? "MaxK acts between the transform and the aggregation"
                                             : nullptr;
  if (options.first_layer == FirstLayer::aggregate_first && why_not)
    throw NotImplemented(std::string("gcn: the first layer cannot aggregate first: ") + why_not);
  aggregate_first_ =
      options.first_layer == FirstLayer::aggregate_first ||
      (options.first_layer == FirstLayer::automatic && !why_not && x.cols() <= options.hidden);
  if (aggregate_first_) agg_x_ = place(DenseMatrix(n, x.cols(), t));

  std::vector<Index> dims{x.cols()};
  for (Index l = 1; l < options.layers; ++l) dims.push_back(options.hidden);
  dims.push_back(classes);
  std::mt19937_64 g(options.seed);
  for (Index l = 0; l < options.layers; ++l) {
    const Index a_dim = dims[std::size_t(l)], b_dim = dims[std::size_t(l + 1)];
    weights_.push_back(place(glorot(a_dim, b_dim, t, g)));
    for (auto* v : {&d_weights_, &m_weights_, &v_weights_})
      v->push_back(place(DenseMatrix(a_dim, b_dim, t)));
    for (auto* v : {&biases_, &d_biases_, &m_biases_, &v_biases_})
      v->push_back(place(DenseVector(b_dim, t)));
    for (auto* v : {&out_, &grad_}) v->push_back(place(DenseMatrix(n, b_dim, t)));
    // Aggregated first, the first layer has no T and no ∂T (agg_x_ holds Â·Xd instead).
    for (auto* v : {&t_, &d_t_})
      v->push_back(l == 0 && aggregate_first_ ? DenseMatrix(0, b_dim, t)
                                              : place(DenseMatrix(n, b_dim, t)));
    if (maxk_layer(l))
      s_.push_back(
          Cbsr(n, b_dim, int(options.maxk), dev ? Location::device : Location::host, &ctx));
  }
}

void Model::forward(bool training, Index epoch) {
  const Semiring s = plus_times(options_.type);
  const Index L = layers();
  for (Index l = 0; l < L; ++l) {
    DenseMatrix& T = t_[std::size_t(l)];
    if (l == 0 && aggregate_first_) {
      if (dropping(training))
        nn::dropout(x_drop_, x_.dense, options_.dropout, options_.seed, stream(epoch, 0), ctx_);
      aggregate_first_forward(dropping(training) ? x_drop_ : x_.dense, training, epoch);
      continue;
    }
    if (l == 0 && x_.sparse) {
      const Matrix* in = &x_.matrix;
      if (dropping(training)) {
        // Dropout on the stored values (zeros stay zeros either way): a 1 x nnz view of them.
        // Both value arrays are lent to 1 x nnz matrices and handed back (no copies).
        const Index nnz = x_.matrix.nnz();
        DenseMatrix from = DenseMatrix::from_buffer(1, nnz, options_.type, Layout::row_major,
                                                    std::move(x_.matrix.values()));
        DenseMatrix to = DenseMatrix::from_buffer(1, nnz, options_.type, Layout::row_major,
                                                  std::move(x_drop_sparse_.values()));
        nn::dropout(to, from, options_.dropout, options_.seed, stream(epoch, 0), ctx_);
        x_.matrix.values() = std::move(from.values());
        x_drop_sparse_.values() = std::move(to.values());
        in = &x_drop_sparse_;
      }
      mxm(T, s, *in, weights_[0], {}, ctx_);
    } else if (l == 0) {  // Xd is kept for ∂W_0
      if (dropping(training))
        nn::dropout(x_drop_, x_.dense, options_.dropout, options_.seed, stream(epoch, 0), ctx_);
      nn::gemm(T, 1.0, dropping(training) ? x_drop_ : x_.dense, weights_[0], 0.0, {}, ctx_);
    } else {
      // A hidden layer's output (unless its forward dropped it) is dropped for the product
      // (nn::dropout_gemm) and again in the backward's one pass.
      nn::dropout_gemm(T, 1.0, out_[std::size_t(l - 1)], weights_[std::size_t(l)],
                       input_dropout(training, l), options_.seed, stream(epoch, l), {}, ctx_);
    }
    const DenseVector& b = biases_[std::size_t(l)];
    if (l + 1 < L)
      hidden_forward(l, training, epoch);
    else
      mxm(out_[std::size_t(l)], s, a_hat_, T, Epilogue::bias_add(b), {}, ctx_);
  }
}

// The hidden layers' nonlinearity σ in the forward pass: the one place that knows which it is
// (MaxK, issue 12, replaces ReLU when options_.maxk > 0; backward() picks the matching mask).
void Model::hidden_forward(Index l, bool training, Index epoch) {
  const std::size_t k = std::size_t(l);
  if (maxk_layer(l)) {
    // MaxK-GNN (Peng et al., ASPLOS 2024), Linear -> MaxK -> aggregation: S = maxk(T, k) in
    // CBSR, H = Â·S + b (the aggregation on S's k entries per row, the bias at write-back), and
    // the next layer's input dropout (its stream, stream(epoch, l + 1), as dropout_gemm would
    // draw it) as H is written: the next transform is then a plain product.
    maxk(s_[k], t_[k], int(options_.maxk), {}, ctx_);
    const OutputDropout drop{dropping(training) ? options_.dropout : 0.0, options_.seed,
                             stream(epoch, l + 1)};
    mxm(out_[k], plus_times(options_.type), a_hat_, s_[k], Epilogue::bias_add(biases_[k]), drop, {},
        ctx_);
    return;
  }
  // H = ReLU(Â·T + b), the bias and the ReLU fused into the aggregation's epilogue.
  mxm(out_[k], plus_times(options_.type), a_hat_, t_[k], Epilogue::bias_relu(biases_[k]), {}, ctx_);
}

void Model::aggregate_first_forward(const DenseMatrix& in, bool training, Index epoch) {
  // (Â·Xd)·W_0 = Â·(Xd·W_0); the bias, the ReLU and the next layer's input dropout (its stream,
  // stream(epoch, 1), as dropout_gemm would draw it) in one pass: the next layer's product is
  // then a plain gemm, and its backward reads the mask from H_1's zeros (no draws).
  mxm(agg_x_, plus_times(options_.type), a_hat_, in, {}, ctx_);
  nn::gemm(out_[0], 1.0, agg_x_, weights_[0], 0.0, {}, ctx_);
  nn::bias_relu_dropout(out_[0], biases_[0], dropping(training) ? options_.dropout : 0.0,
                        options_.seed, stream(epoch, 1), ctx_);
}

void Model::aggregation_backward(Index l) {
  const std::size_t k = std::size_t(l);
  const Semiring s = plus_times(options_.type);
  if (!maxk_layer(l)) {  // ∂T = Âᵀ·G
    mxm(d_t_[k], s, symmetric_ ? a_hat_ : a_hat_t_, grad_[k], {}, ctx_);
    return;
  }
  // MaxK: ∂S = (Âᵀ·G) sampled at S's k positions per row (the SSpMM, written over S's values:
  // the backward needs only S's pattern, and the next forward recomputes S), then ∂T = ∂S at its
  // columns and 0 elsewhere (the gradient of the top-k selection).
  Descriptor ta;
  ta.transpose_a = true;
  mxm(s_[k], s, a_hat_, grad_[k], ta, ctx_);
  densify(d_t_[k], s_[k], {}, ctx_);
}

void Model::loss(DenseVector& stats, Index loss_slot, Index acc_slot, const DenseVector& labels,
                 const DenseVector& rows, bool gradient) {
  nn::softmax_cross_entropy(gradient ? &grad_.back() : nullptr, stats, loss_slot, out_.back(),
                            labels, rows, ctx_);
  if (acc_slot >= 0) nn::accuracy(stats, acc_slot, out_.back(), labels, rows, ctx_);
}

void Model::backward(bool training, Index epoch) {
  const Semiring s = plus_times(options_.type);
  const Index L = layers();
  // The last layer's bias gradient here; each hidden layer's comes with its gradient below.
  nn::column_sums(d_biases_.back(), grad_.back(), ctx_);
  for (Index l = L - 1; l >= 0; --l) {
    const std::size_t k = std::size_t(l);
    Descriptor ta;
    ta.transpose_a = true;
    if (l == 0 && aggregate_first_) {  // ∂W_0 = (Â·Xd)ᵀ·G
      nn::gemm(d_weights_[0], 1.0, agg_x_, grad_[0], 0.0, ta, ctx_);
      break;
    }
    aggregation_backward(l);
    if (l == 0 && x_.sparse) {
      const Matrix& in = dropping(training) ? x_drop_sparse_ : x_.matrix;
      Matrix in_t(in.ncols(), in.nrows(), options_.type, in.index_type());
      transpose(in_t, nullptr, no_accum, in, {}, ctx_);
      x_drop_sparse_t_ = std::move(in_t);
      mxm(d_weights_[k], s, x_drop_sparse_t_, d_t_[k], {}, ctx_);
    } else if (l == 0) {
      nn::gemm(d_weights_[k], 1.0, dropping(training) ? x_drop_ : x_.dense, d_t_[k], 0.0, ta, ctx_);
    } else {
      // One pass over H_l with the forward's dropout mask (drawn again, or read from H_l's
      // zeros where the forward stored it dropped):
      //   ∂W_l = dropout(H_l)ᵀ·∂T,  ∂Z_{l-1} = dropout(∂T·W_lᵀ) ⊙ (H_l > 0),  ∂b_{l-1} = Σ
      //   ∂Z_{l-1}.
      // A MaxK layer has no activation after its aggregation (H = Â·S + b): no ReLU mask; MaxK's
      // own gradient is taken in aggregation_backward.
      nn::dense_layer_backward(d_weights_[k], grad_[k - 1], &d_biases_[k - 1], out_[k - 1], d_t_[k],
                               weights_[k], !maxk_layer(l - 1), dropped_in_forward(l - 1),
                               dropping(training) ? options_.dropout : 0.0, options_.seed,
                               stream(epoch, l), ctx_);
    }
    if (l == 0) break;
  }
}

void Model::step() {
  ++adam_t_;
  for (Index l = 0; l < layers(); ++l) {
    const std::size_t k = std::size_t(l);
    nn::AdamOptions o;
    o.lr = options_.lr;
    o.weight_decay = l == 0 ? options_.weight_decay : 0.0;
    nn::adam_step(weights_[k], d_weights_[k], m_weights_[k], v_weights_[k], o, adam_t_, ctx_);
    nn::adam_step(biases_[k], d_biases_[k], m_biases_[k], v_biases_[k], o, adam_t_, ctx_);
  }
}

// --- training loop ----------------------------------------------------------------------------

Result train(const Matrix& a_hat, const Features& x, const std::vector<std::int32_t>& labels,
             Index classes, const std::vector<std::int32_t>& train_rows,
             const std::vector<std::int32_t>& val_rows, const std::vector<std::int32_t>& test_rows,
             const Options& options, Context& ctx,
             const std::function<void(const EpochStats&)>& on_epoch) {
  if (Index(labels.size()) != a_hat.nrows())
    throw DimensionMismatch("gcn: " + std::to_string(labels.size()) + " labels for " +
                            std::to_string(a_hat.nrows()) + " nodes");
  Model model(a_hat, x, classes, options, ctx);
  const bool dev = runs_on_device(ctx);
  auto put = [&](const std::vector<std::int32_t>& v) {
    DenseVector h = DenseVector::from_values(v);
    return dev ? h.to(Location::device, ctx) : h;
  };
  const DenseVector lab = put(labels), tr = put(train_rows), va = put(val_rows),
                    te = put(test_rows);
  DenseVector stats(4, options.type);
  if (dev) stats = stats.to(Location::device, ctx);
  auto read = [&] {
    const DenseVector h =
        stats.location() == Location::host ? stats : stats.to(Location::host, ctx);
    std::vector<double> v(4);
    for (std::size_t k = 0; k < 4; ++k)
      v[k] = options.type == Type::fp32 ? double(h.values().as<float>()[k])
                                        : h.values().as<double>()[k];
    return v;
  };
  Result r;
  for (Index epoch = 0; epoch < options.epochs; ++epoch) {
    model.forward(true, epoch);
    model.loss(stats, 0, 1, lab, tr, true);
    model.backward(true, epoch);
    model.step();
    model.forward(false, epoch);
    model.loss(stats, 2, 3, lab, va, false);
    // One read of the four numbers per epoch.
    const std::vector<double> h = read();
    EpochStats e{epoch, h[0], h[1], h[2], h[3]};
    r.history.push_back(e);
    if (on_epoch) on_epoch(e);
    const Index w = options.early_stopping;
    if (w > 0 && epoch > w) {
      double mean = 0;
      for (Index k = epoch - w; k < epoch; ++k) mean += r.history[std::size_t(k)].val_loss;
      mean /= double(w);
      if (e.val_loss > mean) {
        r.stopped_early = true;
        break;
      }
    }
  }
  model.forward(false, options.epochs);
  model.loss(stats, 0, 1, lab, te, false);
  const std::vector<double> h = read();
  r.test_loss = h[0];
  r.test_acc = h[1];
  return r;
}

}  // namespace ringblas::gcn
