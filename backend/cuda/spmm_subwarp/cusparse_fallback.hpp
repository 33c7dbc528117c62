// cusparseSpMM as the automatic fallback of spmm_subwarp where bench_spmm measured it faster:
// plus_times fp32/fp64 on matrices with long rows on average (the nnz-split regime), no epilogue.
#pragma once
#include "backend/cuda/spmm_subwarp/spmm_problem.hpp"
#include "ringblas/context.hpp"
#include "ringblas/types.hpp"

namespace ringblas::cuda::detail {

/// Whether cusparseSpMM can compute `p` (plus_times at `t`, same layout for B and C, entries).
bool cusparse_spmm_supports(const SpmmProblem& p, Type t);
/// C = A B with cusparseSpMM (CUSPARSE_SPMM_ALG_DEFAULT) on ctx's stream.
void cusparse_spmm(const SpmmProblem& p, Type t, Context& ctx);

}  // namespace ringblas::cuda::detail
