// Triplets -> CSR on the host: validates indices, sorts stably by (row, col), combines duplicates.
#pragma once
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "backend/core/containers/host_access.hpp"
#include "ringblas/matrix.hpp"
#include "semirings/arith.hpp"

namespace ringblas::detail {

template <class T> T combine_dup(Dup dup, T old_v, T new_v) {
  switch (dup) {
    case Dup::sum: return sr::add(old_v, new_v);
    case Dup::min: return sr::min(old_v, new_v);
    case Dup::max: return sr::max(old_v, new_v);
    case Dup::first: return old_v;
    default: return new_v;  // Dup::last
  }
}

/// Builds a valid CSR matrix; `what` prefixes error messages.
template <class T>
Matrix build_csr(Index nrows, Index ncols, const std::vector<Index>& rows,
                 const std::vector<Index>& cols, const std::vector<T>& vals, Dup dup,
                 IndexType itype, const std::string& what) {
  const std::size_t n = rows.size();
  if (cols.size() != n || vals.size() != n)
    throw InvalidValue(what + ": rows, cols and values have different lengths");
  for (std::size_t k = 0; k < n; ++k) {
    if (rows[k] < 0 || rows[k] >= nrows)
      throw InvalidIndex(what + ": entry " + std::to_string(k) + ": row index " +
                         std::to_string(rows[k]) + " out of range 0.." + std::to_string(nrows - 1));
    if (cols[k] < 0 || cols[k] >= ncols)
      throw InvalidIndex(what + ": entry " + std::to_string(k) + ": column index " +
                         std::to_string(cols[k]) + " out of range 0.." + std::to_string(ncols - 1));
  }
  std::vector<std::size_t> perm(n);
  std::iota(perm.begin(), perm.end(), std::size_t(0));
  std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) {
    return rows[a] != rows[b] ? rows[a] < rows[b] : cols[a] < cols[b];
  });
  std::vector<Index> rp(std::size_t(nrows + 1), 0), ci;
  std::vector<T> va;
  ci.reserve(n);
  va.reserve(n);
  Index last_r = -1, last_c = -1;
  for (std::size_t p : perm) {
    if (rows[p] == last_r && cols[p] == last_c) {
      if (dup == Dup::error)
        throw InvalidValue(what + ": duplicate entry (" + std::to_string(rows[p]) + ", " +
                           std::to_string(cols[p]) + ")");
      va.back() = combine_dup<T>(dup, va.back(), vals[p]);
      continue;
    }
    last_r = rows[p];
    last_c = cols[p];
    ci.push_back(cols[p]);
    va.push_back(vals[p]);
    ++rp[std::size_t(rows[p]) + 1];
  }
  for (Index i = 0; i < nrows; ++i) rp[i + 1] += rp[i];
  const Index nnz = Index(ci.size());
  if (itype == IndexType::i32 && (nnz >= (Index(1) << 31) || ncols >= (Index(1) << 31)))
    throw InvalidValue(what + ": " + std::to_string(nnz) + " entries do not fit 32-bit indices");
  const auto isz = index_size(itype);
  Buffer brp(isz * rp.size(), Location::host), bci(isz * ci.size(), Location::host),
      bva(sizeof(T) * va.size(), Location::host);
  for (std::size_t i = 0; i < rp.size(); ++i) set_index(brp, itype, Index(i), rp[i]);
  for (std::size_t k = 0; k < ci.size(); ++k) set_index(bci, itype, Index(k), ci[k]);
  for (std::size_t k = 0; k < va.size(); ++k) bva.as<T>()[k] = va[k];
  return Matrix::from_buffers(nrows, ncols, type_of_v<T>, itype, nnz, std::move(brp),
                              std::move(bci), std::move(bva));
}

}  // namespace ringblas::detail
