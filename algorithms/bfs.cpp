// Direction-optimising BFS on the public API (see bfs.hpp for the method).
#include "algorithms/bfs.hpp"

#include <string>
#include <utility>
#include <vector>

#include "algorithms/graph_vectors.hpp"

namespace ringblas::algorithms {

BfsResult bfs(const Matrix& A, Index source, const BfsOptions& opt, Context& ctx) {
  const Index n = A.nrows();
  if (A.ncols() != n)
    throw DimensionMismatch("bfs: A must be square, it is " + std::to_string(n) + " x " +
                            std::to_string(A.ncols()));
  if (source < 0 || source >= n)
    throw InvalidIndex("bfs: source " + std::to_string(source) + " out of range 0.." +
                       std::to_string(n - 1));
  const Location where = location_of(A);
  const Type ftype = opt.parents ? Type::int64 : Type::boolean;
  const Semiring step =
      opt.parents ? semiring("any_secondi", Type::int64) : semiring("any_pair", Type::boolean);

  BfsResult r;
  auto single = [&](Type t, const Scalar& v) {
    Vector e = visit_type(t, [&](auto x) {
      using T = decltype(x);
      return Vector::from_entries<T>(n, {source}, {v.as<T>()});
    });
    return where == Location::host ? e : e.to(where, ctx);
  };
  // Full vectors (every position stored): d = level + 1 (0: not visited yet), parent (-1: none
  // yet). Assigning into a full vector keeps its structure (an element-wise union with a full
  // operand), so no update below reads anything back.
  auto updated = [&](const Vector& full, BinaryOpCode op, const Vector& u) {
    Vector w = new_vector(n, full.type(), where, ctx);
    ewise_add(w, nullptr, no_accum, op, full, u, {}, ctx);
    return w;
  };
  Vector q = single(ftype, opt.parents ? Scalar(source) : Scalar(true));
  Vector depth = constant_vector(n, Index{0}, where, ctx);
  assign_scalar(depth, q, Index{1}, ctx);
  Vector parent;
  if (opt.parents)
    parent = updated(constant_vector(n, Index{-1}, where, ctx), BinaryOpCode::second, q);

  std::optional<Matrix> own_transpose;
  const Matrix* at = opt.symmetric ? &A : opt.transposed;
  Descriptor unvisited;  // ⟨¬d, replace⟩ with d's values (0: not visited) as the mask
  unvisited.mask_complement = true;
  unvisited.replace = true;
  bool pull = false;
  Index visited_count = 1;
  // Beamer's edge counts (opt.edge_counts): deg = A +.pair 1, m_u = edges not yet explored.
  std::optional<Vector> own_degree;
  const Vector* deg = opt.out_degree;
  if (deg && (deg->size() != n || deg->type() != Type::int64))
    throw DimensionMismatch("bfs: out_degree must be an int64 vector of size " + std::to_string(n));
  double edges_unexplored = double(A.nnz());
  Index previous_nq = 0;
  for (Index k = 1; q.nnz() > 0; ++k) {
    const Index nq = q.nnz();
    if (opt.direction_optimizing) {
      if (!pull && opt.edge_counts) {
        if (nq > previous_nq) {  // growing: m_f = Σ_{i ∈ q} deg(i)
          if (!deg) {
            own_degree = new_vector(n, Type::int64, where, ctx);
            mxv(*own_degree, nullptr, no_accum, semiring("plus_pair", Type::int64), A,
                constant_vector(n, Index{0}, where, ctx), {}, ctx);
            deg = &*own_degree;
          }
          Vector fd = new_vector(n, Type::int64, where, ctx);
          ewise_mult(fd, nullptr, no_accum, BinaryOpCode::second, q, *deg, {}, ctx);
          const double edges_frontier = double(reduce(MonoidCode::plus, fd, ctx).as<Index>());
          pull = edges_frontier > edges_unexplored / opt.alpha;
          edges_unexplored -= edges_frontier;
        }
      } else if (!pull && double(nq) > double(n - visited_count) / opt.alpha) {
        pull = true;
      } else if (pull && double(nq) < double(n) / opt.beta) {
        pull = false;
      }
    }
    previous_nq = nq;
    Vector next = new_vector(n, ftype, where, ctx);
    if (pull) {
      if (!at) {
        own_transpose = new_matrix(n, n, A.type(), where, ctx);
        transpose(*own_transpose, nullptr, no_accum, A, {}, ctx);
        at = &*own_transpose;
      }
      mxv(next, &depth, no_accum, step, *at, q, unvisited, ctx);
      ++r.pull_steps;
    } else {
      vxm(next, &depth, no_accum, step, q, A, unvisited, ctx);
      ++r.push_steps;
    }
    q = std::move(next);
    if (q.nnz() == 0) break;
    visited_count += q.nnz();
    assign_scalar(depth, q, k + 1, ctx);
    if (opt.parents) parent = updated(parent, BinaryOpCode::second, q);
  }
  // level = d - 1 on the visited vertices (d > 0).
  r.level = apply_bound(BinaryOpCode::minus,
                        select_vector(SelectOpCode::value_gt, depth, Index{0}, ctx), Index{1}, ctx);
  if (opt.parents) r.parent = select_vector(SelectOpCode::value_ge, parent, Index{0}, ctx);
  return r;
}

}  // namespace ringblas::algorithms
