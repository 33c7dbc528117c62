// Markov clustering as mcl 22-282 computes it (method and sources in algorithms/mcl.hpp).
#include "algorithms/mcl.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "algorithms/graph_vectors.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/error.hpp"
#include "ringblas/row_prune.hpp"
#include "ringblas/semiring.hpp"
#include "ringblas/vector_fill.hpp"

namespace ringblas::mcl {

namespace {

Matrix on_host(const Matrix& a, Context& ctx) {
  return a.location() == Location::host ? a : a.to(Location::host, ctx);
}

/// Per-row ⊕ of X, on the host, `fill` for a row without entries.
std::vector<double> row_reduce(MonoidCode m, const Matrix& X, double fill, Context& ctx) {
  Vector w(X.nrows(), X.type());
  reduce(w, nullptr, no_accum, m, X, ReduceDim::rows, {}, ctx);
  const Vector h =
      (w.location() == Location::host ? w : w.to(Location::host, ctx)).cast(Type::fp64);
  std::vector<double> out(static_cast<std::size_t>(X.nrows()), fill);
  const std::vector<Index> idx = h.indices_vector();
  const std::vector<double> val = h.values_vector<double>();
  for (std::size_t k = 0; k < idx.size(); ++k) out[static_cast<std::size_t>(idx[k])] = val[k];
  return out;
}

/// Entries per row: X ⊕.⊗ 1 over plus_pair.
std::vector<double> row_count(const Matrix& X, Context& ctx) {
  Vector ones = Vector::dense(std::vector<double>(static_cast<std::size_t>(X.ncols()), 1.0));
  if (X.location() != Location::host) ones = ones.to(X.location(), ctx);
  Vector w(X.nrows(), Type::fp64);
  mxv(w, nullptr, no_accum, semiring("plus_pair", Type::fp64), X, ones, {}, ctx);
  const Vector h = w.location() == Location::host ? w : w.to(Location::host, ctx);
  std::vector<double> out(static_cast<std::size_t>(X.nrows()), 0.0);
  const std::vector<Index> idx = h.indices_vector();
  const std::vector<double> val = h.values_vector<double>();
  for (std::size_t k = 0; k < idx.size(); ++k) out[static_cast<std::size_t>(idx[k])] = val[k];
  return out;
}

/// Elementwise helpers of one iteration, at X's location and the iterands' type.
class RowOps {
 public:
  RowOps(Type type, Context& ctx) : type_(type), ctx_(ctx) {}

  /// diag(d) (n = d.size()); entries where d is 0 are left out when `skip_zeros`.
  Matrix diagonal(const std::vector<double>& d, Location where, bool skip_zeros = false) const {
    Matrix m = algorithms::diagonal_matrix(d, type_, skip_zeros);
    return where == Location::host ? m : m.to(where, ctx_);
  }
  /// A ∪ B for disjoint structures.
  Matrix unite(const Matrix& A, const Matrix& B) const {
    Matrix C(A.nrows(), A.ncols(), type_);
    ewise_add(C, nullptr, no_accum, BinaryOpCode::first, A, B, {}, ctx_);
    return C;
  }
  /// diag(1 / X 1) X, rows without entries left alone; at X's location (the row sums never
  /// leave the device).
  Matrix normalize_rows(const Matrix& X) const {
    const Index m = X.nrows();
    Vector sums(m, type_), dense(m, type_);
    reduce(sums, nullptr, no_accum, MonoidCode::plus, X, ReduceDim::rows, {}, ctx_);
    // Rows without entries have no sum: 1 there, so that every position is present.
    ewise_add(dense, nullptr, no_accum, BinaryOpCode::first, sums,
              full_vector(m, 1.0, X.location(), ctx_), {}, ctx_);
    Matrix B(m, X.ncols(), type_), C(m, X.ncols(), type_);
    mxm(B, nullptr, no_accum, semiring("plus_first", type_), diagonal_of(dense, X.location()), X,
        {}, ctx_);
    ewise_mult(C, nullptr, no_accum, BinaryOpCode::div, X, B, {}, ctx_);
    return C;
  }

 private:
  /// diag(d) for a vector with every position present, built where d lives: row pointers and
  /// column indices 0, 1, ..., the values d's own.
  Matrix diagonal_of(const Vector& d, Location where) const {
    const Index n = d.size();
    const Vector d_here = d.location() == where ? d : d.to(where, ctx_);
    Vector rp = iota_vector(n + 1, where, ctx_), ci = iota_vector(n, where, ctx_);
    return Matrix::from_buffers(n, n, d_here.type(), IndexType::i64, n, std::move(rp.values()),
                                std::move(ci.values()), Buffer(d_here.values()));
  }
  Type type_;
  Context& ctx_;
};

/// One block of rows of F = prune(A ⊕.⊗ A) (mcl's rule, computed row by row without storing
/// the expanded rows: mxm_prune_rows), with its chaos.
struct Pruned {
  Matrix F;
  double chaos = 0;
  Index expanded_nnz = 0, recovered = 0, selected = 0;
};

Pruned expand_and_prune(const Matrix& Arows, Index first_row, const Matrix& A, const Options& opt,
                        Context& ctx) {
  const Type t = opt.type;
  const Index m = Arows.nrows(), n = A.ncols();
  RowPrune rule;
  rule.threshold = opt.prune > 0 ? 0.99999 / opt.prune : 0.0;
  rule.select = opt.select;
  rule.recover = opt.recover;
  rule.recover_mass = opt.recover_pct / 100.0;
  // Without recovery mcl gives a row that pruning emptied a loop of weight 1 (its "emergency
  // measure"); row i of the block is node first_row + i.
  rule.loop_if_empty = opt.recover == 0;
  rule.diagonal_offset = first_row;
  RowPruneStats st;
  Pruned out;
  out.F = Matrix(m, n, t);
  mxm_prune_rows(out.F, semiring("plus_times", t), Arows, A, rule, &st, {}, ctx);
  out.expanded_nnz = st.expanded_nnz;
  out.recovered = st.rows_recovered;
  out.selected = st.rows_selected;
  // Chaos is measured on the expanded rows, before pruning (mcl/expand.c vecMeasure):
  // max_i (max_j E(i,j) - Σ_j E(i,j)²) · |F(i,:)|, only the scalar leaving the device.
  Matrix ones(m, n, t);
  apply(ones, nullptr, no_accum, UnaryOpCode::one, out.F, {}, ctx);
  Vector kept(m, Type::fp64), spread(m, Type::fp64), chaos(m, Type::fp64);  // as mcl, in double
  reduce(kept, nullptr, no_accum, MonoidCode::plus, ones, ReduceDim::rows, {}, ctx);
  ewise_mult(spread, nullptr, no_accum, BinaryOpCode::minus, st.row_max, st.row_sumsq, {}, ctx);
  ewise_mult(chaos, nullptr, no_accum, BinaryOpCode::times, spread, kept, {}, ctx);
  out.chaos = chaos.nnz() ? std::max(0.0, reduce(MonoidCode::max, chaos, ctx).as<double>()) : 0.0;
  return out;
}

/// Contiguous row blocks [first, last) whose product fits the budget: a row of the product is
/// bounded by its number of products and by n.
std::vector<std::pair<Index, Index>> plan_phases(const Matrix& A, const Options& opt, int iteration,
                                                 Context& ctx) {
  const Index n = A.nrows();
  if (opt.memory_budget_bytes == 0) return {{0, n}};
  // The expanded rows are pruned as they are computed (mxm_prune_rows): a row keeps at most
  // about P + 1 entries >= 0.99999 / P (its mass is 1), at most about S after selection (ties
  // may add a few), or R when recovered; the kernel's reservation and the assembled rows hold
  // each kept entry twice; A and the assembled result stay resident.
  const double entry = double(type_size(opt.type) + sizeof(Index));
  double kept_cap = double(A.ncols());
  if (opt.prune > 0) kept_cap = std::min(kept_cap, std::floor(opt.prune) + 1);
  if (opt.select > 0) kept_cap = std::min(kept_cap, double(opt.select));
  kept_cap = std::min(double(A.ncols()), std::max(kept_cap, double(opt.recover)));
  const double per_product = 2 * entry;
  const double resident = 2 * (double(A.nnz()) * entry + double(n + 1) * sizeof(Index));
  const double budget = double(opt.memory_budget_bytes);
  const double room = budget - resident;
  // Every row at its cap fits: one phase, without the per-row bounds (n-vectors to the host).
  if (double(n) * kept_cap * per_product <= room) return {{0, n}};
  // Products of row i = Σ_k nnz(A(k,:)) over A(i,k) != 0: A ⊕.⊗ len over plus_second.
  const std::vector<double> len = row_count(A, ctx);
  Vector lv = Vector::dense(len);
  if (A.location() != Location::host) lv = lv.to(A.location(), ctx);
  Vector flops(n, Type::fp64);
  mxv(flops, nullptr, no_accum, semiring("plus_second", Type::fp64), A, lv, {}, ctx);
  const Vector fh = flops.location() == Location::host ? flops : flops.to(Location::host, ctx);
  std::vector<double> work(static_cast<std::size_t>(n), 0.0);
  {
    const auto idx = fh.indices_vector();
    const auto val = fh.values_vector<double>();
    // A row of the product holds at most n entries however many products it sums (on
    // soc-Epinions1's second iteration the cap turns 44 phases into a handful).
    const double cap = double(A.ncols());
    for (std::size_t k = 0; k < idx.size(); ++k)
      work[static_cast<std::size_t>(idx[k])] = std::min(val[k], cap);
  }
  for (double& w : work) w = std::min(w, kept_cap);
  const auto worst = std::max_element(work.begin(), work.end());
  const double worst_bytes = worst == work.end() ? 0 : *worst * per_product;
  if (room <= 0 || worst_bytes > room) {
    const Index row = worst == work.end() ? 0 : Index(worst - work.begin());
    throw OutOfMemory("mcl: iteration " + std::to_string(iteration) + " cannot fit the budget of " +
                          std::to_string(opt.memory_budget_bytes) +
                          " bytes: the iterand and result take " + std::to_string(Index(resident)) +
                          " bytes and row " + std::to_string(row) + " alone expands to up to " +
                          std::to_string(Index(*worst)) + " entries (" +
                          std::to_string(Index(worst_bytes)) + " bytes)",
                      static_cast<std::size_t>(resident + worst_bytes));
  }
  std::vector<std::pair<Index, Index>> phases;
  Index first = 0;
  double used = 0;
  for (Index i = 0; i < n; ++i) {
    const double b = work[static_cast<std::size_t>(i)] * per_product;
    if (used + b > room && i > first) {
      phases.emplace_back(first, i);
      first = i;
      used = 0;
    }
    used += b;
  }
  phases.emplace_back(first, n);
  return phases;
}

/// The start matrix: loops as mcl adds them, then rows made stochastic.
Matrix start_matrix(const Matrix& graph, const Options& opt, const RowOps& ops, Context& ctx) {
  const Index n = graph.nrows();
  Matrix G =
      graph.type() == opt.type || graph.location() != Location::host ? graph : graph.cast(opt.type);
  if (G.type() != opt.type) throw InvalidValue("mcl: a device graph must have the options' type");
  if (reduce(MonoidCode::min, G, ctx).as<double>() < 0)
    throw InvalidValue("mcl: the graph has negative weights (mcl needs nonnegative ones)");
  Matrix At(n, n, opt.type), off(n, n, opt.type), A(n, n, opt.type);
  transpose(At, nullptr, no_accum, G, {}, ctx);  // row i = mcl's column i
  Matrix nonzero(n, n, opt.type);
  select(nonzero, nullptr, no_accum, SelectOpCode::value_ne, Scalar(0.0), At, {}, ctx);
  select(off, nullptr, no_accum, SelectOpCode::offdiag, Scalar(Index(0)), nonzero, {}, ctx);
  std::vector<double> loop = row_reduce(MonoidCode::max, off, 1.0, ctx);
  for (double& w : loop) {
    if (w == 0) w = 1.0;
    if (opt.loop_factor >= 0) w *= opt.loop_factor;
  }
  A = ops.unite(off, ops.diagonal(loop, off.location(), true));
  return ops.normalize_rows(A);
}

void check_options(const Matrix& graph, const Options& opt) {
  if (graph.nrows() != graph.ncols())
    throw DimensionMismatch("mcl: the graph must be square, it is " +
                            std::to_string(graph.nrows()) + " x " + std::to_string(graph.ncols()));
  if (!(opt.inflation > 0)) throw InvalidValue("mcl: inflation (-I) must be > 0");
  if (opt.prune < 0 || opt.select < 0 || opt.recover < 0 || opt.recover_pct < 0 ||
      opt.recover_pct > 100)
    throw InvalidValue("mcl: -P, -S, -R must be >= 0 and -pct in 0..100");
  if (opt.max_iterations < 1) throw InvalidValue("mcl: -L must be >= 1");
  if (opt.type != Type::fp32 && opt.type != Type::fp64)
    throw InvalidValue("mcl: the iterands' type must be fp32 or fp64");
}

}  // namespace

Result cluster(const Matrix& graph, const Options& opt, Context& ctx,
               const IterationCallback& on_iteration) {
  check_options(graph, opt);
  const RowOps ops(opt.type, ctx);
  const Index n = graph.nrows();
  Matrix A = start_matrix(graph, opt, ops, ctx);
  Result res;
  double inflation = opt.inflation;
  for (int it = 1; it <= opt.max_iterations; ++it) {
    IterationInfo info;
    info.iteration = it;
    info.inflation = inflation;
    const auto phases = plan_phases(A, opt, it, ctx);
    info.phases = static_cast<int>(phases.size());
    Matrix F;
    if (phases.size() == 1) {
      Pruned p = expand_and_prune(A, 0, A, opt, ctx);
      F = std::move(p.F);
      info.chaos = p.chaos;
      info.expanded_nnz = p.expanded_nnz;
      info.rows_recovered = p.recovered;
      info.rows_selected = p.selected;
    } else {
      F = Matrix(n, n, opt.type);
      for (const auto& [first, last] : phases) {
        Indices rows;
        rows.list.resize(static_cast<std::size_t>(last - first));
        std::iota(rows.list.begin(), rows.list.end(), first);
        Matrix block(last - first, n, opt.type);
        extract(block, nullptr, no_accum, A, rows, Indices::all(), {}, ctx);
        Pruned p = expand_and_prune(block, first, A, opt, ctx);
        assign(F, nullptr, no_accum, p.F, rows, Indices::all(), {}, ctx);
        info.chaos = std::max(info.chaos, p.chaos);
        info.expanded_nnz += p.expanded_nnz;
        info.rows_recovered += p.recovered;
        info.rows_selected += p.selected;
      }
    }
    // Inflation: Hadamard power, then rows stochastic again. mcl first rescales the pruned
    // rows to mass 1; the power's normalisation cancels that factor, so it is not repeated.
    Matrix powered(n, n, opt.type);
    apply(powered, nullptr, no_accum, BinaryOpCode::pow, BindSide::second, Scalar(inflation), F, {},
          ctx);
    A = ops.normalize_rows(powered);
    info.nnz = A.nnz();
    res.iterations = it;
    res.chaos = info.chaos;
    if (on_iteration) on_iteration(info);
    // mcl/proc.c: from the 40th iteration on, inflation grows to force convergence.
    if (it >= 40) inflation *= 1.001;
    if (info.chaos < opt.chaos_limit) break;
  }
  res.clusters = interpret(A, ctx);
  return res;
}

std::vector<std::vector<Index>> interpret(const Matrix& limit, Context& ctx) {
  const Matrix L = on_host(limit, ctx).cast(Type::fp64);
  const Index n = L.nrows();
  const std::vector<Index> rp = L.row_ptr_vector(), ci = L.col_idx_vector();
  const std::vector<double> v = L.values_vector<double>();
  const auto N = static_cast<std::size_t>(n);

  // The DAG of mcl/interpret.c mclDag and mcl/proc.c: strongest entries of every row.
  std::vector<std::vector<Index>> dag(N);
  std::vector<char> attractor(N, 0);
  for (Index i = 0; i < n; ++i) {
    double self = 0, maxval = 0;
    for (Index k = rp[i]; k < rp[i + 1]; ++k) {
      if (ci[k] == i) self = v[k];
      maxval = std::max(maxval, v[k]);
    }
    const double bar = self < maxval ? 0.999 * self + 0.001 * maxval : self / 1.01;
    double sum = 0;
    Index kept = 0;
    for (Index k = rp[i]; k < rp[i + 1]; ++k)
      if (v[k] >= bar) sum += v[k], ++kept;
    for (Index k = rp[i]; k < rp[i + 1]; ++k)
      if (v[k] >= bar && v[k] / sum >= 1.0 / double(kept + 1)) {
        dag[i].push_back(ci[k]);
        if (ci[k] == i) attractor[i] = 1;
      }
  }
  // Attractor systems: connected components of the attractors (edges either way), numbered by
  // their smallest node.
  std::vector<std::vector<Index>> sym(N);
  for (Index i = 0; i < n; ++i)
    if (attractor[i])
      for (Index j : dag[i])
        if (j != i && attractor[j]) {
          sym[i].push_back(j);
          sym[j].push_back(i);
        }
  std::vector<Index> cluster_of(N, -1);
  Index n_clusters = 0;
  std::vector<Index> stack;
  for (Index s = 0; s < n; ++s) {
    if (!attractor[s] || cluster_of[s] >= 0) continue;
    cluster_of[s] = n_clusters;
    stack.assign(1, s);
    while (!stack.empty()) {
      const Index u = stack.back();
      stack.pop_back();
      for (Index w : sym[u])
        if (cluster_of[w] < 0) cluster_of[w] = n_clusters, stack.push_back(w);
    }
    ++n_clusters;
  }
  // Every other node joins the lowest-numbered cluster among the attractors it reaches (mcl's
  // overlap mode "cut" keeps a node's first cluster); nodes reaching none form one more.
  std::vector<Index> seen(N, -1);
  bool missing = false;
  std::vector<Index> assigned(cluster_of);
  for (Index d = 0; d < n; ++d) {
    if (attractor[d]) continue;
    Index best = -1;
    stack.assign(dag[d].begin(), dag[d].end());
    for (Index u : stack) seen[u] = d;
    while (!stack.empty()) {
      const Index u = stack.back();
      stack.pop_back();
      if (attractor[u]) best = best < 0 ? cluster_of[u] : std::min(best, cluster_of[u]);
      for (Index w : dag[u])
        if (seen[w] != d) seen[w] = d, stack.push_back(w);
    }
    assigned[d] = best >= 0 ? best : n_clusters;
    missing = missing || best < 0;
  }
  std::vector<std::vector<Index>> clusters(
      static_cast<std::size_t>(n_clusters + (missing ? 1 : 0)));
  for (Index i = 0; i < n; ++i) clusters[static_cast<std::size_t>(assigned[i])].push_back(i);
  std::stable_sort(clusters.begin(), clusters.end(), [](const auto& a, const auto& b) {
    if (a.size() != b.size()) return a.size() > b.size();
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  });
  return clusters;
}

}  // namespace ringblas::mcl
