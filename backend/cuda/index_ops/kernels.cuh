// Kernels of the index operations (extract, assign). Thread mapping: one thread per output row
// (count, then fill at the scanned offset; one warp per output row for the fill when columns
// keep their ids, so that a long row is copied by 32 lanes), one per entry for the value gather;
// no shared memory.
// gather: output row i is source row src_row[i] (-1: empty; null: i itself) with every source
// column c mapped to the output columns col_out[col_ptr[c] .. col_ptr[c+1]) (null: c itself);
// rows come out sorted when the map is monotone, else the launcher sorts them per row.
// filter: keeps the entries of C inside (or outside) the region rows x cols of flagged indices.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "ringblas/types.hpp"

namespace ringblas::cuda::index_ops {

struct gather_map {
  const std::int64_t* src_row = nullptr;  ///< per output row; -1 = empty; null = identity
  const std::int64_t* col_ptr = nullptr;  ///< per source column + 1; null = identity
  const std::int64_t* col_out = nullptr;
};

/// counts[i] = entries of output row i (64-bit: repeated indices can grow the result).
template <class I>
__global__ void k_gather_count(Index out_rows, const I* rp, const I* ci, gather_map m,
                               std::int64_t* counts) {
  const Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= out_rows) return;
  const std::int64_t r = m.src_row ? m.src_row[i] : i;
  std::int64_t c = 0;
  if (r >= 0) {
    if (!m.col_ptr)
      c = rp[r + 1] - rp[r];
    else
      for (I p = rp[r]; p < rp[r + 1]; ++p) c += m.col_ptr[ci[p] + 1] - m.col_ptr[ci[p]];
  }
  counts[i] = c;
}

/// Writes output row i at out_rp[i]: its columns and the source entry of each.
template <class I>
__global__ void k_gather_fill(Index out_rows, const I* rp, const I* ci, gather_map m,
                              const std::int64_t* out_rp, I* out_ci, std::int64_t* src) {
  const Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= out_rows) return;
  const std::int64_t r = m.src_row ? m.src_row[i] : i;
  if (r < 0) return;
  std::int64_t o = out_rp[i];
  for (I p = rp[r]; p < rp[r + 1]; ++p) {
    if (!m.col_ptr) {
      out_ci[o] = ci[p];
      src[o++] = p;
    } else {
      for (std::int64_t q = m.col_ptr[ci[p]]; q < m.col_ptr[ci[p] + 1]; ++q) {
        out_ci[o] = I(m.col_out[q]);
        src[o++] = p;
      }
    }
  }
}

/// The fill of k_gather_fill when columns keep their ids (no column map): one warp per output
/// row, its lanes copying the source row's columns and positions.
template <class I>
__global__ void k_gather_fill_rows(Index out_rows, const I* rp, const I* ci,
                                   const std::int64_t* src_row, const std::int64_t* out_rp,
                                   I* out_ci, std::int64_t* src) {
  const Index i = (Index(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = int(threadIdx.x & 31);
  if (i >= out_rows) return;
  const std::int64_t r = src_row ? src_row[i] : i;
  if (r < 0) return;
  const std::int64_t o = out_rp[i];
  const std::int64_t p0 = rp[r], p1 = rp[r + 1];
  for (std::int64_t p = p0 + lane; p < p1; p += 32) {
    out_ci[o + (p - p0)] = ci[p];
    src[o + (p - p0)] = p;
  }
}

/// Does entry (r, c) lie in the region (null flags: every index)?
__device__ __forceinline__ bool in_region(const unsigned char* rowin, const unsigned char* colin,
                                          std::int64_t r, std::int64_t c) {
  return (!rowin || rowin[r]) && (!colin || colin[c]);
}

template <class I>
__global__ void k_filter_count(Index nrows, const I* rp, const I* ci, const unsigned char* rowin,
                               const unsigned char* colin, bool inside, std::int64_t* counts) {
  const Index r = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  std::int64_t c = 0;
  for (I p = rp[r]; p < rp[r + 1]; ++p) c += in_region(rowin, colin, r, ci[p]) == inside;
  counts[r] = c;
}

template <class I>
__global__ void k_filter_fill(Index nrows, const I* rp, const I* ci, const unsigned char* rowin,
                              const unsigned char* colin, bool inside, const std::int64_t* out_rp,
                              I* out_ci, std::int64_t* src) {
  const Index r = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  std::int64_t o = out_rp[r];
  for (I p = rp[r]; p < rp[r + 1]; ++p)
    if (in_region(rowin, colin, r, ci[p]) == inside) {
      out_ci[o] = ci[p];
      src[o++] = p;
    }
}

/// out[q] = in[src[q]] for elements of E (1, 4 or 8 bytes: values of any type).
template <class E>
__global__ void k_gather_values(std::int64_t n, const std::int64_t* src, const E* in, E* out) {
  const std::int64_t q = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q < n) out[q] = in[src[q]];
}

/// out[r] = I(in[r]) (row pointers narrowed to the matrix's index width).
template <class I>
__global__ void k_narrow(Index n, const std::int64_t* in, I* out) {
  const Index r = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r < n) out[r] = I(in[r]);
}

}  // namespace ringblas::cuda::index_ops
