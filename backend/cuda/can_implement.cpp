// Applicability of the cuda kernels of the operations in backend/cuda/kernel_support.def, asked by
// each operation's dispatch table (backend/core/dispatch/dispatch_tables_elementwise.cpp) before
// the output is touched. Positional accumulators, shapes and indices are validated before dispatch
// (backend/core/validate); what is left here is what a kernel family itself cannot do. nullopt: the
// kernel runs.
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/index_ops/host_maps.hpp"

namespace ringblas::cuda {
namespace {
const std::optional<std::string> runs = std::nullopt;
}  // namespace

// elementwise family: every operator, type, mask mode and transpose.
std::optional<std::string> can_implement_ewise_add(const Matrix&, const Matrix*, Accum, BinaryOpCode, const Matrix&, const Matrix&, const Descriptor&) { return runs; }
std::optional<std::string> can_implement_ewise_add(const Vector&, const Vector*, Accum, BinaryOpCode, const Vector&, const Vector&, const Descriptor&) { return runs; }
std::optional<std::string> can_implement_ewise_mult(const Matrix&, const Matrix*, Accum, BinaryOpCode, const Matrix&, const Matrix&, const Descriptor&) { return runs; }
std::optional<std::string> can_implement_ewise_mult(const Vector&, const Vector*, Accum, BinaryOpCode, const Vector&, const Vector&, const Descriptor&) { return runs; }
std::optional<std::string> can_implement_apply(const Matrix&, const Matrix*, Accum, UnaryOpCode, const Matrix&, const Descriptor&) { return runs; }
std::optional<std::string> can_implement_apply(const Vector&, const Vector*, Accum, UnaryOpCode, const Vector&, const Descriptor&) { return runs; }
std::optional<std::string> can_implement_apply(const Matrix&, const Matrix*, Accum, BinaryOpCode, BindSide, const Scalar&, const Matrix&, const Descriptor&) { return runs; }
std::optional<std::string> can_implement_apply(const Matrix&, const Matrix*, Accum, IndexUnaryOpCode, Index, const Matrix&, const Descriptor&) { return runs; }
std::optional<std::string> can_implement_select(const Matrix&, const Matrix*, Accum, SelectOpCode, const Scalar&, const Matrix&, const Descriptor&) { return runs; }
std::optional<std::string> can_implement_kronecker(const Matrix&, const Matrix*, Accum, BinaryOpCode, const Matrix&, const Matrix&, const Descriptor&) { return runs; }

// row_filter (elementwise/row_filter.cu): select by value; apply under a mask that is A itself,
// which is then read per entry in place of a mask structure and a merge.
std::optional<std::string> can_implement_select_row_filter(const Matrix&, SelectOpCode op) {
  if (op == SelectOpCode::row_topk || op == SelectOpCode::col_topk || op == SelectOpCode::tril ||
      op == SelectOpCode::triu || op == SelectOpCode::diag || op == SelectOpCode::offdiag)
    return std::string("not a value predicate (row_filter tests each entry's value)");
  return runs;
}
std::optional<std::string> can_implement_apply_row_filter(const Matrix& C, const Matrix* mask,
                                                          const Matrix& A, const Descriptor& desc) {
  if (!mask || mask != &A)
    return std::string("the mask is not A itself (row_filter reads the mask per entry of A)");
  if (desc.transpose_a) return std::string("A is transposed (then the mask's pattern is not A's)");
  if (A.location() != Location::device) return std::string("A (the mask) is on the host");
  if (C.nnz() != 0)
    return std::string("C has entries (row_filter writes an empty C: no merge with C)");
  return runs;
}

// reduce family: every monoid and type.
std::optional<std::string> can_implement_reduce(const Vector&, const Vector*, Accum, MonoidCode, const Matrix&, ReduceDim, const Descriptor&) { return runs; }
std::optional<std::string> can_implement_reduce(MonoidCode, const Matrix&) { return runs; }
std::optional<std::string> can_implement_reduce(MonoidCode, const Vector&) { return runs; }

// index_ops family (transpose, extract, assign).
std::optional<std::string> can_implement_transpose(const Matrix&, const Matrix*, Accum, const Matrix&, const Descriptor&) { return runs; }
std::optional<std::string> can_implement_extract(const Matrix&, const Matrix*, Accum, const Matrix&, const Indices&, const Indices&, const Descriptor&) { return runs; }
std::optional<std::string> can_implement_assign(const Matrix& C, const Matrix*, Accum, const Matrix&, const Indices& rows, const Indices& cols, const Descriptor&) {
  if (index_ops::has_repeats(rows, C.nrows()) || index_ops::has_repeats(cols, C.ncols()))
    return "repeated row or column indices (GraphBLAS leaves the result undefined; the cpu executor defines one)";
  return runs;
}
// Of a scalar to a vector: the in-place scatter (index_ops/assign_scalar.cu) covers w<m> = w
// accum s with w full on the device and a device mask neither complemented nor with replace
// (the composition of the algorithms, or the cpu row, does the rest).
std::optional<std::string> can_implement_assign(const Vector& w, const Vector* mask, Accum,
                                                const Descriptor& desc) {
  if (w.location() != Location::device)
    return std::string("w is on the host (the scatter writes a device w in place)");
  if (w.nnz() != w.size())
    return std::string("w is not full (the scatter writes w's values and adds no entries)");
  if (!mask) return std::string("no mask (the scatter walks the mask's entries)");
  if (mask->location() != Location::device) return std::string("the mask is on the host");
  if (desc.mask_complement)
    return std::string("a complemented mask (the scatter walks the mask's entries)");
  if (desc.replace) return std::string("replace (it would delete w's entries outside the mask)");
  return runs;  // every accumulator (positional ones are refused by validation)
}

}  // namespace ringblas::cuda

namespace ringblas::cuda {

// cuBLAS gemm: fp32 only (the training path); 32-bit dimensions (cublasSgemm's int arguments).
std::optional<std::string> can_implement_gemm(const DenseMatrix& C, const DenseMatrix& A, const DenseMatrix& B) {
  if (C.type() != Type::fp32) return "the cuda gemm is fp32 only (" + std::string(type_name(C.type())) + " given)";
  const Index limit = Index{1} << 31;
  for (const DenseMatrix* m : {&C, &A, &B})
    if (m->nrows() >= limit || m->ncols() >= limit) return std::string("a dimension of 2^31 or more");
  return runs;
}

// dense_nn kernels (dropout, ReLU backward, column sums, softmax cross-entropy, accuracy, Adam): fp32.
std::optional<std::string> can_implement_dense_nn(Type t) {
  if (t != Type::fp32) return "the dense_nn kernels are fp32 only (" + std::string(type_name(t)) + " given)";
  return runs;
}

}  // namespace ringblas::cuda
