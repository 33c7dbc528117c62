// Type-erased launch description of the spmv kernels (pull and push) and their launchers.
#pragma once
#include <cstdint>

namespace ringblas::cuda::detail {

/// t = op(A) ⊕.⊗ u (mxv, a_first) or u ⊕.⊗ op(A) (vxm) into dense arrays t_values / t_present
/// of n_out elements, restricted to outputs where allowed[r] != 0 (allowed == nullptr: all).
struct SpmvProblem {
  int n_out = 0, n_in = 0;
  bool a_first = true;  ///< multiply as mul(A(r,k), u(k)) (mxv) or mul(u(k), A(k,r)) (vxm)
  // pull: CSR whose rows are outputs; u dense (u_present == nullptr: every entry present)
  // push: CSR whose rows are inputs; u as a list of u_nnz (index, value) pairs
  const std::int32_t* row_ptr = nullptr;
  const std::int32_t* col_idx = nullptr;
  const void* a_values = nullptr;
  const void* u_values = nullptr;
  const unsigned char* u_present = nullptr;
  const std::int32_t* u_idx = nullptr;
  int u_nnz = 0;
  const unsigned char* allowed = nullptr;
  void* t_values = nullptr;
  unsigned char* t_present = nullptr;
  /// Pull only. >= 0 (a BinaryOpCode, not positional): t_values is the full w itself, in the
  /// semiring's type, and each row with a product becomes w(r) = w(r) accum t(r) in place;
  /// t_present is not written (PageRank's ranks: one launch, no t, no write-back; issue 9).
  int accum_into_t = -1;
};

/// Instantiated per spmv row of backend/cuda/manifest.def.
template <class S> void spmv_pull_launch(const SpmvProblem& p, int log_sw, void* stream, bool sync);
template <class S> void spmv_push_launch(const SpmvProblem& p, int log_sw, void* stream, bool sync);

}  // namespace ringblas::cuda::detail
