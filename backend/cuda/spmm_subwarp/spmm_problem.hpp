// Type-erased launch descriptions of the spmm_subwarp and spmm_batched kernels (device pointers
// and sizes), shared by the entry points (plain C++) and the kernel launchers (nvcc).
#pragma once
#include <cstdint>

#include "backend/cuda/spmm_subwarp/spmm_policy.hpp"

namespace ringblas::cuda::detail {

/// Epilogue flags as the kernels read them (see ringblas::Epilogue).
struct EpilogueArgs {
  bool bias = false, relu = false, clamp = false;
  const void* bias_values = nullptr;  ///< n_B values in the semiring's type
  double clamp_value = 0;
};

/// One SpMM C = A ⊕.⊗ B with A in CSR (32-bit indices), B and C dense with strides.
struct SpmmProblem {
  int m = 0, k = 0, n = 0;  ///< C is m x n, A is m x k, B is k x n
  long long nnz = 0;
  const std::int32_t* row_ptr = nullptr;
  const std::int32_t* col_idx = nullptr;
  const std::int32_t* row_idx = nullptr;  ///< COO rows (COO kernels; entries in any order)
  const void* a_values = nullptr;         ///< nullptr when the multiply does not read A
  const void* b = nullptr;
  long long b_rs = 0, b_cs = 0;
  void* c = nullptr;
  long long c_rs = 0, c_cs = 0;
  EpilogueArgs epilogue;
};

/// One item of a batch as the batched kernels read it from device memory.
struct BatchItem {
  const std::int32_t* row_ptr;
  const std::int32_t* col_idx;
  const void* a_values;
  const void* b;
  void* c;
  int m, k, nnz;
  int b_rs, b_cs, c_rs, c_cs;
};

/// A whole batch: items and, for the CSR kernel, the first row block of each item (size
/// batch + 1), both on the device.
struct BatchedProblem {
  int batch = 0, n = 0, max_m = 0;
  const BatchItem* items = nullptr;
  const int* block_offsets = nullptr;
  int total_blocks = 0;
  EpilogueArgs epilogue;
};

/// Launchers, instantiated per spmm_subwarp / spmm_batched row of backend/cuda/manifest.def.
template <class S> void spmm_csr_launch(const SpmmProblem& p, const SubwarpShape& shape, void* stream, bool sync);
/// spmm_subwarp's nnz-split kernel with staged indices and several vectors per lane
/// (spmm_nnzsplit_impl.cuh): `shape` from nnzsplit_shape, runs of `L` nonzeros per sub-warp
/// (nnzsplit_run_length), `stream_c`: whole rows stored evict-first, `opt`: how it meets its row
/// pass (NnzsplitOptions: dependent launch, run rows from the pass).
template <class S>
void spmm_nnzsplit_launch(const SpmmProblem& p, const SubwarpShape& shape, int L, bool stream_c,
                          void* stream, bool sync, const NnzsplitOptions& opt = {});
/// spmm_rowsplit: one sub-warp per row of at most `long_row` nonzeros, the whole block (of
/// `threads`, a multiple of 32 up to SpmmPolicy::block_threads) per longer row; `stream_c`: C's
/// stores evict-first (spmm_rowsplit_impl.cuh).
template <class S> void spmm_rowsplit_launch(const SpmmProblem& p, const SubwarpShape& shape, int long_row, int threads, bool stream_c, void* stream, bool sync);
template <class S> void spmm_coo_launch(const SpmmProblem& p, const SubwarpShape& shape, void* stream, bool sync);
template <class S> void spmm_batched_csr_launch(const BatchedProblem& p, const SubwarpShape& shape, void* stream, bool sync);
/// `col_block` columns of C per block, staged in shared memory (max_m * col_block values).
template <class S> void spmm_batched_coo_launch(const BatchedProblem& p, int col_block, void* stream, bool sync);

}  // namespace ringblas::cuda::detail
