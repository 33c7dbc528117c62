// The maxk family's __global__ kernels: thin wrappers that map one warp to one row and call the
// warp code of agent.cuh. Shared memory: Policy::warps * h floats (forward, backward), none (topk).
#pragma once
#include "backend/cuda/maxk/agent.cuh"
#include "backend/cuda/sparse_layer/agent.cuh"  // ColumnEpilogue: bias, ReLU, clamp in fp32

namespace ringblas::cuda::maxk {

/// A warp's share of the rows: row `row`, edges [begin, end); `split` when the row has several
/// segments (their results are combined atomically), `first` for its first segment.
struct Segment {
  int row, begin, end;
  bool split, first;
};

/// Warp w's segment: with offsets == nullptr warp w takes row w whole; else offsets[r] is the
/// first segment of row r (exclusive scan of segment_counts_kernel's counts, offsets[n] the
/// total) and w is found by binary search. False when w has no segment.
__device__ __forceinline__ bool find_segment(const int* offsets, const int* rp, int n, int w,
                                             Segment& s) {
  if (!offsets) {
    if (w >= n) return false;
    s = {w, rp[w], rp[w + 1], false, true};
    return true;
  }
  if (w >= offsets[n]) return false;
  int lo = 0, hi = n - 1;  // the last row r with offsets[r] <= w
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (offsets[mid] <= w)
      lo = mid;
    else
      hi = mid - 1;
  }
  const int part = w - offsets[lo];
  const int begin = rp[lo] + part * Policy::segment_edges;
  s = {lo, begin, min(rp[lo + 1], begin + Policy::segment_edges), offsets[lo + 1] - offsets[lo] > 1,
       part == 0};
  return true;
}

/// counts[r] = segments of row r (1 for rows of at most Policy::segment_edges edges, empty rows
/// included), counts[n] = 0; rows that split have their h outputs in `zero` cleared (their
/// segments add into them), when zero is set.
__global__ void __launch_bounds__(Policy::block)
    segment_counts_kernel(const int* rp, int n, int* counts, float* zero, int h) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r > n) return;
  if (r == n) {
    counts[n] = 0;
    return;
  }
  const int deg = rp[r + 1] - rp[r];
  const int c =
      deg <= Policy::segment_edges ? 1 : (deg + Policy::segment_edges - 1) / Policy::segment_edges;
  counts[r] = c;
  if (zero && c > 1)
    for (int q = 0; q < h; ++q) zero[(long long)r * h + q] = 0.0f;
}

/// X = maxk(Y, k): row r of Y (n x h, row-major, h <= 256) to k (value, column) pairs.
__global__ void __launch_bounds__(Policy::block)
    topk_kernel(const float* y, int n, int h, int k, float* vals, std::uint8_t* idx) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * Policy::warps + (threadIdx.x >> 5);
  if (row >= n) return;  // the whole warp leaves together
  warp_topk(y + (long long)row * h, h, k, lane, vals + (long long)row * k,
            idx + (long long)row * k);
}

/// D(i, idx[i*k + t]) = X's value, one thread per CBSR entry (D zeroed before the launch).
__global__ void __launch_bounds__(Policy::block)
    scatter_kernel(const float* xv, const std::uint8_t* xi, long long entries, int k, int h,
                   float* d) {
  const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= entries) return;
  d[(e / k) * h + xi[e]] = xv[e];
}

/// C(row, :) = Σ_j A(row, j) X(j, :): A in CSR (int32), X in CBSR, C dense n x h row-major.
/// Shared memory: forward_slots(k) rows of h floats per warp, summed at the end. A split row's
/// segments add their partial rows (the first with the bias) into C, zeroed by
/// segment_counts_kernel; only a bias epilogue may split (the launcher passes offsets ==
/// nullptr for ReLU or clamp).
__global__ void __launch_bounds__(Policy::block, Policy::blocks_per_sm)
    forward_kernel(const int* rp, const int* col, const float* av, int n, const int* offsets,
                   const float* xv, const std::uint8_t* xi, int k, int h, float* c,
                   sparse_layer::ColumnEpilogue epi) {
  extern __shared__ float smem[];
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  Segment sg;
  if (!find_segment(offsets, rp, n, blockIdx.x * Policy::warps + w, sg)) return;
  const int slots = k > 0 ? forward_slots(k) : 1;
  float* buf = smem + w * slots * h;
  for (int q = lane; q < slots * h; q += 32) buf[q] = 0.0f;
  __syncwarp();
  if (k > 0) warp_forward_row(col, av, sg.begin, sg.end, xv, xi, k, h, buf, lane);
  __syncwarp();
  float* out = c + (long long)sg.row * h;
  for (int q = lane; q < h; q += 32) {
    float x = buf[q];
    for (int s = 1; s < slots; ++s) x += buf[s * h + q];
    if (!sg.split)
      out[q] = epi(x, sg.row, q);
    else
      atomicAdd(&out[q], x + (sg.first && epi.bias ? epi.bias[q] : 0.0f));
  }
}

/// C(j, t) += A(row, j) B(row, idx_j[t]) for every edge of row `row` of A (CSR, int32); B dense
/// n x h row-major; C's values zeroed before the launch. V = 4 needs k % 4 == 0.
template <int V>
__global__ void __launch_bounds__(Policy::block, Policy::blocks_per_sm)
    backward_kernel(const int* rp, const int* col, const float* av, int n, const int* offsets,
                    const float* b, int h, const std::uint8_t* ci, int k, float* cv) {
  extern __shared__ float smem[];
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  Segment sg;
  if (!find_segment(offsets, rp, n, blockIdx.x * Policy::warps + w, sg)) return;
  if (sg.begin == sg.end) return;
  float* buf = smem + w * h;
  const float* brow = b + (long long)sg.row * h;
  for (int q = lane; q < h; q += 32) buf[q] = brow[q];
  __syncwarp();
  warp_backward_row<V>(col, av, sg.begin, sg.end, ci, k, buf, cv, lane);
}

}  // namespace ringblas::cuda::maxk
