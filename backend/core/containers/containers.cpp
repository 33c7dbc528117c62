// COO matrix, dense matrix, sparse and dense vectors: construction, copies and conversions.
#include <cstring>
#include <string>

#include "backend/core/containers/host_access.hpp"
#include "backend/core/containers/triplets.hpp"
#include "ringblas/context.hpp"
#include "ringblas/error.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas {

using detail::require_host;

namespace {
template <class T> Buffer host_buffer_of(const std::vector<T>& v) {
  Buffer b(sizeof(T) * v.size(), Location::host);
  for (std::size_t k = 0; k < v.size(); ++k) b.as<T>()[k] = v[k];
  return b;
}
Buffer zero_buffer(std::size_t bytes) {
  Buffer b(bytes, Location::host);
  if (bytes) std::memset(b.data(), 0, bytes);
  return b;
}
}  // namespace

// ---- CooMatrix -----------------------------------------------------------------------------

template <class T>
CooMatrix CooMatrix::from_triplets(Index nrows, Index ncols, const std::vector<Index>& rows,
                                   const std::vector<Index>& cols, const std::vector<T>& values) {
  if (rows.size() != cols.size() || rows.size() != values.size())
    throw InvalidValue("CooMatrix::from_triplets: rows, cols and values have different lengths");
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (rows[k] < 0 || rows[k] >= nrows || cols[k] < 0 || cols[k] >= ncols)
      throw InvalidIndex("CooMatrix::from_triplets: entry " + std::to_string(k) + " (" +
                         std::to_string(rows[k]) + ", " + std::to_string(cols[k]) +
                         ") outside " + std::to_string(nrows) + "x" + std::to_string(ncols));
  return from_buffers(nrows, ncols, type_of_v<T>, Index(rows.size()), host_buffer_of(rows),
                      host_buffer_of(cols), host_buffer_of(values));
}

CooMatrix CooMatrix::from_buffers(Index nrows, Index ncols, Type type, Index nnz, Buffer rows,
                                  Buffer cols, Buffer values) {
  if (rows.size() < sizeof(Index) * std::size_t(nnz) || cols.size() < sizeof(Index) * std::size_t(nnz) ||
      values.size() < type_size(type) * std::size_t(nnz))
    throw InvalidValue("CooMatrix::from_buffers: buffers smaller than " + std::to_string(nnz) + " entries");
  CooMatrix c(nrows, ncols, type);
  c.nnz_ = nnz;
  c.rows_ = std::move(rows);
  c.cols_ = std::move(cols);
  c.values_ = std::move(values);
  return c;
}

CooMatrix CooMatrix::from_csr(const Matrix& a, const Context& ctx) {
  Matrix h = a.to(Location::host, ctx);
  std::vector<Index> rows(static_cast<std::size_t>(h.nnz()));
  auto rp = h.row_ptr_vector();
  for (Index i = 0; i < h.nrows(); ++i)
    for (Index k = rp[i]; k < rp[i + 1]; ++k) rows[k] = i;
  CooMatrix c = from_buffers(h.nrows(), h.ncols(), h.type(), h.nnz(), host_buffer_of(rows),
                             host_buffer_of(h.col_idx_vector()), h.values());
  return a.location() == Location::host ? c : c.to(a.location(), ctx);
}

Matrix CooMatrix::to_csr(Dup dup, IndexType itype) const {
  require_host(location(), "CooMatrix::to_csr");
  std::vector<Index> r(rows_.as<Index>(), rows_.as<Index>() + nnz_),
      c(cols_.as<Index>(), cols_.as<Index>() + nnz_);
  return visit_type(type_, [&](auto v) {
    using T = decltype(v);
    std::vector<T> vals(static_cast<std::size_t>(nnz_));
    for (Index k = 0; k < nnz_; ++k) vals[k] = values_.as<T>()[k];
    return detail::build_csr(nrows_, ncols_, r, c, vals, dup, itype, "CooMatrix::to_csr");
  });
}

CooMatrix CooMatrix::to(Location where, const Context& ctx) const {
  CooMatrix c = *this;
  if (where == location()) return c;
  c.rows_ = rows_.to(where, ctx);
  c.cols_ = cols_.to(where, ctx);
  c.values_ = values_.to(where, ctx);
  return c;
}

// ---- DenseMatrix ---------------------------------------------------------------------------

DenseMatrix::DenseMatrix(Index nrows, Index ncols, Type type, Layout layout)
    : nrows_(nrows), ncols_(ncols), type_(type), layout_(layout) {
  if (nrows < 0 || ncols < 0) throw InvalidValue("DenseMatrix: negative dimension");
  values_ = zero_buffer(type_size(type) * std::size_t(nrows) * std::size_t(ncols));
}

template <class T>
DenseMatrix DenseMatrix::from_values(Index nrows, Index ncols, const std::vector<T>& values,
                                     Layout layout) {
  if (Index(values.size()) != nrows * ncols)
    throw InvalidValue("DenseMatrix::from_values: " + std::to_string(values.size()) +
                       " values for a " + std::to_string(nrows) + "x" + std::to_string(ncols) +
                       " matrix");
  return from_buffer(nrows, ncols, type_of_v<T>, layout, host_buffer_of(values));
}

DenseMatrix DenseMatrix::from_buffer(Index nrows, Index ncols, Type type, Layout layout,
                                     Buffer values) {
  if (values.size() != type_size(type) * std::size_t(nrows) * std::size_t(ncols))
    throw InvalidValue("DenseMatrix::from_buffer: buffer size does not match the dimensions");
  DenseMatrix d;
  d.nrows_ = nrows;
  d.ncols_ = ncols;
  d.type_ = type;
  d.layout_ = layout;
  d.values_ = std::move(values);
  return d;
}

DenseMatrix DenseMatrix::to(Location where, const Context& ctx) const {
  DenseMatrix d = *this;
  if (where != location()) d.values_ = values_.to(where, ctx);
  return d;
}

template <class T> T DenseMatrix::at(Index i, Index j) const {
  require_host(location(), "DenseMatrix::at");
  const Index k = layout_ == Layout::row_major ? i * ncols_ + j : j * nrows_ + i;
  return detail::value_at<T>(values_, type_, k);
}

Matrix DenseMatrix::to_sparse() const {
  require_host(location(), "DenseMatrix::to_sparse");
  std::vector<Index> r, c;
  r.reserve(std::size_t(nrows_ * ncols_));
  c.reserve(std::size_t(nrows_ * ncols_));
  for (Index i = 0; i < nrows_; ++i)
    for (Index j = 0; j < ncols_; ++j) r.push_back(i), c.push_back(j);
  return visit_type(type_, [&](auto v) {
    using T = decltype(v);
    std::vector<T> vals;
    vals.reserve(r.size());
    for (std::size_t k = 0; k < r.size(); ++k) vals.push_back(at<T>(r[k], c[k]));
    return Matrix::from_triplets(nrows_, ncols_, r, c, vals);
  });
}

// ---- Vector --------------------------------------------------------------------------------

Vector::Vector(Index size, Type type) : size_(size), type_(type) {
  if (size < 0) throw InvalidValue("Vector: negative size");
  indices_ = Buffer(0, Location::host);
  values_ = Buffer(0, Location::host);
}

template <class T>
Vector Vector::from_entries(Index size, const std::vector<Index>& indices,
                            const std::vector<T>& values, Dup dup) {
  std::vector<Index> zeros(indices.size(), 0);
  Matrix m = detail::build_csr(1, size, zeros, indices, values, dup, IndexType::i64,
                               "Vector::from_entries");
  return from_buffers(size, type_of_v<T>, m.nnz(), m.col_idx(), m.values());
}

template <class T> Vector Vector::dense(const std::vector<T>& values) {
  std::vector<Index> idx(values.size());
  for (std::size_t k = 0; k < idx.size(); ++k) idx[k] = Index(k);
  return from_entries(Index(values.size()), idx, values);
}

Vector Vector::from_buffers(Index size, Type type, Index nnz, Buffer indices, Buffer values) {
  if (indices.size() < sizeof(Index) * std::size_t(nnz) || values.size() < type_size(type) * std::size_t(nnz))
    throw InvalidValue("Vector::from_buffers: buffers smaller than " + std::to_string(nnz) + " entries");
  if (indices.location() != values.location())
    throw InvalidValue("Vector::from_buffers: buffers live in different locations");
  Vector v(size, type);
  v.nnz_ = nnz;
  v.indices_ = std::move(indices);
  v.values_ = std::move(values);
  return v;
}

Vector Vector::to(Location where, const Context& ctx) const {
  Vector v = *this;
  if (where == location()) return v;
  v.indices_ = indices_.to(where, ctx);
  v.values_ = values_.to(where, ctx);
  return v;
}

Vector Vector::cast(Type t) const {
  require_host(location(), "Vector::cast");
  if (t == type_) return *this;
  Vector v = *this;
  v.type_ = t;
  v.values_ = detail::cast_values(values_, type_, t, nnz_);
  return v;
}

std::vector<Index> Vector::indices_vector() const {
  require_host(location(), "Vector::indices_vector");
  return std::vector<Index>(indices_.as<Index>(), indices_.as<Index>() + nnz_);
}

template <class T> std::vector<T> Vector::values_vector() const {
  require_host(location(), "Vector::values_vector");
  return detail::values_of<T>(values_, type_, nnz_);
}

void Vector::check_invariants() const {
  require_host(location(), "Vector::check_invariants");
  const Index* idx = indices_.as<Index>();
  for (Index k = 0; k < nnz_; ++k) {
    if (idx[k] < 0 || idx[k] >= size_)
      throw InvalidIndex("Vector: index " + std::to_string(idx[k]) + " out of range 0.." +
                         std::to_string(size_ - 1));
    if (k > 0 && idx[k] <= idx[k - 1])
      throw InvalidValue("Vector: index " + std::to_string(idx[k]) + " repeated or out of order");
  }
}

// ---- DenseVector ---------------------------------------------------------------------------

DenseVector::DenseVector(Index size, Type type) : size_(size), type_(type) {
  if (size < 0) throw InvalidValue("DenseVector: negative size");
  values_ = zero_buffer(type_size(type) * std::size_t(size));
}

template <class T> DenseVector DenseVector::from_values(const std::vector<T>& values) {
  DenseVector d(Index(values.size()), type_of_v<T>);
  d.values_ = host_buffer_of(values);
  return d;
}

DenseVector DenseVector::to(Location where, const Context& ctx) const {
  DenseVector d = *this;
  if (where != location()) d.values_ = values_.to(where, ctx);
  return d;
}

Vector DenseVector::to_sparse() const {
  require_host(location(), "DenseVector::to_sparse");
  std::vector<Index> idx(static_cast<std::size_t>(size_));
  for (Index k = 0; k < size_; ++k) idx[k] = k;
  return Vector::from_buffers(size_, type_, size_, host_buffer_of(idx), values_);
}

#define RINGBLAS_INSTANTIATE(T)                                                                  \
  template CooMatrix CooMatrix::from_triplets<T>(Index, Index, const std::vector<Index>&,        \
                                                 const std::vector<Index>&, const std::vector<T>&); \
  template DenseMatrix DenseMatrix::from_values<T>(Index, Index, const std::vector<T>&, Layout); \
  template T DenseMatrix::at<T>(Index, Index) const;                                             \
  template Vector Vector::from_entries<T>(Index, const std::vector<Index>&, const std::vector<T>&, \
                                          Dup);                                                  \
  template Vector Vector::dense<T>(const std::vector<T>&);                                       \
  template std::vector<T> Vector::values_vector<T>() const;                                      \
  template DenseVector DenseVector::from_values<T>(const std::vector<T>&);
RINGBLAS_INSTANTIATE(bool)
RINGBLAS_INSTANTIATE(std::int32_t)
RINGBLAS_INSTANTIATE(std::int64_t)
RINGBLAS_INSTANTIATE(float)
RINGBLAS_INSTANTIATE(double)
#undef RINGBLAS_INSTANTIATE

}  // namespace ringblas
