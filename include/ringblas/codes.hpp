// Runtime names of monoids, binary, unary, index-unary and select operators (GraphBLAS built-ins).
#pragma once
#include <cstdint>
#include <string_view>

namespace ringblas {

enum class MonoidCode : std::uint8_t { plus, times, min, max, lor, land, lxor, any };

/// Binary operators. Positional ones return an index of the entries they combine:
/// for z = f(A(ia, ja), B(ib, jb)): firsti = ia, firstj = ja, secondi = ib, secondj = jb
/// (in mxm: A(i,k), B(k,j) so firsti = i, firstj = secondi = k, secondj = j). 0-based.
/// pow is z = x^y (GxB_POW: computed in double for integers and cast back with GraphBLAS's
/// saturating rule; for bool z = x || !y); it comes last so that the older codes keep their values.
enum class BinaryOpCode : std::uint8_t {
  first, second, pair, plus, minus, times, div, min, max, lor, land, lxor,
  firsti, firstj, secondi, secondj, pow
};

enum class UnaryOpCode : std::uint8_t { identity, ainv, minv, abs, lnot, one, sqrt, exp, log };

/// Index-unary operators for apply (GrB_ROWINDEX, GrB_COLINDEX, GrB_DIAGINDEX): z = i + s,
/// j + s, j - i + s with s the thunk; results are int64.
enum class IndexUnaryOpCode : std::uint8_t { rowindex, colindex, diagindex };

/// Select predicates. tril/triu/diag/offdiag keep entries by j - i against the thunk k
/// (tril: j - i <= k, triu: j - i >= k, diag: j - i == k, offdiag: j - i != k); value_* compare
/// the entry's value with the thunk; row_topk / col_topk keep the k largest values of each
/// row / column (ties broken by the smaller index).
enum class SelectOpCode : std::uint8_t {
  tril, triu, diag, offdiag, value_gt, value_ge, value_lt, value_le, value_eq, value_ne,
  row_topk, col_topk
};

std::string_view monoid_name(MonoidCode c);
std::string_view binary_op_name(BinaryOpCode c);
std::string_view unary_op_name(UnaryOpCode c);
std::string_view select_op_name(SelectOpCode c);
/// Parse the names above; throw InvalidValue listing the valid names.
MonoidCode parse_monoid(std::string_view name);
BinaryOpCode parse_binary_op(std::string_view name);
UnaryOpCode parse_unary_op(std::string_view name);
SelectOpCode parse_select_op(std::string_view name);

constexpr bool is_positional(BinaryOpCode c) {
  return c == BinaryOpCode::firsti || c == BinaryOpCode::firstj || c == BinaryOpCode::secondi ||
         c == BinaryOpCode::secondj;
}
/// Whether z = f(x, y) reads x / y (pair and positional ops read neither).
constexpr bool reads_x(BinaryOpCode c) {
  return !is_positional(c) && c != BinaryOpCode::second && c != BinaryOpCode::pair;
}
constexpr bool reads_y(BinaryOpCode c) {
  return !is_positional(c) && c != BinaryOpCode::first && c != BinaryOpCode::pair;
}

}  // namespace ringblas
