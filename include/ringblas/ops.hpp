// Operations with GraphBLAS semantics: C<M, replace> = C accum op(inputs).
//
// Common rules for every operation below:
// - `mask` (nullptr: none) must have C's dimensions; an entry admits its position when present
//   (desc.mask_structure) or present and nonzero (value mask); desc.mask_complement inverts it.
// - T = op(inputs) is computed; Z = T where no accumulator, else accum(C, T) where both have an
//   entry and the entry of whichever has one elsewhere; C then takes Z inside the mask, and
//   outside it keeps its entries (or loses them with desc.replace).
// - Inputs and outputs are typecast as GraphBLAS does; C keeps its type and dimensions.
// - Dimension errors throw DimensionMismatch, bad indices InvalidIndex, unsupported combinations
//   NotImplemented (never a silently different result); ctx.backend selects the executor.
#pragma once
#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/matrix.hpp"
#include "ringblas/semiring.hpp"

namespace ringblas {

/// The default context of the calling thread (backend automatic).
Context& default_context();

/// C<M> = C accum (A ⊕.⊗ B); A, B transposed first per desc. (GrB_mxm)
void mxm(Matrix& C, const Matrix* mask, Accum accum, const Semiring& s, const Matrix& A,
         const Matrix& B, const Descriptor& desc = {}, Context& ctx = default_context());
/// w<m> = w accum (A ⊕.⊗ u). (GrB_mxv)
void mxv(Vector& w, const Vector* mask, Accum accum, const Semiring& s, const Matrix& A,
         const Vector& u, const Descriptor& desc = {}, Context& ctx = default_context());
/// w<m> = w accum (u ⊕.⊗ A). (GrB_vxm; desc.transpose_b transposes A)
void vxm(Vector& w, const Vector* mask, Accum accum, const Semiring& s, const Vector& u,
         const Matrix& A, const Descriptor& desc = {}, Context& ctx = default_context());

/// Dense output: C = A ⊕.⊗ B with B and C dense (SpMM); C is overwritten (no mask, no accum:
/// those throw NotImplemented until a kernel supports them).
void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const DenseMatrix& B,
         const Descriptor& desc = {}, Context& ctx = default_context());

/// Dense output with a fused epilogue: C = epilogue(A ⊕.⊗ B) (see Epilogue). Throws InvalidValue
/// when the bias is missing or its size differs from C's columns.
void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const DenseMatrix& B,
         const Epilogue& epilogue, const Descriptor& desc = {}, Context& ctx = default_context());

/// Batched SpMM: C[b] = A[b] ⊕.⊗ B[b] for every item b, in one call (one kernel launch on the
/// GPU). Items may differ in size; every B[b] (and C[b]) has the same number of columns.
/// A[b] is transposed first when desc.transpose_a. C[b] is overwritten (no mask, no
/// accumulator). Throws DimensionMismatch when the three vectors differ in length or an item's
/// dimensions do not fit (naming the item), NotImplemented for desc.transpose_b or mask flags.
void mxm_batched(std::vector<DenseMatrix>& C, const Semiring& s, const std::vector<Matrix>& A,
                 const std::vector<DenseMatrix>& B, const Descriptor& desc = {},
                 Context& ctx = default_context());

/// Stacked batched SpMM, the layout of a mini-batch of graphs (PyTorch Geometric's Batch): B and
/// C hold the items' dense operands one after another by rows, and
///   C = epilogue(diag(op(A[0]), ..., op(A[N-1])) ⊕.⊗ B),
/// i.e. C's rows r_b .. r_b+m_b-1 are epilogue(op(A[b]) ⊕.⊗ B's rows s_b .. s_b+k_b-1), with
/// op(A[b]) m_b x k_b, r_b = Σ_{c<b} m_c, s_b = Σ_{c<b} k_c. One kernel launch on the GPU, no
/// per-item buffers. C is overwritten (no mask, no accumulator). Throws DimensionMismatch when
/// Σ m_b != C.nrows(), Σ k_b != B.nrows() or B and C differ in columns; InvalidValue for a
/// missing or wrong-sized bias; NotImplemented for desc.transpose_b or mask flags.
void mxm_batched(DenseMatrix& C, const Semiring& s, const std::vector<Matrix>& A,
                 const DenseMatrix& B, const Epilogue& epilogue, const Descriptor& desc = {},
                 Context& ctx = default_context());

class MatrixBatch;  // ringblas/matrix_batch.hpp
/// The stacked form over a MatrixBatch: the same result (up to the order of float sums) and
/// errors as with A's items, i.e.
///   C = epilogue(A.block_diagonal() ⊕.⊗ B)  (desc.transpose_a: diag(A_b)ᵀ = diag(A_bᵀ)),
/// computed by the single-SpMM dispatch of mxm (dense, epilogue) (its rows, its trace lines,
/// desc.variant picks among them), so its host cost does not grow with the number of items.
/// Prefer it when a batch is multiplied more than once (the layers and the backward pass of a
/// GNN mini-batch, or a batch reused every epoch): the items are walked once, when the
/// MatrixBatch is built.
void mxm_batched(DenseMatrix& C, const Semiring& s, const MatrixBatch& A, const DenseMatrix& B,
                 const Epilogue& epilogue, const Descriptor& desc = {},
                 Context& ctx = default_context());

/// C<M> = C accum (A ∪ B) with op where both have an entry. (GrB_eWiseAdd)
void ewise_add(Matrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, const Matrix& A,
               const Matrix& B, const Descriptor& desc = {}, Context& ctx = default_context());
void ewise_add(Vector& w, const Vector* mask, Accum accum, BinaryOpCode op, const Vector& u,
               const Vector& v, const Descriptor& desc = {}, Context& ctx = default_context());
/// C<M> = C accum (A ∩ B) with op. (GrB_eWiseMult)
void ewise_mult(Matrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, const Matrix& A,
                const Matrix& B, const Descriptor& desc = {}, Context& ctx = default_context());
void ewise_mult(Vector& w, const Vector* mask, Accum accum, BinaryOpCode op, const Vector& u,
                const Vector& v, const Descriptor& desc = {}, Context& ctx = default_context());

/// C<M> = C accum f(A). (GrB_apply, unary)
void apply(Matrix& C, const Matrix* mask, Accum accum, UnaryOpCode op, const Matrix& A,
           const Descriptor& desc = {}, Context& ctx = default_context());
void apply(Vector& w, const Vector* mask, Accum accum, UnaryOpCode op, const Vector& u,
           const Descriptor& desc = {}, Context& ctx = default_context());
/// Which operand of a bound binary op the scalar is.
enum class BindSide : std::uint8_t { first, second };
/// C<M> = C accum op(s, A) (BindSide::first) or op(A, s) (BindSide::second). (GrB_apply, bind)
void apply(Matrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, BindSide side,
           const Scalar& s, const Matrix& A, const Descriptor& desc = {},
           Context& ctx = default_context());
/// C<M> = C accum f(i, j, thunk) over A's entries. (GrB_apply, index-unary)
void apply(Matrix& C, const Matrix* mask, Accum accum, IndexUnaryOpCode op, Index thunk,
           const Matrix& A, const Descriptor& desc = {}, Context& ctx = default_context());

/// C<M> = C accum select(A, op, thunk). (GrB_select; row_topk/col_topk take k = thunk)
void select(Matrix& C, const Matrix* mask, Accum accum, SelectOpCode op, const Scalar& thunk,
            const Matrix& A, const Descriptor& desc = {}, Context& ctx = default_context());

/// Which index a reduction to a vector keeps: rows gives w(i) = ⊕_j A(i,j), cols w(j) = ⊕_i A(i,j).
enum class ReduceDim : std::uint8_t { rows, cols };
/// w<m> = w accum reduce(A). (GrB_reduce to vector)
void reduce(Vector& w, const Vector* mask, Accum accum, MonoidCode monoid, const Matrix& A,
            ReduceDim dim, const Descriptor& desc = {}, Context& ctx = default_context());
/// ⊕ of all entries of A, at A's type (the monoid identity when A has none). (GrB_reduce scalar)
Scalar reduce(MonoidCode monoid, const Matrix& A, Context& ctx = default_context());
Scalar reduce(MonoidCode monoid, const Vector& u, Context& ctx = default_context());

/// C<M> = C accum Aᵀ. (GrB_transpose; desc.transpose_a cancels it)
void transpose(Matrix& C, const Matrix* mask, Accum accum, const Matrix& A,
               const Descriptor& desc = {}, Context& ctx = default_context());

/// C<M> = C accum A(rows, cols). (GrB_extract)
void extract(Matrix& C, const Matrix* mask, Accum accum, const Matrix& A, const Indices& rows,
             const Indices& cols, const Descriptor& desc = {}, Context& ctx = default_context());
/// C<M>(rows, cols) = C(rows, cols) accum A; the mask has C's dimensions. (GrB_assign)
void assign(Matrix& C, const Matrix* mask, Accum accum, const Matrix& A, const Indices& rows,
            const Indices& cols, const Descriptor& desc = {}, Context& ctx = default_context());

/// w<m> = w accum s at every position: each position the mask admits takes s typecast to w's
/// type, or w(i) accum s where w has an entry and an accumulator is given (the accumulator in
/// w's type). (GrB_Vector_assign_Scalar with GrB_ALL)
void assign(Vector& w, const Vector* mask, Accum accum, const Scalar& s,
            const Descriptor& desc = {}, Context& ctx = default_context());

/// C<M> = C accum kron(A, B) with op. (GrB_kronecker)
void kronecker(Matrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, const Matrix& A,
               const Matrix& B, const Descriptor& desc = {}, Context& ctx = default_context());

}  // namespace ringblas
