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
  r.level = single(Type::int64, Index{0});
  if (opt.parents) r.parent = single(Type::int64, source);
  Vector q = single(ftype, opt.parents ? Scalar(source) : Scalar(true));

  std::optional<Matrix> own_transpose;
  const Matrix* at = opt.symmetric ? &A : opt.transposed;
  const Descriptor unvisited = structural(/*complement=*/true, /*replace=*/true);
  bool pull = false;
  Index visited = 1;
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
      } else if (!pull && double(nq) > double(n - visited) / opt.alpha) {
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
      mxv(next, &r.level, no_accum, step, *at, q, unvisited, ctx);
      ++r.pull_steps;
    } else {
      vxm(next, &r.level, no_accum, step, q, A, unvisited, ctx);
      ++r.push_steps;
    }
    q = std::move(next);
    if (q.nnz() == 0) break;
    visited += q.nnz();
    assign_scalar(r.level, q, k, ctx);
    if (opt.parents) {
      Vector p = new_vector(n, Type::int64, where, ctx);
      ewise_add(p, nullptr, no_accum, BinaryOpCode::second, *r.parent, q, {}, ctx);
      r.parent = std::move(p);
    }
  }
  return r;
}

}  // namespace ringblas::algorithms
