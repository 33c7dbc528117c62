// Names and parsers of types, error codes, operator codes, variants and backends.
#include <array>
#include <string>

#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/error.hpp"
#include "ringblas/sparse_layer.hpp"
#include "ringblas/types.hpp"

namespace ringblas {
namespace {

template <class E, std::size_t N>
E parse_name(std::string_view name, const std::array<std::string_view, N>& names,
             const char* what) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<E>(i);
  std::string valid;
  for (auto n : names) valid += (valid.empty() ? "" : ", ") + std::string(n);
  throw InvalidValue("unknown " + std::string(what) + " '" + std::string(name) +
                     "' (valid: " + valid + ")");
}

constexpr std::array<std::string_view, 5> type_names{"bool", "int32", "int64", "fp32", "fp64"};
constexpr std::array<std::string_view, 8> monoid_names{"plus", "times", "min", "max",
                                                       "lor",  "land",  "lxor", "any"};
constexpr std::array<std::string_view, 17> binary_names{
    "first", "second", "pair", "plus", "minus", "times",   "div",     "min",    "max",
    "lor",   "land",   "lxor", "firsti", "firstj", "secondi", "secondj", "pow"};
constexpr std::array<std::string_view, 9> unary_names{"identity", "ainv", "minv", "abs", "lnot",
                                                      "one",      "sqrt", "exp",  "log"};
constexpr std::array<std::string_view, 12> select_names{
    "tril",     "triu",     "diag",     "offdiag",  "value_gt", "value_ge",
    "value_lt", "value_le", "value_eq", "value_ne", "row_topk", "col_topk"};
constexpr std::array<std::string_view, 25> variant_names{
    "automatic", "suitesparse", "spgemm_hash", "spmm_subwarp", "spmm_subwarp_coo", "spmm_batched",
    "spmm_batched_coo", "spmv_pull", "spmv_push", "sparse_layer", "maxk", "elementwise", "reduce",
    "transpose", "extract", "assign", "spmm_rowsplit", "spgemm_dot", "host_dense", "cublas",
    "dense_nn", "spgemm_dot_hash", "sort", "spgemm_prune", "row_filter"};
constexpr std::array<std::string_view, 4> backend_names{"auto", "cpu", "cuda", "verify"};
constexpr std::array<std::string_view, 3> sparse_tail_names{"auto", "rows", "staged"};

}  // namespace

std::size_t type_size(Type t) {
  return visit_type(t, [](auto v) { return sizeof(v); });
}
std::string_view type_name(Type t) { return type_names[static_cast<std::size_t>(t)]; }
Type parse_type(std::string_view name) { return parse_name<Type>(name, type_names, "type"); }
bool is_float(Type t) { return t == Type::fp32 || t == Type::fp64; }
std::size_t index_size(IndexType t) { return t == IndexType::i32 ? 4 : 8; }

const char* error_code_name(ErrorCode c) {
  static constexpr const char* names[] = {
      "DimensionMismatch", "InvalidValue", "InvalidIndex", "OutOfMemory",        "NotImplemented",
      "NotCompiled",       "CudaError",    "ParseError",   "VerificationFailed", "IoError"};
  return names[static_cast<int>(c)];
}

std::string_view monoid_name(MonoidCode c) { return monoid_names[static_cast<std::size_t>(c)]; }
std::string_view binary_op_name(BinaryOpCode c) {
  return binary_names[static_cast<std::size_t>(c)];
}
std::string_view unary_op_name(UnaryOpCode c) { return unary_names[static_cast<std::size_t>(c)]; }
std::string_view select_op_name(SelectOpCode c) {
  return select_names[static_cast<std::size_t>(c)];
}
MonoidCode parse_monoid(std::string_view n) {
  return parse_name<MonoidCode>(n, monoid_names, "monoid");
}
BinaryOpCode parse_binary_op(std::string_view n) {
  return parse_name<BinaryOpCode>(n, binary_names, "binary operator");
}
UnaryOpCode parse_unary_op(std::string_view n) {
  return parse_name<UnaryOpCode>(n, unary_names, "unary operator");
}
SelectOpCode parse_select_op(std::string_view n) {
  return parse_name<SelectOpCode>(n, select_names, "select operator");
}
std::string_view variant_name(Variant v) { return variant_names[static_cast<std::size_t>(v)]; }
Variant parse_variant(std::string_view n) { return parse_name<Variant>(n, variant_names, "variant"); }
Backend parse_backend(const std::string& n) {
  return parse_name<Backend>(n, backend_names, "backend");
}
const char* backend_name(Backend b) { return backend_names[static_cast<std::size_t>(b)].data(); }

std::string_view sparse_tail_name(SparseTail t) {
  return sparse_tail_names[static_cast<std::size_t>(t)];
}
SparseTail parse_sparse_tail(std::string_view n) {
  return parse_name<SparseTail>(n, sparse_tail_names, "tail");
}

Type Scalar::type() const { return static_cast<Type>(v_.index()); }

}  // namespace ringblas
