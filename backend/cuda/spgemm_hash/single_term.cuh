// spgemm_hash's single-term path: when every row of A has at most one entry (a diagonal D in
// D ⊕.⊗ B: row scaling, row selection, broadcasting a per-row value, as SuiteSparse's rowscale;
// or a row permutation/gather), row i of C is the row k of B scaled, C(i, j) = A(i, k) ⊗ B(k, j)
// with one term per entry (⊕ of one term is the term). No hashing, no sort: the rows of B are
// already sorted. One pass to check and count, a scan, one pass to fill, all memory-bound.
// Unmasked products only (a mask goes through the general pipeline); included by numeric_impl.cuh.
#pragma once
#include <cub/device/device_scan.cuh>

#include <optional>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_matrix.hpp"

namespace ringblas::cuda::spgemm_hash {

/// counts[i] = |B(k, :)| for the one entry A(i, k) of row i, 0 for an empty row; counts[m] = 0;
/// *several = 1 when some row of A has more than one entry (the path does not apply).
template <class I>
__global__ void k_single_term_count(csr_ref<I> A, csr_ref<I> B, std::int64_t* counts,
                                    int* several) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i > A.nrows) return;
  if (i == A.nrows) {
    counts[i] = 0;
    return;
  }
  const I p = A.rp[i], len = A.rp[i + 1] - p;
  if (len > 1) *several = 1;
  if (len != 1) {
    counts[i] = 0;
    return;
  }
  const I k = A.ci[p];
  counts[i] = std::int64_t(B.rp[k + 1] - B.rp[k]);
}

/// C's row pointers in I from the scanned counts.
template <class I>
__global__ void k_single_term_narrow(const std::int64_t* offsets, std::int64_t n, I* rp) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i <= n) rp[i] = I(offsets[i]);
}

/// A warp per row of C: row k of B copied with each value A(i, k) ⊗ B(k, j).
template <class S, class I>
__global__ void k_single_term_fill(numeric_args<S, I> a, const std::int64_t* offsets) {
  const std::int64_t i = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (i >= a.A.nrows) return;
  const I p = a.A.rp[i];
  if (a.A.rp[i + 1] == p) return;
  const I k = a.A.ci[p];
  const I q0 = a.B.rp[k], len = a.B.rp[k + 1] - q0;
  const std::int64_t out = offsets[i];
  for (I t = lane; t < len; t += 32) {
    const I q = q0 + t, j = a.B.ci[q];
    a.c_ci[out + t] = j;
    a.c_v[out + t] = product<S, I>(a, i, p, k, q, j);
  }
}

/// C = A ⊕.⊗ B by the single-term path, or nothing when some row of A has several entries (then
/// the general pipeline runs; the check cost one pass over A's row pointers and one read-back).
/// Sets info.need_wide (and returns an empty matrix) when C's entries overflow 32-bit offsets.
template <class S, class I>
std::optional<Matrix> run_single_term(numeric_args<S, I> a, const Context& ctx, run_info& info) {
  using T = typename S::value_type;
  cudaStream_t s = stream_of(ctx);
  const std::int64_t m = a.A.nrows;
  device_array<std::int64_t> counts(std::size_t(m) + 1, ctx), offsets(std::size_t(m) + 1, ctx);
  device_array<int> several(1, ctx);
  several.fill_zero(ctx);
  const unsigned grid = unsigned((m + 1 + 255) / 256);
  k_single_term_count<I><<<grid, 256, 0, s>>>(a.A, a.B, counts.data(), several.data());
  RINGBLAS_CHECK_LAUNCH("k_single_term_count", s, ctx.debug_sync);
  std::size_t bytes = 0;
  RINGBLAS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, counts.data(), offsets.data(),
                                                  m + 1, s));
  device_array<unsigned char> tmp(bytes, ctx);
  RINGBLAS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(tmp.data(), bytes, counts.data(),
                                                  offsets.data(), m + 1, s));
  struct {
    std::int64_t nnz;
    int several;
  } h{};
  RINGBLAS_CUDA_TRY(cudaMemcpyAsync(&h.nnz, offsets.data() + m, sizeof h.nnz,
                                    cudaMemcpyDeviceToHost, s));
  RINGBLAS_CUDA_TRY(cudaMemcpyAsync(&h.several, several.data(), sizeof h.several,
                                    cudaMemcpyDeviceToHost, s));
  RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));
  if (h.several) return std::nullopt;
  if (sizeof(I) == 4 && h.nnz >= (std::int64_t(1) << 31) - 1) {
    info.need_wide = true;
    return Matrix();
  }
  device_array<I> rp(std::size_t(m) + 1, ctx);
  if constexpr (sizeof(I) == 8) {
    RINGBLAS_CUDA_TRY(cudaMemcpyAsync(rp.data(), offsets.data(), (std::size_t(m) + 1) * 8,
                                      cudaMemcpyDeviceToDevice, s));
  } else {
    k_single_term_narrow<I><<<grid, 256, 0, s>>>(offsets.data(), m, rp.data());
    RINGBLAS_CHECK_LAUNCH("k_single_term_narrow", s, ctx.debug_sync);
  }
  device_array<I> ci(std::size_t(h.nnz), ctx);
  device_array<T> vals(std::size_t(h.nnz), ctx);
  a.c_rp = rp.data();
  a.c_ci = ci.data();
  a.c_v = vals.data();
  if (h.nnz > 0) {
    const std::int64_t threads = m * 32;
    k_single_term_fill<S, I><<<unsigned((threads + 255) / 256), 256, 0, s>>>(a, offsets.data());
    RINGBLAS_CHECK_LAUNCH("k_single_term_fill", s, ctx.debug_sync);
  }
  info.products += h.nnz;
  info.nnz += h.nnz;
  info.note += std::string(info.note.empty() ? "" : "; ") +
               "single-term rows (A has at most one entry per row): rows of B gathered";
  return Matrix::from_buffers(m, a.B.ncols, type_of_v<T>, index_type_of<I>::value, h.nnz,
                              rp.release(), ci.release(), vals.release());
}

}  // namespace ringblas::cuda::spgemm_hash
