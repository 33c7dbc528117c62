// cpu executor: batched SpMM (mxm_batched) as a loop over the dense-output mxm on SuiteSparse, and
// its stacked form as one SpMM with the block-diagonal matrix of the items.
#include <cstring>

#include "backend/cpu/cpu_backend.hpp"

namespace ringblas::cpu {
namespace {

/// diag(A[0], ..., A[N-1]) on the host, at A[0]'s value type (the others cast to it).
Matrix block_diagonal(const std::vector<Matrix>& A) {
  const Type t = A.empty() ? Type::fp64 : A[0].type();
  Index rows = 0, cols = 0, nnz = 0;
  for (const Matrix& a : A) rows += a.nrows(), cols += a.ncols(), nnz += a.nnz();
  const std::size_t tsz = type_size(t);
  Buffer rp(static_cast<std::size_t>(rows + 1) * sizeof(Index), Location::host);
  Buffer ci(static_cast<std::size_t>(nnz) * sizeof(Index), Location::host);
  Buffer val(static_cast<std::size_t>(nnz) * tsz, Location::host);
  Index* r = rp.as<Index>();
  Index* c = ci.as<Index>();
  Index row0 = 0, col0 = 0, at = 0;
  r[0] = 0;
  for (const Matrix& item : A) {
    const Matrix cast = item.type() == t ? Matrix() : item.cast(t);
    const Matrix& a = item.type() == t ? item : cast;
    const auto arp = a.row_ptr_vector();
    const auto aci = a.col_idx_vector();
    for (Index i = 0; i < a.nrows(); ++i) r[row0 + i + 1] = at + arp[i + 1];
    for (Index p = 0; p < a.nnz(); ++p) c[at + p] = col0 + aci[p];
    if (a.nnz())
      std::memcpy(static_cast<unsigned char*>(val.data()) + static_cast<std::size_t>(at) * tsz,
                  a.values().data(), static_cast<std::size_t>(a.nnz()) * tsz);
    row0 += a.nrows();
    col0 += a.ncols();
    at += a.nnz();
  }
  return Matrix::from_buffers(rows, cols, t, IndexType::i64, nnz, std::move(rp), std::move(ci),
                              std::move(val));
}

}  // namespace

void mxm_batched(std::vector<DenseMatrix>& C, const Semiring& s, const std::vector<Matrix>& A,
                 const std::vector<DenseMatrix>& B, const Descriptor& desc, Context& ctx) {
  // Results go to a copy first so that C is untouched when an item throws.
  std::vector<DenseMatrix> out(C);
  for (std::size_t k = 0; k < A.size(); ++k) cpu::mxm(out[k], s, A[k], B[k], desc, ctx);
  C = std::move(out);
}

void mxm_batched(DenseMatrix& C, const Semiring& s, const std::vector<Matrix>& A,
                 const DenseMatrix& B, const Epilogue& ep, const Descriptor& desc, Context& ctx) {
  // diag(A_b)ᵀ = diag(A_bᵀ): desc.transpose_a applies to the whole block-diagonal matrix.
  cpu::mxm(C, s, block_diagonal(A), B, ep, desc, ctx);
}

}  // namespace ringblas::cpu
