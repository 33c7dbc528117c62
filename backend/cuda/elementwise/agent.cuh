// Per-thread device code of the element-wise family: the row of an entry, the value map of
// apply, the select predicates and the order-preserving sort key of top-k.
#pragma once
#include <cstdint>
#include <type_traits>

#include "backend/cuda/common/row_merge.cuh"
#include "ringblas/codes.hpp"
#include "semirings/cast.hpp"
#include "semirings/unary_ops.hpp"

namespace ringblas::cuda::elementwise {

/// The row r in [lo, hi) with rp[r] <= p < rp[r + 1], given rp[lo] <= p < rp[hi] (binary search;
/// empty rows are skipped: the last row starting at or before p holds it).
template <class I>
__device__ __forceinline__ I row_in(const I* rp, I lo, I hi, I p) {
  while (hi - lo > 1) {
    const I mid = lo + (hi - lo) / 2;
    if (rp[mid] <= p)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/// The row r with rp[r] <= p < rp[r + 1] (binary search over the n + 1 row pointers).
template <class I>
__device__ __forceinline__ I row_of(const I* rp, I n, I p) {
  return row_in(rp, I(0), n, p);
}

/// Arguments of the value map (elementwise.hpp MapOp, with the bound scalar already in V).
template <class V>
struct MapArgs {
  int kind;  ///< MapOp::Kind
  UnaryOpCode unary;
  BinaryOpCode binary;
  V bound;
  IndexUnaryOpCode index_op;
  std::int64_t thunk;
};

/// Does the map read the entry's row index?
template <class V>
inline bool map_needs_row(const MapArgs<V>& a) {
  if (a.kind == 3) return a.index_op != IndexUnaryOpCode::colindex;
  return (a.kind == 1 || a.kind == 2) &&
         (a.binary == BinaryOpCode::firsti || a.binary == BinaryOpCode::secondi);
}

template <class V>
__device__ __forceinline__ V map_value(const MapArgs<V>& a, V x, std::int64_t i, std::int64_t j) {
  switch (a.kind) {
    case 0:
      return sr::apply_unary(a.unary, x);
    // Positional operators bound to a scalar give the entry's own index whichever side is bound
    // (SuiteSparse:GraphBLAS GB_apply_op: firsti and secondi are i, firstj and secondj j).
    case 1:
      return binary_op_at<V>(a.binary, a.bound, x, i, j, i, j);
    case 2:
      return binary_op_at<V>(a.binary, x, a.bound, i, j, i, j);
    default: {
      // GrB_ROWINDEX / COLINDEX / DIAGINDEX_INT64 in wrapping int64 arithmetic, then cast to V.
      const auto s = static_cast<std::uint64_t>(a.thunk);
      std::uint64_t z;
      if (a.index_op == IndexUnaryOpCode::rowindex)
        z = static_cast<std::uint64_t>(i) + s;
      else if (a.index_op == IndexUnaryOpCode::colindex)
        z = static_cast<std::uint64_t>(j) + s;
      else
        z = static_cast<std::uint64_t>(j) - static_cast<std::uint64_t>(i) + s;
      return sr::cast<V>(static_cast<std::int64_t>(z));
    }
  }
}

/// Select predicates other than top-k: positional ones compare j - i with k, value ones compare
/// the entry with the thunk (already in V). Both as GraphBLAS (GrB_TRIL: j <= i + k, ...).
template <class V>
struct SelectArgs {
  SelectOpCode op;
  std::int64_t k;
  V thunk;
};
inline bool select_is_positional(SelectOpCode op) {
  return op == SelectOpCode::tril || op == SelectOpCode::triu || op == SelectOpCode::diag ||
         op == SelectOpCode::offdiag;
}
template <class V>
__device__ __forceinline__ bool select_keeps(const SelectArgs<V>& a, V x, std::int64_t i,
                                             std::int64_t j) {
  const std::int64_t d = j - i;
  switch (a.op) {
    case SelectOpCode::tril:
      return d <= a.k;
    case SelectOpCode::triu:
      return d >= a.k;
    case SelectOpCode::diag:
      return d == a.k;
    case SelectOpCode::offdiag:
      return d != a.k;
    case SelectOpCode::value_gt:
      return x > a.thunk;
    case SelectOpCode::value_ge:
      return x >= a.thunk;
    case SelectOpCode::value_lt:
      return x < a.thunk;
    case SelectOpCode::value_le:
      return x <= a.thunk;
    case SelectOpCode::value_eq:
      return x == a.thunk;
    default:
      return x != a.thunk;
  }
}

/// Unsigned key whose order is the top-k order of V: larger values larger keys, every NaN the
/// smallest key (0), -0 equal to +0 (they compare equal, so the column breaks the tie).
template <class V>
struct order_key {
  using type = std::conditional_t<sizeof(V) == 8, std::uint64_t, std::uint32_t>;
};
template <class V>
__device__ __forceinline__ typename order_key<V>::type key_of(V x) {
  using K = typename order_key<V>::type;
  if constexpr (std::is_same_v<V, bool>) {
    return K(x ? 1 : 0);
  } else if constexpr (std::is_integral_v<V>) {
    return static_cast<K>(x) ^ (K(1) << (8 * sizeof(K) - 1));
  } else {
    if (x != x) return K(0);
    if (x == V(0)) x = V(0);
    K bits;
    if constexpr (sizeof(V) == 8)
      bits = static_cast<K>(__double_as_longlong(x));
    else
      bits = static_cast<K>(__float_as_uint(x));
    const K sign = K(1) << (8 * sizeof(K) - 1);
    return (bits & sign) ? ~bits : (bits | sign);
  }
}

}  // namespace ringblas::cuda::elementwise
