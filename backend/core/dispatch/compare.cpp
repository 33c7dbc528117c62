// Comparison of matrices, vectors, dense matrices and scalars with a tolerance for floats.
#include "backend/core/dispatch/compare.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "backend/core/containers/host_access.hpp"

namespace ringblas::detail {
namespace {

bool close(double a, double b, const Tolerance& t, double scale = 0.0) {
  if (t.values_any) return true;
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  return std::fabs(a - b) <=
         t.rel * std::max(std::fabs(a), std::fabs(b)) + t.abs + t.scale_rel * scale;
}

/// S(i, j) of a sparse scale matrix (binary search in row i), 0 where it has no entry.
double scale_at(const Matrix* s, Index i, Index j) {
  if (!s) return 0.0;
  Index lo = index_at(s->row_ptr(), s->index_type(), i);
  Index hi = index_at(s->row_ptr(), s->index_type(), i + 1);
  while (lo < hi) {
    Index mid = (lo + hi) / 2, c = index_at(s->col_idx(), s->index_type(), mid);
    if (c == j) return std::fabs(value_at<double>(s->values(), s->type(), mid));
    if (c < j) lo = mid + 1;
    else hi = mid;
  }
  return 0.0;
}

std::string show(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

std::optional<std::string> compare_entry(const std::string& where, const Buffer& av, Type at, Index ka,
                                         const Buffer& bv, Type bt, Index kb, const Tolerance& t,
                                         double scale = 0.0) {
  if (at == Type::int64 && bt == Type::int64 && !t.values_any) {
    auto x = av.as<std::int64_t>()[ka], y = bv.as<std::int64_t>()[kb];
    if (x != y) return where + ": " + std::to_string(x) + " vs " + std::to_string(y);
    return std::nullopt;
  }
  double x = value_at<double>(av, at, ka), y = value_at<double>(bv, bt, kb);
  if (!close(x, y, t, scale)) return where + ": " + show(x) + " vs " + show(y);
  return std::nullopt;
}

}  // namespace

Tolerance Tolerance::for_type(Type t, double terms) {
  Tolerance tol;
  const double n = std::max(terms, 64.0);
  if (t == Type::fp64) tol.rel = 1e-12 * n, tol.abs = 1e-12 * n;
  if (t == Type::fp32) tol.rel = 1e-5 * n, tol.abs = 1e-5 * n;
  return tol;
}

std::optional<std::string> compare(const Matrix& a, const Matrix& b, const Tolerance& tol) {
  require_host(a.location(), "compare");
  require_host(b.location(), "compare");
  if (a.nrows() != b.nrows() || a.ncols() != b.ncols())
    return "dimensions " + std::to_string(a.nrows()) + "x" + std::to_string(a.ncols()) + " vs " +
           std::to_string(b.nrows()) + "x" + std::to_string(b.ncols());
  for (Index i = 0; i < a.nrows(); ++i) {
    Index ka = index_at(a.row_ptr(), a.index_type(), i), ea = index_at(a.row_ptr(), a.index_type(), i + 1);
    Index kb = index_at(b.row_ptr(), b.index_type(), i), eb = index_at(b.row_ptr(), b.index_type(), i + 1);
    while (ka < ea || kb < eb) {
      Index ja = ka < ea ? index_at(a.col_idx(), a.index_type(), ka) : a.ncols();
      Index jb = kb < eb ? index_at(b.col_idx(), b.index_type(), kb) : b.ncols();
      std::string where = "(" + std::to_string(i) + "," + std::to_string(std::min(ja, jb)) + ")";
      if (ja != jb) return where + ": present only in the " + (ja < jb ? "first" : "second");
      if (auto d = compare_entry(where, a.values(), a.type(), ka, b.values(), b.type(), kb, tol,
                                 scale_at(tol.scale, i, ja)))
        return d;
      ++ka, ++kb;
    }
  }
  if (a.nnz() != b.nnz()) return "nnz " + std::to_string(a.nnz()) + " vs " + std::to_string(b.nnz());
  return std::nullopt;
}

std::optional<std::string> compare(const Vector& a, const Vector& b, const Tolerance& tol) {
  require_host(a.location(), "compare");
  require_host(b.location(), "compare");
  if (a.size() != b.size())
    return "sizes " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
  Index ka = 0, kb = 0;
  const Index* ia = a.indices().as<Index>();
  const Index* ib = b.indices().as<Index>();
  while (ka < a.nnz() || kb < b.nnz()) {
    Index ja = ka < a.nnz() ? ia[ka] : a.size(), jb = kb < b.nnz() ? ib[kb] : b.size();
    std::string where = "(" + std::to_string(std::min(ja, jb)) + ")";
    if (ja != jb) return where + ": present only in the " + (ja < jb ? "first" : "second");
    double scale = 0.0;
    if (tol.vector_scale) {
      const Vector& s = *tol.vector_scale;
      const Index* is = s.indices().as<Index>();
      const Index* at = std::lower_bound(is, is + s.nnz(), ja);
      if (at != is + s.nnz() && *at == ja)
        scale = std::fabs(value_at<double>(s.values(), s.type(), at - is));
    }
    if (auto d = compare_entry(where, a.values(), a.type(), ka, b.values(), b.type(), kb, tol, scale))
      return d;
    ++ka, ++kb;
  }
  return std::nullopt;
}

std::optional<std::string> compare(const DenseMatrix& a, const DenseMatrix& b, const Tolerance& tol) {
  if (a.nrows() != b.nrows() || a.ncols() != b.ncols()) return std::string("dimensions differ");
  for (Index i = 0; i < a.nrows(); ++i)
    for (Index j = 0; j < a.ncols(); ++j) {
      double x = a.at<double>(i, j), y = b.at<double>(i, j);
      double scale = tol.dense_scale ? std::fabs(tol.dense_scale->at<double>(i, j)) : 0.0;
      if (!close(x, y, tol, scale))
        return "(" + std::to_string(i) + "," + std::to_string(j) + "): " + show(x) + " vs " + show(y);
    }
  return std::nullopt;
}

std::optional<std::string> compare(const DenseVector& a, const DenseVector& b,
                                   const Tolerance& tol) {
  // As 1 x n matrices (the buffers copied: both are host results being compared).
  auto row = [](const DenseVector& v) {
    return DenseMatrix::from_buffer(1, v.size(), v.type(), Layout::row_major, Buffer(v.values()));
  };
  return compare(row(a), row(b), tol);
}

std::optional<std::string> compare(const Scalar& a, const Scalar& b, const Tolerance& tol) {
  double x = a.as<double>(), y = b.as<double>();
  if (a.type() == Type::int64 && b.type() == Type::int64 && !tol.values_any) {
    if (a.as<std::int64_t>() != b.as<std::int64_t>())
      return std::to_string(a.as<std::int64_t>()) + " vs " + std::to_string(b.as<std::int64_t>());
    return std::nullopt;
  }
  if (!close(x, y, tol, tol.scalar_scale)) return show(x) + " vs " + show(y);
  return std::nullopt;
}

}  // namespace ringblas::detail
