// Triplets from a reader -> host CSR: counting sort by row, sort by column within rows, and
// duplicates combined by a Dup policy or reported with the lines that gave them.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "backend/core/io/io_detail.hpp"
#include "ringblas/error.hpp"

namespace ringblas::io::detail {

namespace {

template <class T>
T combine(Dup dup, T acc, T v) {
  switch (dup) {
    case Dup::sum:
      if constexpr (std::is_same_v<T, std::uint8_t>)
        return static_cast<T>(acc || v);
      else
        return acc + v;
    case Dup::min:
      return std::min(acc, v);
    case Dup::max:
      return std::max(acc, v);
    case Dup::last:
      return v;
    default:
      return acc;  // Dup::first: entries arrive in seq order
  }
}

template <class T>
[[noreturn]] void report_duplicate(const Triplets<T>& t, Index a, Index b,
                                   const std::string& name) {
  const std::int64_t first_line = t.seq[a] >> 1, line = t.seq[b] >> 1;
  std::string what = "duplicate entry (" + std::to_string(t.rows[b] + t.shown_base) + ", " +
                     std::to_string(t.cols[b] + t.shown_base) + ")";
  if ((t.seq[a] & 1) || (t.seq[b] & 1)) what += " after symmetric expansion";
  if (first_line == line) {
    what += ", given twice on this line";
  } else {
    what += ", first given on line " + std::to_string(first_line);
  }
  fail(name, line, what + " (duplicates are not allowed)");
}

}  // namespace

template <class T>
Matrix build_csr(Triplets<T>& t, Dup dup, Type type, const std::string& name, std::size_t* merged) {
  static_assert(sizeof(bool) == 1, "bool values are stored as single bytes");
  const Index n = static_cast<Index>(t.rows.size());
  const Index nrows = t.nrows;
  std::vector<Index> row_ptr(static_cast<std::size_t>(nrows) + 1, 0);
  for (Index k = 0; k < n; ++k) ++row_ptr[t.rows[k] + 1];
  for (Index i = 0; i < nrows; ++i) row_ptr[i + 1] += row_ptr[i];
  std::vector<Index> perm(n);
  {
    std::vector<Index> next(row_ptr.begin(), row_ptr.end() - 1);
    for (Index k = 0; k < n; ++k) perm[next[t.rows[k]]++] = k;  // stable: file order kept
  }
  auto less = [&](Index a, Index b) {
    return t.cols[a] != t.cols[b] ? t.cols[a] < t.cols[b] : t.seq[a] < t.seq[b];
  };
  for (Index i = 0; i < nrows; ++i) {
    auto b = perm.begin() + row_ptr[i], e = perm.begin() + row_ptr[i + 1];
    if (!std::is_sorted(b, e, less)) std::sort(b, e, less);
  }

  // Combine in place: out_* receive the unique entries, row_ptr is rewritten.
  std::vector<Index> out_cols;
  std::vector<T> out_vals;
  out_cols.reserve(n);
  out_vals.reserve(n);
  Index start = 0;
  for (Index i = 0; i < nrows; ++i) {
    const Index end = row_ptr[i + 1];
    row_ptr[i] = static_cast<Index>(out_cols.size());
    for (Index p = start; p < end; ++p) {
      const Index k = perm[p];
      if (p > start && t.cols[perm[p - 1]] == t.cols[k]) {
        if (dup == Dup::error) {
          // Two mirrors collide only where their originals do; report the originals instead.
          if ((t.seq[perm[p - 1]] & 1) && (t.seq[k] & 1)) continue;
          if (merged && out_vals.back() == t.vals[k]) {
            ++*merged;
            continue;
          }
          report_duplicate(t, perm[p - 1], k, name);
        }
        out_vals.back() = combine(dup, out_vals.back(), t.vals[k]);
        continue;
      }
      out_cols.push_back(t.cols[k]);
      out_vals.push_back(t.vals[k]);
    }
    start = end;
  }
  row_ptr[nrows] = static_cast<Index>(out_cols.size());
  const Index nnz = row_ptr[nrows];

  Buffer rp(row_ptr.size() * sizeof(Index), Location::host);
  std::memcpy(rp.data(), row_ptr.data(), row_ptr.size() * sizeof(Index));
  Buffer ci(static_cast<std::size_t>(nnz) * sizeof(Index), Location::host);
  if (nnz) std::memcpy(ci.data(), out_cols.data(), nnz * sizeof(Index));
  Buffer vb(static_cast<std::size_t>(nnz) * type_size(type), Location::host);
  if (nnz) {
    if (type == Type::boolean) {
      bool* dst = vb.as<bool>();
      for (Index k = 0; k < nnz; ++k) dst[k] = out_vals[k] != T(0);
    } else if (type == Type::fp64) {
      double* dst = vb.as<double>();
      for (Index k = 0; k < nnz; ++k) dst[k] = static_cast<double>(out_vals[k]);
    } else if (type == Type::int64) {
      std::int64_t* dst = vb.as<std::int64_t>();
      for (Index k = 0; k < nnz; ++k) dst[k] = static_cast<std::int64_t>(out_vals[k]);
    } else {
      throw NotImplemented("io::build_csr: readers produce bool, int64 or fp64 values only");
    }
  }
  return Matrix::from_buffers(nrows, t.ncols, type, IndexType::i64, nnz, std::move(rp),
                              std::move(ci), std::move(vb));
}

template Matrix build_csr<double>(Triplets<double>&, Dup, Type, const std::string&, std::size_t*);
template Matrix build_csr<std::int64_t>(Triplets<std::int64_t>&, Dup, Type, const std::string&,
                                        std::size_t*);
template Matrix build_csr<std::uint8_t>(Triplets<std::uint8_t>&, Dup, Type, const std::string&,
                                        std::size_t*);

}  // namespace ringblas::io::detail
