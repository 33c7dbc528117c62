// Cbsr (include/ringblas/cbsr.hpp): construction, validation, copies and conversions.
#include "ringblas/cbsr.hpp"

#include <cstring>
#include <string>

#include "backend/core/containers/host_access.hpp"
#include "ringblas/error.hpp"

namespace ringblas {

using detail::require_host;

namespace {

void check_shape(const char* what, Index nrows, Index ncols, int k) {
  if (nrows < 0 || ncols < 0)
    throw InvalidValue(std::string(what) + ": negative dimension " + std::to_string(nrows) + "x" +
                       std::to_string(ncols));
  if (ncols > kCbsrMaxColumns)
    throw NotImplemented(std::string(what) + ": " + std::to_string(ncols) +
                         " columns; CBSR column indices are 8-bit, so at most " +
                         std::to_string(kCbsrMaxColumns) + " columns");
  if (k < 0 || k > ncols)
    throw InvalidValue(std::string(what) + ": k = " + std::to_string(k) + " outside [0, " +
                       std::to_string(ncols) + "] (the number of columns)");
}

std::string entry(Index i, int t) {
  return "row " + std::to_string(i) + ", entry " + std::to_string(t);
}

}  // namespace

Cbsr::Cbsr(Index nrows, Index ncols, int k, Location where, const Context* ctx)
    : nrows_(nrows), ncols_(ncols), k_(k) {
  check_shape("Cbsr", nrows, ncols, k);
  const std::size_t n = std::size_t(nrows) * std::size_t(k);
  Buffer v(n * sizeof(float), Location::host), x(n, Location::host);
  if (n) std::memset(v.data(), 0, n * sizeof(float));
  for (std::size_t e = 0; e < n; ++e) x.as<std::uint8_t>()[e] = std::uint8_t(e % std::size_t(k));
  if (where == Location::host) {
    values_ = std::move(v);
    indices_ = std::move(x);
  } else {
    values_ = Buffer(v.size(), where, ctx);
    indices_ = Buffer(x.size(), where, ctx);
    if (n) {
      detail::copy_bytes(values_.data(), where, v.data(), Location::host, v.size(), ctx);
      detail::copy_bytes(indices_.data(), where, x.data(), Location::host, x.size(), ctx);
    }
  }
}

Cbsr Cbsr::from_host(Index nrows, Index ncols, int k, const std::vector<float>& values,
                     const std::vector<std::uint8_t>& indices) {
  check_shape("Cbsr::from_host", nrows, ncols, k);
  const std::size_t n = std::size_t(nrows) * std::size_t(k);
  if (values.size() != n || indices.size() != n)
    throw InvalidValue("Cbsr::from_host: " + std::to_string(values.size()) + " values and " +
                       std::to_string(indices.size()) + " indices for " + std::to_string(nrows) +
                       " rows of k = " + std::to_string(k) + " (" + std::to_string(n) +
                       " expected)");
  Buffer v(n * sizeof(float), Location::host), x(n, Location::host);
  if (n) {
    std::memcpy(v.data(), values.data(), n * sizeof(float));
    std::memcpy(x.data(), indices.data(), n);
  }
  Cbsr c = from_buffers(nrows, ncols, k, std::move(v), std::move(x));
  c.check_invariants();
  return c;
}

Cbsr Cbsr::from_buffers(Index nrows, Index ncols, int k, Buffer values, Buffer indices) {
  check_shape("Cbsr::from_buffers", nrows, ncols, k);
  const std::size_t n = std::size_t(nrows) * std::size_t(k);
  if (values.size() < n * sizeof(float) || indices.size() < n)
    throw InvalidValue("Cbsr::from_buffers: buffers smaller than " + std::to_string(n) +
                       " entries");
  if (values.location() != indices.location())
    throw InvalidValue("Cbsr::from_buffers: values and indices at different locations");
  Cbsr c;
  c.nrows_ = nrows;
  c.ncols_ = ncols;
  c.k_ = k;
  c.values_ = std::move(values);
  c.indices_ = std::move(indices);
  return c;
}

Cbsr Cbsr::to(Location where, const Context& ctx) const {
  if (where == location()) return *this;
  Cbsr c;
  c.nrows_ = nrows_;
  c.ncols_ = ncols_;
  c.k_ = k_;
  c.values_ = values_.to(where, ctx);
  c.indices_ = indices_.to(where, ctx);
  return c;
}

std::vector<float> Cbsr::values_vector() const {
  require_host(location(), "Cbsr::values_vector");
  const float* p = values_.as<float>();
  return std::vector<float>(p, p + nnz());
}

std::vector<std::uint8_t> Cbsr::indices_vector() const {
  require_host(location(), "Cbsr::indices_vector");
  const std::uint8_t* p = indices_.as<std::uint8_t>();
  return std::vector<std::uint8_t>(p, p + nnz());
}

void Cbsr::check_invariants() const {
  require_host(location(), "Cbsr::check_invariants");
  const std::uint8_t* x = indices_.as<std::uint8_t>();
  for (Index i = 0; i < nrows_; ++i)
    for (int t = 0; t < k_; ++t) {
      const Index c = x[i * k_ + t];
      if (c >= ncols_)
        throw InvalidIndex("Cbsr: " + entry(i, t) + " has column " + std::to_string(c) +
                           " outside [0, " + std::to_string(ncols_) + ")");
      if (t > 0 && c <= x[i * k_ + t - 1])
        throw InvalidIndex("Cbsr: " + entry(i, t) + ": column " + std::to_string(c) +
                           " does not follow column " + std::to_string(x[i * k_ + t - 1]) +
                           " (columns must be strictly increasing within a row)");
    }
}

Matrix Cbsr::to_sparse() const {
  require_host(location(), "Cbsr::to_sparse");
  std::vector<Index> rp(static_cast<std::size_t>(nrows_) + 1), ci(static_cast<std::size_t>(nnz()));
  for (Index i = 0; i <= nrows_; ++i) rp[i] = i * k_;
  const std::uint8_t* x = indices_.as<std::uint8_t>();
  for (Index e = 0; e < nnz(); ++e) ci[e] = x[e];
  return Matrix::from_csr(nrows_, ncols_, rp, ci, values_vector());
}

DenseMatrix Cbsr::to_dense() const {
  require_host(location(), "Cbsr::to_dense");
  std::vector<float> d(std::size_t(nrows_) * std::size_t(ncols_), 0.0f);
  const std::uint8_t* x = indices_.as<std::uint8_t>();
  const float* v = values_.as<float>();
  for (Index i = 0; i < nrows_; ++i)
    for (int t = 0; t < k_; ++t) d[i * ncols_ + x[i * k_ + t]] = v[i * k_ + t];
  return DenseMatrix::from_values(nrows_, ncols_, d);
}

}  // namespace ringblas
