// Triplets from a reader -> host CSR: counting sort by row, sort by column within rows, and
// duplicates combined by a Dup policy or reported with the lines that gave them.
#include <algorithm>
#include <cstring>
#include <exception>
#include <thread>
#include <type_traits>

#include "backend/core/io/io_chunks.hpp"
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

/// Row ranges for build_csr's parallel phase: cuts[0] = 0 < ... < cuts.back() = nrows, about
/// equal in entries, one per parse slot at most and none smaller than the parse's minimum chunk
/// counted in 8-byte entries (the default 256 KiB: 32K entries), so that small inputs stay on
/// one thread and the tests' tiny chunks give many ranges.
std::vector<Index> row_ranges(const std::vector<Index>& row_ptr, Index nrows) {
  const Index n = row_ptr[static_cast<std::size_t>(nrows)];
  const Index min_entries =
      std::max<Index>(1, static_cast<Index>(chunk_config().min_chunk_bytes / 8));
  const Index parts =
      std::max<Index>(1, std::min<Index>(static_cast<Index>(chunk_slots()), n / min_entries));
  std::vector<Index> cuts{0};
  for (Index r = 1; r < parts; ++r) {
    // The first row boundary at or after r/parts of the entries.
    const Index want = n / parts * r;
    const Index row = static_cast<Index>(
        std::lower_bound(row_ptr.begin(), row_ptr.begin() + nrows + 1, want) - row_ptr.begin());
    if (row > cuts.back() && row < nrows) cuts.push_back(row);
  }
  cuts.push_back(nrows);
  return cuts;
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

  // Rows sorted and combined in ranges of whole rows, in parallel (the ranges and threads of the
  // parallel parse, io_chunks.hpp, so that the tests that cut inputs into tiny chunks cut these
  // too): each range writes its unique entries to its own arrays, row_ptr[i] local to the range,
  // then the ranges are placed one after another. Every range runs the sequential loop over its
  // rows, so the first duplicate a range reports is its first in row order, and the first range
  // that failed names the file's first duplicate in row order, as the one loop did.
  const std::vector<Index> cuts = row_ranges(row_ptr, nrows);
  const std::size_t ranges = cuts.size() - 1;
  struct Range {
    std::vector<Index> cols;
    std::vector<T> vals;
    std::size_t merged = 0;
    std::exception_ptr error;
  };
  std::vector<Range> part(ranges);
  const std::vector<Index> ends(row_ptr);  // read by every range; row_ptr is written per range
  auto run_range = [&](std::size_t r) {
    Range& out = part[r];
    try {
      const Index lo = cuts[r], hi = cuts[r + 1];
      out.cols.reserve(static_cast<std::size_t>(ends[hi] - ends[lo]));
      out.vals.reserve(static_cast<std::size_t>(ends[hi] - ends[lo]));
      for (Index i = lo; i < hi; ++i) {
        auto b = perm.begin() + ends[i], e = perm.begin() + ends[i + 1];
        if (!std::is_sorted(b, e, less)) std::sort(b, e, less);
      }
      Index start = ends[lo];
      for (Index i = lo; i < hi; ++i) {
        const Index end = ends[i + 1];
        row_ptr[i] = static_cast<Index>(out.cols.size());  // local; the range's base added below
        for (Index p = start; p < end; ++p) {
          const Index k = perm[p];
          if (p > start && t.cols[perm[p - 1]] == t.cols[k]) {
            if (dup == Dup::error) {
              // Two mirrors collide only where their originals do; report the originals instead.
              if ((t.seq[perm[p - 1]] & 1) && (t.seq[k] & 1)) continue;
              if (merged && out.vals.back() == t.vals[k]) {
                ++out.merged;
                continue;
              }
              report_duplicate(t, perm[p - 1], k, name);
            }
            out.vals.back() = combine(dup, out.vals.back(), t.vals[k]);
            continue;
          }
          out.cols.push_back(t.cols[k]);
          out.vals.push_back(t.vals[k]);
        }
        start = end;
      }
    } catch (...) {
      out.error = std::current_exception();
    }
  };
  {
    std::vector<std::thread> workers(ranges);
    for (std::size_t r = 1; r < ranges; ++r) start_or_run(workers[r], [&, r] { run_range(r); });
    if (ranges) run_range(0);
    for (std::thread& w : workers)
      if (w.joinable()) w.join();
  }
  for (const Range& r : part)
    if (r.error) std::rethrow_exception(r.error);
  std::vector<Index> base(ranges + 1, 0);
  for (std::size_t r = 0; r < ranges; ++r) {
    base[r + 1] = base[r] + static_cast<Index>(part[r].cols.size());
    if (merged) *merged += part[r].merged;
  }
  for (std::size_t r = 0; r < ranges; ++r)
    for (Index i = cuts[r]; i < cuts[r + 1]; ++i) row_ptr[i] += base[r];
  row_ptr[nrows] = base[ranges];
  const Index nnz = row_ptr[nrows];

  Buffer rp(row_ptr.size() * sizeof(Index), Location::host);
  std::memcpy(rp.data(), row_ptr.data(), row_ptr.size() * sizeof(Index));
  if (type != Type::boolean && type != Type::fp64 && type != Type::int64)
    throw NotImplemented("io::build_csr: readers produce bool, int64 or fp64 values only");
  Buffer ci(static_cast<std::size_t>(nnz) * sizeof(Index), Location::host);
  Buffer vb(static_cast<std::size_t>(nnz) * type_size(type), Location::host);
  for (std::size_t r = 0; r < ranges; ++r) {
    const std::vector<Index>& cols = part[r].cols;
    const std::vector<T>& vals = part[r].vals;
    const Index at = base[r], m = static_cast<Index>(cols.size());
    if (m) std::memcpy(ci.as<Index>() + at, cols.data(), std::size_t(m) * sizeof(Index));
    if (type == Type::boolean)
      for (Index k = 0; k < m; ++k) vb.as<bool>()[at + k] = vals[k] != T(0);
    else if (type == Type::fp64)
      for (Index k = 0; k < m; ++k) vb.as<double>()[at + k] = static_cast<double>(vals[k]);
    else
      for (Index k = 0; k < m; ++k)
        vb.as<std::int64_t>()[at + k] = static_cast<std::int64_t>(vals[k]);
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
