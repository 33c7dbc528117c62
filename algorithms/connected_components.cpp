// FastSV connected components on the public API (see connected_components.hpp for the method).
#include "algorithms/connected_components.hpp"

#include <string>
#include <utility>

#include "algorithms/graph_vectors.hpp"

namespace ringblas::algorithms {

ComponentsResult connected_components(const Matrix& A, Context& ctx) {
  const Index n = A.nrows();
  if (A.ncols() != n)
    throw DimensionMismatch("connected_components: A must be square, it is " + std::to_string(n) +
                            " x " + std::to_string(A.ncols()));
  const Location where = location_of(A);
  const FunctionMatrix functions(n, where, ctx);
  const Semiring min_second = semiring("min_second", Type::int64);
  Descriptor transposed;
  transposed.transpose_a = true;

  ComponentsResult r;
  Vector& f = r.label;
  f = index_vector(n, where, ctx);
  Vector gp = f, mngp = f;
  for (bool changed = n > 0; changed;) {
    ++r.iterations;
    mxv(mngp, nullptr, BinaryOpCode::min, min_second, A, gp, {}, ctx);
    const Matrix F = functions.of(f);
    mxv(f, nullptr, BinaryOpCode::min, min_second, F, mngp, transposed, ctx);
    ewise_add(f, nullptr, BinaryOpCode::min, BinaryOpCode::min, mngp, gp, {}, ctx);
    Vector next = new_vector(n, Type::int64, where, ctx);
    Vector diff = new_vector(n, Type::int64, where, ctx);
    Vector absdiff = new_vector(n, Type::int64, where, ctx);
    mxv(next, nullptr, no_accum, min_second, functions.of(f), f, {}, ctx);
    ewise_add(diff, nullptr, no_accum, BinaryOpCode::minus, next, gp, {}, ctx);
    apply(absdiff, nullptr, no_accum, UnaryOpCode::abs, diff, {}, ctx);
    changed = reduce(MonoidCode::max, absdiff, ctx).as<Index>() != 0;
    gp = std::move(next);
  }
  return r;
}

}  // namespace ringblas::algorithms
