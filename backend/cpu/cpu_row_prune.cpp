// mxm_prune_rows on the cpu: T = A ⊕.⊗ B by SuiteSparse (cpu::mxm), then every row of T pruned
// by the rule (decisions in backend/core/row_prune_rule.hpp, shared with the cuda kernel). The
// k-th largest value comes from std::nth_element; ties at it are kept.
#include "backend/cpu/cpu_row_prune.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "backend/core/row_prune_rule.hpp"
#include "backend/cpu/cpu_backend.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cpu {

namespace {

/// The k-th largest of `c` (k >= 1), or nullopt-like `all` when c has at most k values (every
/// value is then kept).
template <class T>
bool kth_largest(std::vector<T>& c, Index k, T& out) {
  if (Index(c.size()) <= k) return false;
  std::nth_element(c.begin(), c.begin() + (k - 1), c.end(), std::greater<T>());
  out = c[std::size_t(k - 1)];
  return true;
}

template <class T>
void prune_rows(const Matrix& E, const RowPrune& r, Matrix& C, RowPruneStats* stats) {
  const Index m = E.nrows(), n = E.ncols();
  const std::vector<Index> rp = E.row_ptr_vector(), ci = E.col_idx_vector();
  const std::vector<T> v = E.values_vector<T>();
  detail::prune_rule rule{r.threshold,    r.select,        r.recover,
                          r.recover_mass, r.loop_if_empty, r.diagonal_offset};
  const T cut = static_cast<T>(r.threshold);
  std::vector<Index> orp(std::size_t(m) + 1, 0), oci;
  std::vector<T> ov, rmax(std::size_t(m), T(0)), rsq(std::size_t(m), T(0));
  Index selected = 0, recovered = 0;
  std::vector<T> cand;
  for (Index i = 0; i < m; ++i) {
    const Index b = rp[std::size_t(i)], e = rp[std::size_t(i) + 1];
    T mx = T(0), sq = T(0), mp = T(0);
    Index np = 0;
    for (Index k = b; k < e; ++k) {
      const T x = v[std::size_t(k)];
      mx = k == b ? x : std::max(mx, x);
      sq += x * x;
      if (x >= cut) ++np, mp += x;
    }
    rmax[std::size_t(i)] = mx;
    rsq[std::size_t(i)] = sq;
    // Every branch keeps the entries >= `bar` (and >= cut unless `all_of_e`).
    bool all_of_e = false;
    T bar = cut;
    const auto gather = [&](bool only_p) {
      cand.clear();
      for (Index k = b; k < e; ++k)
        if (!only_p || v[std::size_t(k)] >= cut) cand.push_back(v[std::size_t(k)]);
    };
    switch (detail::first_branch(rule, np, double(mp))) {
      case detail::prune_branch::keep:
        break;
      case detail::prune_branch::loop:
        oci.push_back(r.diagonal_offset + i);
        ov.push_back(T(1));
        orp[std::size_t(i) + 1] = Index(oci.size());
        continue;
      case detail::prune_branch::recover_all: {
        ++recovered;
        gather(false);
        all_of_e = true;
        T t;
        bar = kth_largest(cand, r.recover, t) ? t : std::numeric_limits<T>::lowest();
        break;
      }
      case detail::prune_branch::select: {
        ++selected;
        gather(true);
        T vs;
        kth_largest(cand, r.select, vs);  // np > select: there is a select-th largest
        Index ns = 0;
        T ms = T(0);
        for (Index k = b; k < e; ++k)
          if (v[std::size_t(k)] >= vs) ++ns, ms += v[std::size_t(k)];
        bar = vs;
        if (detail::recover_after_select(rule, ns, double(ms))) {
          ++recovered;
          gather(true);
          T t;
          bar = kth_largest(cand, r.recover, t) ? t : cut;
        }
        break;
      }
    }
    for (Index k = b; k < e; ++k) {
      const T x = v[std::size_t(k)];
      if (x >= bar && (all_of_e || x >= cut)) {
        oci.push_back(ci[std::size_t(k)]);
        ov.push_back(x);
      }
    }
    orp[std::size_t(i) + 1] = Index(oci.size());
  }
  C = Matrix::from_csr(m, n, orp, oci, ov);
  if (stats) {
    stats->row_max = Vector::dense(rmax);
    stats->row_sumsq = Vector::dense(rsq);
    stats->expanded_nnz = E.nnz();
    stats->rows_selected = selected;
    stats->rows_recovered = recovered;
  }
}

}  // namespace

void mxm_prune_rows(Matrix& C, const Semiring& s, const Matrix& A, const Matrix& B,
                    const RowPrune& rule, RowPruneStats* stats, const Descriptor& d, Context& ctx) {
  Descriptor pd;
  pd.transpose_a = d.transpose_a;
  pd.transpose_b = d.transpose_b;
  Matrix E(d.transpose_a ? A.ncols() : A.nrows(), d.transpose_b ? B.nrows() : B.ncols(), s.type);
  cpu::mxm(E, nullptr, no_accum, s, A, B, pd, ctx);
  switch (s.type) {
    case Type::fp32:
      return prune_rows<float>(E, rule, C, stats);
    case Type::fp64:
      return prune_rows<double>(E, rule, C, stats);
    case Type::int32:
      return prune_rows<std::int32_t>(E, rule, C, stats);
    case Type::int64:
      return prune_rows<std::int64_t>(E, rule, C, stats);
    default:
      throw NotImplemented("mxm_prune_rows (suitesparse): values of type " +
                           std::string(type_name(s.type)) + " have no order to prune by");
  }
}

}  // namespace ringblas::cpu
