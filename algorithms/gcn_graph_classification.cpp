// Batched GCN graph classification: mini-batches through mxm_batched (method in the header).
#include "algorithms/gcn_graph_classification.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "algorithms/gcn.hpp"
#include "algorithms/roc_auc.hpp"
#include "ringblas/error.hpp"
#include "ringblas/matrix_batch.hpp"
#include "ringblas/nn.hpp"
#include "ringblas/ops.hpp"

namespace ringblas::graph_gcn {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Uniform in [0, 1) from 53 bits of a counter-based stream.
double uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t k) {
  const std::uint64_t h = splitmix64(splitmix64(seed ^ splitmix64(stream)) + k);
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

/// Values of `type` from doubles, as a row-major dense matrix on the host.
DenseMatrix dense_of(Index rows, Index cols, const std::vector<double>& v, Type type) {
  if (type == Type::fp64) return DenseMatrix::from_values(rows, cols, v);
  return DenseMatrix::from_values(rows, cols, std::vector<float>(v.begin(), v.end()));
}
DenseVector zeros(Index n, Type type) {
  if (type == Type::fp64) return DenseVector::from_values(std::vector<double>(n, 0.0));
  return DenseVector::from_values(std::vector<float>(n, 0.0f));
}

/// The 1 x n matrix of 1/n (one graph's mean readout), or its n x 1 transpose.
Matrix mean_row(Index n, bool transposed, Type type) {
  std::vector<Index> r(n, 0), c(n);
  for (Index v = 0; v < n; ++v) c[v] = v;
  if (transposed) std::swap(r, c);
  const Index rows = transposed ? n : 1, cols = transposed ? 1 : n;
  Matrix m = type == Type::fp64
                 ? Matrix::from_triplets(rows, cols, r, c, std::vector<double>(n, 1.0 / n))
                 : Matrix::from_triplets(rows, cols, r, c,
                                         std::vector<float>(n, static_cast<float>(1.0 / n)));
  return m.with_index_type(IndexType::i32);
}

/// Sizes that may be read back into host vectors as T.
template <class T>
std::vector<T> host_values(const DenseMatrix& m, Context& ctx) {
  const DenseMatrix h = m.location() == Location::host ? m : m.to(Location::host, ctx);
  const std::size_t n = static_cast<std::size_t>(h.nrows() * h.ncols());
  const T* p = h.values().as<T>();
  return std::vector<T>(p, p + n);
}

}  // namespace

std::vector<Index> permutation(const std::vector<Index>& ids, std::uint64_t seed,
                               std::uint64_t stream) {
  std::vector<Index> p(ids);
  for (std::size_t i = p.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(uniform(seed, stream, i) * static_cast<double>(i));
    std::swap(p[i - 1], p[std::min(j, i - 1)]);
  }
  return p;
}

Split random_split(Index num_graphs, std::uint64_t seed) {
  std::vector<Index> all(static_cast<std::size_t>(num_graphs));
  for (Index g = 0; g < num_graphs; ++g) all[g] = g;
  const std::vector<Index> p = permutation(all, seed, 0);
  const auto n_train = static_cast<std::size_t>(num_graphs * 8 / 10);
  const auto n_val = static_cast<std::size_t>(num_graphs / 10);
  Split s;
  s.train.assign(p.begin(), p.begin() + n_train);
  s.val.assign(p.begin() + n_train, p.begin() + n_train + n_val);
  s.test.assign(p.begin() + n_train + n_val, p.end());
  return s;
}

std::vector<Matrix> normalized_blocks(const tu::Dataset& ds, Type type, Context& ctx) {
  Matrix a_hat = gcn::normalized_adjacency(ds.adjacency, type, ctx);
  if (a_hat.location() != Location::host) a_hat = a_hat.to(Location::host, ctx);
  return tu::graph_blocks(a_hat, ds.graph_ptr);
}

// --- the model --------------------------------------------------------------------------------

struct Model::Batch {
  std::vector<Index> graphs_of;  // graph id of each item
  std::vector<char> borrowed;    // item k was lent by the model (else a copy: a repeated graph)
  std::vector<Matrix> adj;       // Â_g of the batch's graphs
  std::vector<Matrix> pool;      // 1 x |g| of 1/|g|: mean readout
  std::vector<Matrix> pool_t;    // its transpose, for the backward pass
  // The same three as block-diagonal matrices, built once per mini-batch (with
  // Options::batch_objects): each is multiplied up to 2L+2 times a step, and a MatrixBatch
  // product costs no per-graph host work.
  MatrixBatch adj_batch, pool_batch, pool_t_batch;
  DenseMatrix x;                 // stacked node features (nodes x in_width)
  DenseMatrix y;                 // targets (graphs x tasks), NaN where missing
  Index nodes = 0, graphs = 0;
};

Model::Model(const tu::Dataset& ds, const DenseMatrix& features, const Options& opt, Context& ctx)
    : ds_(ds), opt_(opt), ctx_(ctx) {
  if (opt.layers < 1 || opt.hidden < 1 || opt.batch_size < 1 || opt.epochs < 0)
    throw InvalidValue("graph_gcn: layers, hidden and batch size must be >= 1 (got " +
                       std::to_string(opt.layers) + ", " + std::to_string(opt.hidden) + ", " +
                       std::to_string(opt.batch_size) + ")");
  if (!(opt.dropout >= 0 && opt.dropout < 1))
    throw InvalidValue("graph_gcn: dropout " + std::to_string(opt.dropout) + " not in [0, 1)");
  if (opt.type != Type::fp32 && opt.type != Type::fp64)
    throw InvalidValue("graph_gcn: the model computes in fp32 or fp64");
  if (!ds.symmetric)
    throw InvalidValue("graph_gcn: " + ds.name +
                       " has an edge without its reverse; the GCN needs undirected graphs");
  if (features.nrows() != ds.num_nodes)
    throw InvalidValue("graph_gcn: " + std::to_string(features.nrows()) + " feature rows for " +
                       std::to_string(ds.num_nodes) + " nodes");
  if (ds.num_tasks < 1) throw InvalidValue("graph_gcn: " + ds.name + " has no graph targets");
  where_ = gcn::runs_on_device(ctx) ? Location::device : Location::host;
  tasks_ = ds.num_tasks;
  in_width_ = features.ncols();
  {
    const DenseMatrix h =
        features.location() == Location::host ? features : features.to(Location::host, ctx);
    x_.resize(static_cast<std::size_t>(ds.num_nodes * in_width_));
    for (Index i = 0; i < ds.num_nodes; ++i)
      for (Index j = 0; j < in_width_; ++j)
        x_[static_cast<std::size_t>(i * in_width_ + j)] = h.at<float>(i, j);
  }
  Context cpu(Backend::cpu);  // one-off preprocessing on the host, where the blocks are cut
  adj_ = normalized_blocks(ds, opt.type, cpu);
  for (Index g = 0; g < ds.num_graphs; ++g) {
    const Index n = ds.graph_ptr[g + 1] - ds.graph_ptr[g];
    pool_.push_back(mean_row(n, false, opt.type));
    pool_t_.push_back(mean_row(n, true, opt.type));
  }
  // One upload of every graph's matrices: a mini-batch then passes device pointers only.
  if (where_ != Location::host)
    for (auto* list : {&adj_, &pool_, &pool_t_})
      for (Matrix& m : *list) m = m.to(where_, ctx);
  lent_.assign(static_cast<std::size_t>(ds.num_graphs), -1);

  // Glorot-uniform weights (PyG's GCNConv and, for comparability, the head too), zero biases.
  const Index layers = opt.layers;
  for (Index l = 0; l <= layers; ++l) {
    const Index in = l == 0 ? in_width_ : opt.hidden;
    const Index out = l == layers ? tasks_ : opt.hidden;
    const double a = std::sqrt(6.0 / static_cast<double>(in + out));
    std::vector<double> w(static_cast<std::size_t>(in * out));
    for (std::size_t k = 0; k < w.size(); ++k)
      w[k] = (2.0 * uniform(opt.seed, 1000 + static_cast<std::uint64_t>(l), k) - 1.0) * a;
    auto place = [&](DenseMatrix m) { return where_ == Location::host ? m : m.to(where_, ctx); };
    auto place_v = [&](DenseVector v) { return where_ == Location::host ? v : v.to(where_, ctx); };
    w_.push_back(place(dense_of(in, out, w, opt.type)));
    gw_.push_back(place(dense_of(in, out, std::vector<double>(w.size(), 0.0), opt.type)));
    mw_.push_back(gw_.back());
    vw_.push_back(gw_.back());
    b_.push_back(place_v(zeros(out, opt.type)));
    gb_.push_back(b_.back());
    mb_.push_back(b_.back());
    vb_.push_back(b_.back());
  }
  losses_ = where_ == Location::host ? zeros(1, opt.type) : zeros(1, opt.type).to(where_, ctx);
}

DenseMatrix Model::blank(Index rows, Index cols) const {
  if (where_ == Location::host) return DenseMatrix(rows, cols, opt_.type);
  const std::size_t bytes = static_cast<std::size_t>(rows * cols) * type_size(opt_.type);
  return DenseMatrix::from_buffer(rows, cols, opt_.type, Layout::row_major,
                                  Buffer(std::max<std::size_t>(bytes, 1), where_, &ctx_));
}

/// Gives the lent matrices back when a mini-batch is done, also when it throws.
class Model::Lease {
 public:
  Lease(Model& m, Batch& b) : m_(m), b_(b) {}
  ~Lease() { m_.give_back(b_); }
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;

 private:
  Model& m_;
  Batch& b_;
};

void Model::give_back(Batch& b) {
  for (std::size_t k = 0; k < b.graphs_of.size(); ++k) {
    if (!b.borrowed[k]) continue;
    const auto g = static_cast<std::size_t>(b.graphs_of[k]);
    adj_[g] = std::move(b.adj[k]);
    pool_[g] = std::move(b.pool[k]);
    pool_t_[g] = std::move(b.pool_t[k]);
    lent_[g] = -1;
  }
  b.graphs_of.clear();
}

Model::Batch Model::make_batch(const std::vector<Index>& ids, std::size_t begin, std::size_t end) {
  Batch b;
  b.graphs = static_cast<Index>(end - begin);
  for (std::size_t k = begin; k < end; ++k) {
    const Index g = ids[k];
    b.nodes += ds_.graph_ptr[g + 1] - ds_.graph_ptr[g];
  }
  // Features and targets first (the uploads may throw); lending last, so that an error leaves
  // the model's matrices where they were (only a repeated graph's copy allocates while lending).
  auto gather = [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> x(static_cast<std::size_t>(b.nodes * in_width_));
    std::vector<T> y(static_cast<std::size_t>(b.graphs * tasks_));
    std::size_t at = 0;
    for (std::size_t k = begin; k < end; ++k) {
      const Index g = ids[k];
      const Index lo = ds_.graph_ptr[g], n = ds_.graph_ptr[g + 1] - lo;
      const std::size_t cells = static_cast<std::size_t>(n * in_width_);
      std::copy_n(x_.begin() + static_cast<std::ptrdiff_t>(lo * in_width_), cells, x.begin() + at);
      at += cells;
      for (Index t = 0; t < tasks_; ++t)
        y[(k - begin) * tasks_ + t] =
            static_cast<T>(ds_.targets[static_cast<std::size_t>(g * tasks_ + t)]);
    }
    b.x = DenseMatrix::from_values(b.nodes, in_width_, x);
    b.y = DenseMatrix::from_values(b.graphs, tasks_, y);
  };
  if (opt_.type == Type::fp64)
    gather(0.0);
  else
    gather(0.0f);
  if (where_ != Location::host) {
    b.x = b.x.to(where_, ctx_);
    b.y = b.y.to(where_, ctx_);
  }
  const std::size_t count = end - begin;
  for (auto* list : {&b.adj, &b.pool, &b.pool_t}) list->reserve(count);
  b.graphs_of.reserve(count);
  b.borrowed.reserve(count);
  for (std::size_t k = begin; k < end; ++k) {
    const Index g = ids[k];
    const auto gi = static_cast<std::size_t>(g);
    b.graphs_of.push_back(g);
    if (lent_[gi] < 0) {
      lent_[gi] = static_cast<Index>(b.adj.size());
      b.borrowed.push_back(1);
      b.adj.push_back(std::move(adj_[gi]));
      b.pool.push_back(std::move(pool_[gi]));
      b.pool_t.push_back(std::move(pool_t_[gi]));
    } else {  // the same graph twice in one batch: the second is a copy of the first
      const auto first = static_cast<std::size_t>(lent_[gi]);
      b.borrowed.push_back(0);
      b.adj.push_back(b.adj[first]);
      b.pool.push_back(b.pool[first]);
      b.pool_t.push_back(b.pool_t[first]);
    }
  }
  if (!opt_.batch_objects) return b;
  try {  // from the lent matrices: an error gives them back before it leaves
    b.adj_batch = MatrixBatch(b.adj, ctx_);
    b.pool_batch = MatrixBatch(b.pool, ctx_);
    b.pool_t_batch = MatrixBatch(b.pool_t, ctx_);
  } catch (...) {
    give_back(b);
    throw;
  }
  return b;
}

DenseMatrix Model::step(const Batch& b, bool backward, Index slot, std::uint64_t stream) {
  const Semiring s = semiring("plus_times", opt_.type);
  const Index L = opt_.layers;
  const bool drop = stream > 0 && opt_.dropout > 0;
  auto drop_stream = [&](Index l) { return stream * 64 + static_cast<std::uint64_t>(l); };
  // One stacked product with the batch's Â, P or Pᵀ: over its MatrixBatch or its items.
  auto product = [&](DenseMatrix& c, const MatrixBatch& batch, const std::vector<Matrix>& items,
                     const DenseMatrix& in, const Epilogue& ep) {
    if (opt_.batch_objects)
      mxm_batched(c, s, batch, in, ep, {}, ctx_);
    else
      mxm_batched(c, s, items, in, ep, {}, ctx_);
  };

  // Forward: H^{l+1} = dropout(ReLU(Â (H^l W^l) + b^l)).
  std::vector<DenseMatrix> h(static_cast<std::size_t>(L) + 1);
  for (Index l = 0; l < L; ++l) {
    const DenseMatrix& in = l == 0 ? b.x : h[l];
    DenseMatrix t = blank(b.nodes, opt_.hidden);
    nn::gemm(t, 1.0, in, w_[l], 0.0, {}, ctx_);
    h[l + 1] = blank(b.nodes, opt_.hidden);
    product(h[l + 1], b.adj_batch, b.adj, t, Epilogue::bias_relu(b_[l]));
    if (drop) nn::dropout(h[l + 1], opt_.dropout, opt_.seed, drop_stream(l), ctx_);
  }
  // Head and readout: O = P (H^L W_out) + b_out.
  DenseMatrix t_out = blank(b.nodes, tasks_);
  nn::gemm(t_out, 1.0, h[L], w_[L], 0.0, {}, ctx_);
  DenseMatrix o = blank(b.graphs, tasks_);
  product(o, b.pool_batch, b.pool, t_out, Epilogue::bias_add(b_[L]));
  DenseMatrix g_o;
  if (backward) g_o = blank(b.graphs, tasks_);
  nn::sigmoid_cross_entropy(backward ? &g_o : nullptr, losses_, slot, o, b.y, ctx_);
  if (!backward) return o;

  // Backward.
  Descriptor ta, tb;
  ta.transpose_a = true;
  tb.transpose_b = true;
  nn::column_sums(gb_[L], g_o, ctx_);
  DenseMatrix g_t = blank(b.nodes, tasks_);
  product(g_t, b.pool_t_batch, b.pool_t, g_o, Epilogue::none());
  nn::gemm(gw_[L], 1.0, h[L], g_t, 0.0, ta, ctx_);
  DenseMatrix g_h = blank(b.nodes, opt_.hidden);
  nn::gemm(g_h, 1.0, g_t, w_[L], 0.0, tb, ctx_);
  for (Index l = L - 1; l >= 0; --l) {
    if (drop) nn::dropout(g_h, opt_.dropout, opt_.seed, drop_stream(l), ctx_);
    nn::relu_backward(g_h, h[l + 1], ctx_);  // g_h is now ∂loss/∂Z^l
    nn::column_sums(gb_[l], g_h, ctx_);
    DenseMatrix g_s = blank(b.nodes, opt_.hidden);
    product(g_s, b.adj_batch, b.adj, g_h, Epilogue::none());  // Âᵀ = Â
    const DenseMatrix& in = l == 0 ? b.x : h[l];
    nn::gemm(gw_[l], 1.0, in, g_s, 0.0, ta, ctx_);
    if (l > 0) {
      DenseMatrix next = blank(b.nodes, opt_.hidden);
      nn::gemm(next, 1.0, g_s, w_[l], 0.0, tb, ctx_);
      g_h = std::move(next);
    }
  }
  return o;
}

double Model::train_epoch(const std::vector<Index>& order, Index epoch) {
  const std::size_t bs = static_cast<std::size_t>(opt_.batch_size);
  const Index batches = static_cast<Index>((order.size() + bs - 1) / bs);
  if (batches == 0) return std::numeric_limits<double>::quiet_NaN();
  if (losses_.size() < batches) {
    losses_ = zeros(batches, opt_.type);
    if (where_ != Location::host) losses_ = losses_.to(where_, ctx_);
  }
  nn::AdamOptions adam;
  adam.lr = opt_.lr;
  adam.weight_decay = opt_.weight_decay;
  for (Index k = 0; k < batches; ++k) {
    const std::size_t begin = static_cast<std::size_t>(k) * bs;
    Batch b = make_batch(order, begin, std::min(order.size(), begin + bs));
    const Lease lease(*this, b);
    // Dropout streams: distinct per (epoch, batch), never 0 (0 = no dropout).
    const std::uint64_t stream = static_cast<std::uint64_t>(epoch) * 1000003u + k + 1;
    step(b, true, k, stream);
    ++adam_t_;
    for (std::size_t p = 0; p < w_.size(); ++p) {
      nn::adam_step(w_[p], gw_[p], mw_[p], vw_[p], adam, adam_t_, ctx_);
      nn::adam_step(b_[p], gb_[p], mb_[p], vb_[p], adam, adam_t_, ctx_);
    }
  }
  const DenseVector h = where_ == Location::host ? losses_ : losses_.to(Location::host, ctx_);
  double sum = 0;
  for (Index k = 0; k < batches; ++k)
    sum += opt_.type == Type::fp64 ? h.values().as<double>()[k] : h.values().as<float>()[k];
  return sum / static_cast<double>(batches);
}

double Model::loss_and_gradients(const std::vector<Index>& ids) {
  Batch b = make_batch(ids, 0, ids.size());
  const Lease lease(*this, b);
  step(b, true, 0, 0);
  const DenseVector h = where_ == Location::host ? losses_ : losses_.to(Location::host, ctx_);
  return opt_.type == Type::fp64 ? h.values().as<double>()[0] : h.values().as<float>()[0];
}

std::vector<float> Model::predict(const std::vector<Index>& ids) {
  std::vector<float> out;
  out.reserve(ids.size() * static_cast<std::size_t>(tasks_));
  const std::size_t bs = static_cast<std::size_t>(opt_.batch_size);
  for (std::size_t begin = 0; begin < ids.size(); begin += bs) {
    Batch b = make_batch(ids, begin, std::min(ids.size(), begin + bs));
    const Lease lease(*this, b);
    const DenseMatrix o = step(b, false, 0, 0);
    if (opt_.type == Type::fp64) {
      for (double v : host_values<double>(o, ctx_)) out.push_back(static_cast<float>(v));
    } else {
      const auto v = host_values<float>(o, ctx_);
      out.insert(out.end(), v.begin(), v.end());
    }
  }
  return out;
}

double Model::roc_auc(const std::vector<Index>& ids, std::vector<double>* per_task, double* loss) {
  const std::vector<float> scores = predict(ids);  // logits: AUC is invariant under sigmoid
  std::vector<float> labels;
  labels.reserve(scores.size());
  for (Index g : ids)
    for (Index t = 0; t < tasks_; ++t)
      labels.push_back(ds_.targets[static_cast<std::size_t>(g * tasks_ + t)]);
  const std::vector<double> auc = metrics::roc_auc_per_task(scores, labels, tasks_);
  if (loss) {  // over all of ids at once: the same operation as training, on the host
    Context cpu(Backend::cpu);
    const Index n = static_cast<Index>(ids.size());
    DenseVector out = DenseVector::from_values(std::vector<float>{0.0f});
    nn::sigmoid_cross_entropy(nullptr, out, 0, DenseMatrix::from_values(n, tasks_, scores),
                              DenseMatrix::from_values(n, tasks_, labels), cpu);
    *loss = out.values().as<float>()[0];
  }
  if (per_task) *per_task = auc;
  return metrics::mean_ignoring_nan(auc);
}

std::vector<EpochStats> train(Model& model, const Split& split, const Options& opt,
                              void (*on_epoch)(const EpochStats&, void*), void* user, Index* best) {
  std::vector<EpochStats> stats;
  Index best_epoch = -1;
  for (Index e = 0; e < opt.epochs; ++e) {
    EpochStats s;
    s.epoch = e;
    s.train_loss = model.train_epoch(permutation(split.train, opt.seed, 1 + e), e);
    s.val_auc = model.roc_auc(split.val, nullptr, &s.val_loss);
    s.test_auc = model.roc_auc(split.test, &s.test_auc_per_task);
    if (best_epoch < 0 || s.val_auc > stats[best_epoch].val_auc) best_epoch = e;
    stats.push_back(s);
    if (on_epoch) on_epoch(s, user);
    const Index w = opt.early_stopping;
    if (w > 0 && e >= w) {
      double mean = 0;
      for (Index k = e - w; k < e; ++k) mean += stats[k].val_loss;
      if (s.val_loss > mean / static_cast<double>(w)) break;
    }
  }
  if (best) *best = best_epoch;
  return stats;
}

}  // namespace ringblas::graph_gcn
