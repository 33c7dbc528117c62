// Applicability of the spmm_batched family (CSR kernel spmm_batched and COO kernel
// spmm_batched_coo) for the dispatch table (plain C++; run through cuda::mxm_batched, or
// cuda::mxm (dense) as a batch of one).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ringblas/ops.hpp"

namespace ringblas::cuda::spmm_batched {

/// Why the family cannot compute C[k] = epilogue(op(A[k]) ⊕.⊗ B[k]) (ep nullptr: no epilogue),
/// or nullopt: the semiring compiled for spmm_batched (backend/cuda/manifest.def), B untransposed, no mask flags, a
/// numeric type for bias/ReLU/clamp; with `coo`, the tallest C column must fit the COO kernel's
/// shared-memory tile. `c_rows` lists every item's C rows.
std::optional<std::string> can_implement(const Semiring& s, const Epilogue* ep,
                                         const Descriptor& desc, const std::vector<Index>& c_rows,
                                         bool coo);

}  // namespace ringblas::cuda::spmm_batched
