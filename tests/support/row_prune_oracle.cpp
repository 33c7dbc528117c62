// mcl's row pruning as a chain of GraphBLAS operations (see row_prune_oracle.hpp).
#include "support/row_prune_oracle.hpp"

#include <algorithm>

#include "algorithms/graph_vectors.hpp"

namespace ringblas::test {

namespace {

std::vector<double> to_dense(const Vector& w, Index n, double fill, Context& ctx) {
  const Vector h =
      (w.location() == Location::host ? w : w.to(Location::host, ctx)).cast(Type::fp64);
  std::vector<double> out(static_cast<std::size_t>(n), fill);
  const std::vector<Index> idx = h.indices_vector();
  const std::vector<double> val = h.values_vector<double>();
  for (std::size_t k = 0; k < idx.size(); ++k) out[static_cast<std::size_t>(idx[k])] = val[k];
  return out;
}

class Chain {
 public:
  Chain(Type t, Context& ctx) : t_(t), ctx_(ctx) {}
  std::vector<double> reduce_rows(MonoidCode m, const Matrix& X, double fill) const {
    Vector w(X.nrows(), X.type());
    reduce(w, nullptr, no_accum, m, X, ReduceDim::rows, {}, ctx_);
    return to_dense(w, X.nrows(), fill, ctx_);
  }
  std::vector<double> count_rows(const Matrix& X) const {
    Matrix ones(X.nrows(), X.ncols(), Type::fp64);
    apply(ones, nullptr, no_accum, UnaryOpCode::one, X, {}, ctx_);
    return reduce_rows(MonoidCode::plus, ones, 0.0);
  }
  Matrix diagonal(const std::vector<double>& d, bool skip_zeros = false, Index ncols = -1,
                  Index offset = 0) const {
    return algorithms::diagonal_matrix(d, t_, skip_zeros, ncols, offset);
  }
  Matrix broadcast(const std::vector<double>& t, const Matrix& X) const {
    Matrix B(X.nrows(), X.ncols(), t_);
    mxm(B, nullptr, no_accum, semiring("plus_first", t_), diagonal(t), X, {}, ctx_);
    return B;
  }
  Matrix keep_at_least(const Matrix& X, const std::vector<double>& t) const {
    Matrix diff(X.nrows(), X.ncols(), t_), keep(X.nrows(), X.ncols(), t_);
    ewise_mult(diff, nullptr, no_accum, BinaryOpCode::minus, X, broadcast(t, X), {}, ctx_);
    select(keep, nullptr, no_accum, SelectOpCode::value_ge, Scalar(0.0), diff, {}, ctx_);
    return masked_copy(X, keep, true);
  }
  Matrix rows(const Matrix& X, const std::vector<double>& take) const {
    return masked_copy(X, broadcast(take, X), false);
  }
  Matrix top_with_ties(const Matrix& X, Index k) const {
    Matrix top(X.nrows(), X.ncols(), t_);
    select(top, nullptr, no_accum, SelectOpCode::row_topk, Scalar(k), X, {}, ctx_);
    return keep_at_least(X, reduce_rows(MonoidCode::min, top, 0.0));
  }
  Matrix unite(const Matrix& A, const Matrix& B) const {
    Matrix C(A.nrows(), A.ncols(), t_);
    ewise_add(C, nullptr, no_accum, BinaryOpCode::first, A, B, {}, ctx_);
    return C;
  }

 private:
  Matrix masked_copy(const Matrix& X, const Matrix& mask, bool structural) const {
    Matrix C(X.nrows(), X.ncols(), t_);
    Descriptor d;
    d.mask_structure = structural;
    apply(C, &mask, no_accum, UnaryOpCode::identity, X, d, ctx_);
    return C;
  }
  Type t_;
  Context& ctx_;
};

}  // namespace

PrunedRows prune_by_existing_ops(const Matrix& E, const RowPrune& r, Context& ctx) {
  const Type t = E.type();
  const Index m = E.nrows(), n = E.ncols();
  const Chain ops(t, ctx);
  PrunedRows out;
  out.max = ops.reduce_rows(MonoidCode::max, E, 0.0);
  Matrix sq(m, n, t);
  ewise_mult(sq, nullptr, no_accum, BinaryOpCode::times, E, E, {}, ctx);
  out.sumsq = ops.reduce_rows(MonoidCode::plus, sq, 0.0);

  const Index R = r.recover, S = r.select;
  Matrix P(m, n, t);
  select(P, nullptr, no_accum, SelectOpCode::value_ge, Scalar(r.threshold), E, {}, ctx);
  const std::vector<double> np = ops.count_rows(P), mp = ops.reduce_rows(MonoidCode::plus, P, 0.0);
  std::vector<double> recover(m, 0.0), choose(m, 0.0), plain(m, 0.0), empty(m, 0.0);
  for (std::size_t i = 0; i < static_cast<std::size_t>(m); ++i) {
    if (R > 0 && np[i] < double(R) && mp[i] < r.recover_mass)
      recover[i] = 1;
    else if (S > 0 && np[i] > double(S))
      choose[i] = 1;
    else
      plain[i] = 1;
    if (r.loop_if_empty && plain[i] && np[i] == 0) empty[i] = 1;
  }
  const auto count = [](const std::vector<double>& v) {
    return static_cast<Index>(std::count(v.begin(), v.end(), 1.0));
  };
  out.recovered = count(recover);
  out.selected = count(choose);
  Matrix F = ops.rows(P, plain);
  if (out.recovered) F = ops.unite(F, ops.top_with_ties(ops.rows(E, recover), R));
  if (out.selected) {
    const Matrix Ps = ops.rows(P, choose);
    const Matrix Ss = ops.top_with_ties(Ps, S);
    const std::vector<double> ns = ops.count_rows(Ss),
                              ms = ops.reduce_rows(MonoidCode::plus, Ss, 0.0);
    std::vector<double> again(m, 0.0), keep(m, 0.0);
    for (std::size_t i = 0; i < static_cast<std::size_t>(m); ++i) {
      if (!choose[i]) continue;
      if (R > 0 && ns[i] < double(R) && ms[i] < r.recover_mass)
        again[i] = 1;
      else
        keep[i] = 1;
    }
    out.recovered += count(again);
    if (count(again)) F = ops.unite(F, ops.top_with_ties(ops.rows(Ps, again), R));
    F = ops.unite(F, ops.rows(Ss, keep));
  }
  if (count(empty)) F = ops.unite(F, ops.diagonal(empty, true, n, r.diagonal_offset));
  out.F = F.location() == Location::host ? F : F.to(Location::host, ctx);
  return out;
}

}  // namespace ringblas::test
