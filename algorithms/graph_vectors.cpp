// Row views, constant and index vectors, bound apply / select / scalar assign on vectors, and
// function matrices (see graph_vectors.hpp).
#include "algorithms/graph_vectors.hpp"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "ringblas/error.hpp"
#include "ringblas/vector_fill.hpp"

namespace ringblas::algorithms {
namespace {

/// A buffer holding `values` at `where` (one host-to-device copy when where is the device).
template <class T>
Buffer buffer_of(const std::vector<T>& values, Location where, Context& ctx) {
  Buffer host(values.size() * sizeof(T), Location::host);
  if (!values.empty()) std::memcpy(host.data(), values.data(), values.size() * sizeof(T));
  return where == Location::host ? host : host.to(where, ctx);
}

}  // namespace

Matrix row_view(const Vector& v, Context& ctx) {
  // The row pointers {0, nnz} on the device are made there, {0, 1} .* {nnz, nnz}: an upload
  // from the host synchronises the stream (a pageable copy), and a k-core peel makes row views
  // in each of its ~800 rounds on R-MAT scale 22.
  Buffer row_ptr;
  if (v.location() == Location::host) {
    row_ptr = buffer_of(std::vector<Index>{0, v.nnz()}, v.location(), ctx);
  } else {
    Vector rp = new_vector(2, Type::int64, v.location(), ctx);
    ewise_mult(rp, nullptr, no_accum, BinaryOpCode::times, iota_vector(2, v.location(), ctx),
               full_vector<Index>(2, v.nnz(), v.location(), ctx), {}, ctx);
    row_ptr =
        rp.location() == v.location() ? std::move(rp.values()) : rp.values().to(v.location(), ctx);
  }
  return Matrix::from_buffers(1, v.size(), v.type(), IndexType::i64, v.nnz(), std::move(row_ptr),
                              v.indices(), v.values());
}

Vector vector_of_row(const Matrix& row, Context& ctx) {
  if (row.nrows() != 1)
    throw DimensionMismatch("vector_of_row: expected a 1 x n matrix, got " +
                            std::to_string(row.nrows()) + " rows");
  if (row.index_type() != IndexType::i64) {
    const Location where = row.location();
    Matrix wide = (where == Location::host ? row : row.to(Location::host, ctx))
                      .with_index_type(IndexType::i64);
    if (where != Location::host) wide = wide.to(where, ctx);
    return vector_of_row(wide, ctx);
  }
  return Vector::from_buffers(row.ncols(), row.type(), row.nnz(), row.col_idx(), row.values());
}

Vector new_vector(Index n, Type type, Location where, Context& ctx) {
  Vector v(n, type);
  return where == Location::host ? v : v.to(where, ctx);
}

Matrix new_matrix(Index nrows, Index ncols, Type type, Location where, Context& ctx) {
  if (where == Location::host) return Matrix(nrows, ncols, type);
  // Its row pointers (nrows + 1 zeros) filled on the device: copying them from the host would
  // synchronise the stream, once per operation that makes a row view's output.
  return Matrix::from_buffers(nrows, ncols, type, IndexType::i64, 0,
                              std::move(full_vector<Index>(nrows + 1, 0, where, ctx).values()),
                              Buffer(0, where, &ctx), Buffer(0, where, &ctx));
}

Vector constant_vector(Index n, const Scalar& value, Location where, Context& ctx) {
  return visit_type(value.type(), [&](auto t) {
    using T = decltype(t);
    return full_vector<T>(n, value.as<T>(), where, ctx);
  });
}

Vector index_vector(Index n, Location where, Context& ctx) { return iota_vector(n, where, ctx); }

Vector apply_bound(BinaryOpCode op, const Vector& u, const Scalar& s, Context& ctx) {
  Matrix out = new_matrix(1, u.size(), u.type(), u.location(), ctx);
  apply(out, nullptr, no_accum, op, BindSide::second, s, row_view(u, ctx), {}, ctx);
  return vector_of_row(out, ctx);
}

Vector select_vector(SelectOpCode op, const Vector& u, const Scalar& thunk, Context& ctx) {
  Matrix out = new_matrix(1, u.size(), u.type(), u.location(), ctx);
  select(out, nullptr, no_accum, op, thunk, row_view(u, ctx), {}, ctx);
  return vector_of_row(out, ctx);
}

void assign_scalar(Vector& w, const Vector& mask, const Scalar& value, Context& ctx) {
  // Into a full device w (BFS's depth, SSSP's distances) the assign itself: its cuda row is one
  // scatter in place. Otherwise a row view of the mask valued by apply, joined to w: every step
  // runs where w is, where assign's cpu row would move a device w to the host (and on the host
  // a cuda-only context has no row for it).
  if (w.location() == Location::device && mask.location() == Location::device &&
      w.nnz() == w.size()) {
    assign(w, &mask, no_accum, value, structural(), ctx);
    return;
  }
  Matrix valued = new_matrix(1, mask.size(), w.type(), mask.location(), ctx);
  apply(valued, nullptr, no_accum, BinaryOpCode::second, BindSide::second, value,
        row_view(mask, ctx), {}, ctx);
  // The two operands' entries are the same positions or disjoint; `second` keeps the new value.
  Vector out = new_vector(w.size(), w.type(), w.location(), ctx);
  ewise_add(out, nullptr, no_accum, BinaryOpCode::second, w, vector_of_row(valued, ctx), {}, ctx);
  w = std::move(out);
}

FunctionMatrix::FunctionMatrix(Index n, Location where, Context& ctx) : n_(n) {
  // Row pointers 0..n and n trues, made where they are used (no host array on the device).
  row_ptr_ = std::move(iota_vector(n + 1, where, ctx).values());
  ones_ = std::move(full_vector<bool>(n, true, where, ctx).values());
}

Matrix FunctionMatrix::of(const Vector& f) const {
  if (f.size() != n_ || f.nnz() != n_ || f.type() != Type::int64)
    throw InvalidValue("FunctionMatrix: f must be a dense int64 vector of size " +
                       std::to_string(n_));
  return Matrix::from_buffers(n_, n_, Type::boolean, IndexType::i64, n_, row_ptr_, f.values(),
                              ones_);
}

Matrix diagonal_matrix(const std::vector<double>& d, Type type, bool skip_zeros, Index ncols,
                       Index offset) {
  const Index n = static_cast<Index>(d.size());
  std::vector<Index> rp(d.size() + 1, 0), ci;
  std::vector<double> v;
  for (Index i = 0; i < n; ++i) {
    const double x = d[static_cast<std::size_t>(i)];
    if (!(skip_zeros && x == 0.0)) {
      ci.push_back(offset + i);
      v.push_back(x);
    }
    rp[static_cast<std::size_t>(i) + 1] = static_cast<Index>(ci.size());
  }
  return Matrix::from_csr(n, ncols < 0 ? n : ncols, rp, ci, v).cast(type);
}

}  // namespace ringblas::algorithms
