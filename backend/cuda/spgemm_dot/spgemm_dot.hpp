// The spgemm_dot family: masked dot-product SpGEMM C<M> = C accum A ⊕.⊗ B computed only at the
// mask's entries, C(i, j) = ⊕_k A(i, k) ⊗ Bᵀ(j, k). Two variants: spgemm_dot intersects two
// sorted rows per mask entry (the shorter row probed, the longer binary-searched; a sub-warp per
// mask entry); spgemm_dot_hash goes row by row of the mask, row i of A in a shared-memory hash
// set probed by row j of Bᵀ for every mask entry (i, j) of the row. The dispatch table picks them
// over the row-wise hash SpGEMM when the mask is much sparser than the unmasked product
// (triangle counting: C<L> = L ⊕.⊗ Lᵀ with plus_pair). Plain C++ interface.
#pragma once
#include <cmath>
#include <optional>
#include <string>

#include "ringblas/ops.hpp"

namespace ringblas::cuda::spgemm_dot {

/// Why spgemm_dot cannot run C<M> = C accum op(A) ⊕.⊗ op(B), or nullopt: it needs a mask that
/// is not complemented (the entries to compute), a semiring compiled for spgemm_dot (backend/cuda/manifest.def) (none
/// positional), and sizes within 32-bit indices.
std::optional<std::string> can_implement(const Semiring& s, const Matrix* mask, const Matrix& A,
                                         const Matrix& B, const Descriptor& desc);

/// C<M> = C accum (op(A) ⊕.⊗ op(B)) on the device; op(B) is transposed first unless
/// desc.transpose_b (the kernel reads the rows of op(B)ᵀ). The shared write-back applies mask,
/// accumulator and replace. Throws NotImplemented for what can_implement rejects.
void run(Matrix& C, const Matrix* mask, Accum accum, const Semiring& s, const Matrix& A,
         const Matrix& B, const Descriptor& desc, Context& ctx);

/// The same product by the row-wise hash kernels (spgemm_dot_hash); the same requirements.
void run_hash(Matrix& C, const Matrix* mask, Accum accum, const Semiring& s, const Matrix& A,
              const Matrix& B, const Descriptor& desc, Context& ctx);

/// Cost estimates (entry visits) that order spgemm_dot and the row-wise product for `automatic`
/// (the density rule). Row-wise (hash): every product A(i, k) B(k, j) is formed, about
/// nnz(A) nnz(B) / inner of them on average, each a hash insert (~4 visits). Dot: per mask entry
/// a merge of the two rows, nnz(A) / rows(A) + nnz(B) / cols(op(B)) visits on average, plus a
/// transpose of B (about a radix sort, 8 visits per entry) unless the caller gave Bᵀ.
inline double rowwise_cost(const Matrix& A, const Matrix& B, const Descriptor& d) {
  const double inner = double(d.transpose_a ? A.nrows() : A.ncols());
  return inner > 0 ? 4.0 * double(A.nnz()) * double(B.nnz()) / inner : 0.0;
}
inline double cost(const Matrix* mask, const Matrix& A, const Matrix& B, const Descriptor& d) {
  if (!mask) return INFINITY;
  const double rows_a = double(d.transpose_a ? A.ncols() : A.nrows());
  const double avg_a = rows_a > 0 ? double(A.nnz()) / rows_a : 0.0;
  const double cols_b = double(d.transpose_b ? B.nrows() : B.ncols());
  const double avg_b = cols_b > 0 ? double(B.nnz()) / cols_b : 0.0;  // a row of op(B)ᵀ
  return double(mask->nnz()) * (avg_a + avg_b + 1.0) +
         (d.transpose_b ? 0.0 : 8.0 * double(B.nnz()));
}
/// spgemm_dot_hash: per mask entry one probe per entry of row j of op(B)ᵀ (avg_b visits), plus
/// each row of A inserted into its table (2 visits per entry of A) and the transpose of B.
inline double hash_cost(const Matrix* mask, const Matrix& A, const Matrix& B,
                        const Descriptor& d) {
  if (!mask) return INFINITY;
  const double cols_b = double(d.transpose_b ? B.nrows() : B.ncols());
  const double avg_b = cols_b > 0 ? double(B.nnz()) / cols_b : 0.0;
  return double(mask->nnz()) * (avg_b + 1.0) + 2.0 * double(A.nnz()) +
         (d.transpose_b ? 0.0 : 8.0 * double(B.nnz()));
}

}  // namespace ringblas::cuda::spgemm_dot
