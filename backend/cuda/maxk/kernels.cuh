// The maxk family's __global__ kernels: thin wrappers that map one warp to one row and call the
// warp code of agent.cuh. Shared memory: Policy::warps * h floats (forward, backward), none (topk).
#pragma once
#include "backend/cuda/maxk/agent.cuh"
#include "backend/cuda/sparse_layer/agent.cuh"  // ColumnEpilogue: bias, ReLU, clamp in fp32

namespace ringblas::cuda::maxk {

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
/// V = 4 needs k % 4 == 0 (vector loads of X's rows).
template <int V>
__global__ void __launch_bounds__(Policy::block)
    forward_kernel(const int* rp, const int* col, const float* av, int n, const float* xv,
                   const std::uint8_t* xi, int k, int h, float* c,
                   sparse_layer::ColumnEpilogue epi) {
  extern __shared__ float smem[];
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int row = blockIdx.x * Policy::warps + w;
  if (row >= n) return;
  float* buf = smem + w * h;
  for (int q = lane; q < h; q += 32) buf[q] = 0.0f;
  __syncwarp();
  if (k > 0) warp_forward_row<V>(col, av, rp[row], rp[row + 1], xv, xi, k, buf, lane);
  __syncwarp();
  float* out = c + (long long)row * h;
  for (int q = lane; q < h; q += 32) out[q] = epi(buf[q], row, q);
}

/// C(j, t) += A(row, j) B(row, idx_j[t]) for every edge of row `row` of A (CSR, int32); B dense
/// n x h row-major; C's values zeroed before the launch. V = 4 needs k % 4 == 0.
template <int V>
__global__ void __launch_bounds__(Policy::block)
    backward_kernel(const int* rp, const int* col, const float* av, int n, const float* b,
                    int h, const std::uint8_t* ci, int k, float* cv) {
  extern __shared__ float smem[];
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int row = blockIdx.x * Policy::warps + w;
  if (row >= n) return;
  const int begin = rp[row], end = rp[row + 1];
  if (begin == end) return;
  float* buf = smem + w * h;
  const float* brow = b + (long long)row * h;
  for (int q = lane; q < h; q += 32) buf[q] = brow[q];
  __syncwarp();
  warp_backward_row<V>(col, av, begin, end, ci, k, buf, cv, lane);
}

}  // namespace ringblas::cuda::maxk
