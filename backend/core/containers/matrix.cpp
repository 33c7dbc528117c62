// Sparse CSR matrix: construction, validation, explicit copies, casts, host accessors.
#include "ringblas/matrix.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

#include "backend/core/containers/host_access.hpp"
#include "backend/core/containers/triplets.hpp"
#include "ringblas/context.hpp"
#include "ringblas/error.hpp"

namespace ringblas {

using detail::index_at;
using detail::require_host;

namespace {
void check_dims(Index nrows, Index ncols, const char* what) {
  if (nrows < 0 || ncols < 0)
    throw InvalidValue(std::string(what) + ": negative dimension " + std::to_string(nrows) + "x" +
                       std::to_string(ncols));
}
}  // namespace

Matrix::Matrix(Index nrows, Index ncols, Type type, IndexType itype)
    : nrows_(nrows), ncols_(ncols), type_(type), itype_(itype) {
  check_dims(nrows, ncols, "Matrix");
  if (itype == IndexType::i32 && nrows >= (Index(1) << 31))
    throw InvalidValue("Matrix: " + std::to_string(nrows) + " rows do not fit 32-bit indices");
  row_ptr_ = Buffer(index_size(itype) * std::size_t(nrows + 1), Location::host);
  std::memset(row_ptr_.data(), 0, row_ptr_.size());
  col_idx_ = Buffer(0, Location::host);
  values_ = Buffer(0, Location::host);
}

template <class T, class I>
Matrix Matrix::from_csr(Index nrows, Index ncols, const std::vector<I>& row_ptr,
                        const std::vector<I>& col_idx, const std::vector<T>& values) {
  check_dims(nrows, ncols, "Matrix::from_csr");
  if (Index(row_ptr.size()) != nrows + 1)
    throw InvalidValue("Matrix::from_csr: row_ptr has " + std::to_string(row_ptr.size()) +
                       " entries, expected nrows+1 = " + std::to_string(nrows + 1));
  const Index nnz = row_ptr.empty() ? 0 : Index(row_ptr.back());
  if (Index(col_idx.size()) != nnz || Index(values.size()) != nnz)
    throw InvalidValue("Matrix::from_csr: row_ptr ends at " + std::to_string(nnz) + " but col_idx has " +
                       std::to_string(col_idx.size()) + " and values " +
                       std::to_string(values.size()) + " entries");
  constexpr IndexType it = index_type_of<I>::value;
  Buffer rp(sizeof(I) * row_ptr.size(), Location::host), ci(sizeof(I) * col_idx.size(), Location::host),
      va(sizeof(T) * values.size(), Location::host);
  std::copy(row_ptr.begin(), row_ptr.end(), rp.as<I>());
  std::copy(col_idx.begin(), col_idx.end(), ci.as<I>());
  for (std::size_t k = 0; k < values.size(); ++k) va.as<T>()[k] = values[k];
  Matrix m = from_buffers(nrows, ncols, type_of_v<T>, it, nnz, std::move(rp), std::move(ci), std::move(va));
  m.check_invariants();
  return m;
}

template <class T>
Matrix Matrix::from_triplets(Index nrows, Index ncols, const std::vector<Index>& rows,
                             const std::vector<Index>& cols, const std::vector<T>& values, Dup dup,
                             IndexType itype) {
  check_dims(nrows, ncols, "Matrix::from_triplets");
  return detail::build_csr(nrows, ncols, rows, cols, values, dup, itype, "Matrix::from_triplets");
}

Matrix Matrix::from_buffers(Index nrows, Index ncols, Type type, IndexType itype, Index nnz,
                            Buffer row_ptr, Buffer col_idx, Buffer values) {
  check_dims(nrows, ncols, "Matrix::from_buffers");
  const auto isz = index_size(itype);
  if (row_ptr.size() != isz * std::size_t(nrows + 1) || col_idx.size() < isz * std::size_t(nnz) ||
      values.size() < type_size(type) * std::size_t(nnz))
    throw InvalidValue("Matrix::from_buffers: buffer sizes do not match " + std::to_string(nrows) +
                       " rows and " + std::to_string(nnz) + " entries");
  if (row_ptr.location() != col_idx.location() || row_ptr.location() != values.location())
    throw InvalidValue("Matrix::from_buffers: buffers live in different locations");
  Matrix m;
  m.nrows_ = nrows;
  m.ncols_ = ncols;
  m.nnz_ = nnz;
  m.type_ = type;
  m.itype_ = itype;
  m.row_ptr_ = std::move(row_ptr);
  m.col_idx_ = std::move(col_idx);
  m.values_ = std::move(values);
  return m;
}

Matrix Matrix::to(Location where, const Context& ctx) const {
  Matrix m = *this;
  if (where == location()) return m;
  m.row_ptr_ = row_ptr_.to(where, ctx);
  m.col_idx_ = col_idx_.to(where, ctx);
  m.values_ = values_.to(where, ctx);
  return m;
}

Matrix Matrix::cast(Type t) const {
  require_host(location(), "Matrix::cast");
  if (t == type_) return *this;
  Matrix m = *this;
  m.type_ = t;
  m.values_ = detail::cast_values(values_, type_, t, nnz_);
  return m;
}

Matrix Matrix::with_index_type(IndexType t) const {
  require_host(location(), "Matrix::with_index_type");
  if (t == itype_) return *this;
  if (t == IndexType::i32 && (nnz_ >= (Index(1) << 31) || ncols_ >= (Index(1) << 31) ||
                              nrows_ >= (Index(1) << 31)))
    throw InvalidValue("Matrix::with_index_type: " + std::to_string(nnz_) +
                       " entries or the dimensions do not fit 32-bit indices");
  Matrix m = *this;
  m.itype_ = t;
  m.row_ptr_ = Buffer(index_size(t) * std::size_t(nrows_ + 1), Location::host);
  m.col_idx_ = Buffer(index_size(t) * std::size_t(nnz_), Location::host);
  for (Index i = 0; i <= nrows_; ++i) detail::set_index(m.row_ptr_, t, i, index_at(row_ptr_, itype_, i));
  for (Index k = 0; k < nnz_; ++k) detail::set_index(m.col_idx_, t, k, index_at(col_idx_, itype_, k));
  return m;
}

std::vector<Index> Matrix::row_ptr_vector() const {
  require_host(location(), "Matrix::row_ptr_vector");
  std::vector<Index> v(static_cast<std::size_t>(nrows_ + 1));
  for (Index i = 0; i <= nrows_; ++i) v[i] = index_at(row_ptr_, itype_, i);
  return v;
}

std::vector<Index> Matrix::col_idx_vector() const {
  require_host(location(), "Matrix::col_idx_vector");
  std::vector<Index> v(static_cast<std::size_t>(nnz_));
  for (Index k = 0; k < nnz_; ++k) v[k] = index_at(col_idx_, itype_, k);
  return v;
}

template <class T> std::vector<T> Matrix::values_vector() const {
  require_host(location(), "Matrix::values_vector");
  return detail::values_of<T>(values_, type_, nnz_);
}

void Matrix::check_invariants() const {
  require_host(location(), "Matrix::check_invariants");
  if (index_at(row_ptr_, itype_, 0) != 0) throw InvalidValue("CSR: row_ptr[0] is not 0");
  if (index_at(row_ptr_, itype_, nrows_) != nnz_)
    throw InvalidValue("CSR: row_ptr[nrows] = " + std::to_string(index_at(row_ptr_, itype_, nrows_)) +
                       " differs from nnz = " + std::to_string(nnz_));
  for (Index i = 0; i < nrows_; ++i) {
    const Index b = index_at(row_ptr_, itype_, i), e = index_at(row_ptr_, itype_, i + 1);
    if (e < b) throw InvalidValue("CSR: row_ptr decreases at row " + std::to_string(i));
    for (Index k = b; k < e; ++k) {
      const Index j = index_at(col_idx_, itype_, k);
      if (j < 0 || j >= ncols_)
        throw InvalidIndex("CSR: row " + std::to_string(i) + ": column index " + std::to_string(j) +
                           " out of range 0.." + std::to_string(ncols_ - 1));
      if (k > b && j <= index_at(col_idx_, itype_, k - 1))
        throw InvalidValue("CSR: row " + std::to_string(i) + ": column " + std::to_string(j) +
                           (j == index_at(col_idx_, itype_, k - 1) ? " repeated" : " out of order"));
    }
  }
}

#define RINGBLAS_INSTANTIATE(T)                                                                    \
  template Matrix Matrix::from_csr<T, std::int32_t>(Index, Index, const std::vector<std::int32_t>&, \
                                                    const std::vector<std::int32_t>&,               \
                                                    const std::vector<T>&);                         \
  template Matrix Matrix::from_csr<T, std::int64_t>(Index, Index, const std::vector<std::int64_t>&, \
                                                    const std::vector<std::int64_t>&,               \
                                                    const std::vector<T>&);                         \
  template Matrix Matrix::from_triplets<T>(Index, Index, const std::vector<Index>&,                 \
                                           const std::vector<Index>&, const std::vector<T>&, Dup,   \
                                           IndexType);                                              \
  template std::vector<T> Matrix::values_vector<T>() const;
RINGBLAS_INSTANTIATE(bool)
RINGBLAS_INSTANTIATE(std::int32_t)
RINGBLAS_INSTANTIATE(std::int64_t)
RINGBLAS_INSTANTIATE(float)
RINGBLAS_INSTANTIATE(double)
#undef RINGBLAS_INSTANTIATE

}  // namespace ringblas
