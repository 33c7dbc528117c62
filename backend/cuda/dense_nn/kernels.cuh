// The dense_nn kernels (include/ringblas/nn.hpp), fp32, row-major:
// - relu_backward, dropout, adam: one element per thread (dropout: 4 when aligned), grid-stride;
//   no shared memory.
// - column_sums: block = Policy::sum_cols columns x sum_lanes row lanes over rows_per_block rows;
//   lanes reduce in shared memory (sum_cols x sum_lanes floats), then one atomicAdd per column
//   into the zeroed output (summation order differs from the cpu loop: results agree within
//   float tolerance, not bit for bit).
// - softmax_cross_entropy, accuracy: one warp per row of the subset R (row_warps warps a block);
//   the lanes stride over the classes, the warp reduces max / sum / argmax with shuffles; each
//   block stores its partial result (already divided by |R|), sum_partials_kernel adds them into
//   out[slot] (no atomics: 1M rows made 131k same-address atomics, 0.4 ms).
// dropout's generator is backend/core/nn_counter_rng.hpp, the same function the cpu loop calls.
#pragma once
#include <cstdint>

#include "backend/cuda/dense_nn/dropout_mask.cuh"
#include "backend/cuda/dense_nn/policy.hpp"

namespace ringblas::cuda::dense_nn {

__global__ void relu_backward_kernel(float* g, const float* y, std::size_t n) {
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < n;
       e += std::size_t(gridDim.x) * blockDim.x)
    if (!(y[e] > 0.0f)) g[e] = 0.0f;
}

/// y = dropout(x) on the elements first..n-1; x may be y (in place).
__global__ void dropout_kernel(float* y, const float* x, std::size_t first, std::size_t n,
                               DropoutMask m) {
  for (std::size_t e = first + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < n;
       e += std::size_t(gridDim.x) * blockDim.x)
    y[e] = m(x[e], e);
}
/// The same, four elements a thread (x and y 16-byte aligned), n4 = n / 4 (the launcher does the
/// tail with dropout_kernel).
__global__ void dropout4_kernel(float4* y, const float4* x, std::size_t n4, DropoutMask m) {
  for (std::size_t q = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; q < n4;
       q += std::size_t(gridDim.x) * blockDim.x) {
    float4 v = x[q];
    const std::size_t e = 4 * q;
    v.x = m(v.x, e);
    v.y = m(v.y, e + 1);
    v.z = m(v.z, e + 2);
    v.w = m(v.w, e + 3);
    y[q] = v;
  }
}

struct AdamScalars {
  float beta1, beta2, weight_decay, eps, step, bias_correction2;
};

__global__ void adam_kernel(float* w, const float* g, float* m, float* v, std::size_t n,
                            AdamScalars s) {
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < n;
       e += std::size_t(gridDim.x) * blockDim.x) {
    const float ge = g[e] + s.weight_decay * w[e];
    const float me = s.beta1 * m[e] + (1.0f - s.beta1) * ge;
    const float ve = s.beta2 * v[e] + (1.0f - s.beta2) * ge * ge;
    m[e] = me;
    v[e] = ve;
    w[e] -= s.step * me / (sqrtf(ve * s.bias_correction2) + s.eps);
  }
}

__global__ void column_sums_kernel(float* out, const float* a, std::int64_t rows,
                                   std::int64_t cols) {
  __shared__ float part[Policy::sum_lanes][Policy::sum_cols];
  const std::int64_t j = std::int64_t(blockIdx.x) * Policy::sum_cols + threadIdx.x;
  const std::int64_t first = std::int64_t(blockIdx.y) * Policy::rows_per_block;
  const std::int64_t last = min(rows, first + Policy::rows_per_block);
  float acc = 0.0f;
  if (j < cols)
    for (std::int64_t i = first + threadIdx.y; i < last; i += Policy::sum_lanes)
      acc += a[i * cols + j];
  part[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && j < cols) {
    float s = 0.0f;
    for (int l = 0; l < Policy::sum_lanes; ++l) s += part[l][threadIdx.x];
    atomicAdd(out + j, s);
  }
}

__device__ inline float warp_sum(float x) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}
__device__ inline float warp_max(float x) {
  for (int o = 16; o > 0; o >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, o));
  return x;
}

/// Block-wide sum of one value per warp (lane 0's) of a block of row_warps warps, in warp order;
/// the total is meaningful in thread 0 only.
__device__ inline float block_total(float warp_value) {
  __shared__ float part[Policy::row_warps];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) part[warp] = warp_value;
  __syncthreads();
  float s = 0.0f;
  if (threadIdx.x == 0)
    for (int w = 0; w < Policy::row_warps; ++w) s += part[w];
  return s;
}

/// The block's total added to *out by thread 0.
__device__ inline void block_add(float* out, float warp_value) {
  const float s = block_total(warp_value);
  if (threadIdx.x == 0) atomicAdd(out, s);
}

/// The block's total stored to *slot by thread 0 (a block's partial result; sum_partials_kernel
/// adds the blocks' in a fixed order).
__device__ inline void block_store(float* slot, float warp_value) {
  const float s = block_total(warp_value);
  if (threadIdx.x == 0) *slot = s;
}

/// *out = Σ partial[0..count), one block: each thread sums a strided share, then the block adds
/// the threads' sums in order (deterministic for a given count).
__global__ void sum_partials_kernel(float* out, const float* partial, std::int64_t count) {
  __shared__ float part[Policy::block];
  float s = 0.0f;
  for (std::int64_t q = threadIdx.x; q < count; q += blockDim.x) s += partial[q];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int half = Policy::block / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = part[0];
}

/// The row of the subset R this warp handles (one warp per row), with its logits and label.
struct WarpRow {
  int lane;
  bool active;
  std::int64_t i;
  const float* z;
  std::int32_t label;
};
/// The k-th row of the subset (k < count: active).
__device__ inline WarpRow warp_row(const float* z, const std::int32_t* labels,
                                   const std::int32_t* rows, std::int64_t count, std::int64_t c,
                                   std::int64_t k) {
  WarpRow w{int(threadIdx.x % 32), false, 0, nullptr, 0};
  if (k < count) {
    w.active = true;
    w.i = rows[k];
    w.z = z + w.i * c;
    w.label = labels[w.i];
  }
  return w;
}

/// The subset positions k this thread's warp handles (warps stride over the subset when the grid
/// has fewer warps than it has rows).
#define RINGBLAS_FOR_WARP_ROWS(k, count)                                                 \
  for (std::int64_t k = std::int64_t(blockIdx.x) * Policy::row_warps + threadIdx.x / 32; \
       k < (count); k += std::int64_t(gridDim.x) * Policy::row_warps)

/// loss and gradient over the rows `rows[0..count)`; g (when set) was zeroed before; each
/// block's share of the loss to partial[blockIdx.x].
__global__ void softmax_ce_kernel(float* g, float* partial, const float* z,
                                  const std::int32_t* labels, const std::int32_t* rows,
                                  std::int64_t count, std::int64_t c, float inv_count) {
  float loss = 0.0f;
  RINGBLAS_FOR_WARP_ROWS(k, count) {
    const WarpRow w = warp_row(z, labels, rows, count, c, k);
    const int lane = w.lane;
    const std::int64_t i = w.i;
    const float* zi = w.z;
    const std::int32_t label = w.label;
    float mx = -INFINITY;
    for (std::int64_t j = lane; j < c; j += 32) mx = fmaxf(mx, zi[j]);
    mx = warp_max(mx);
    float sum = 0.0f;
    for (std::int64_t j = lane; j < c; j += 32) sum += expf(zi[j] - mx);
    const float log_sum = logf(warp_sum(sum));
    if (label < 0 || label >= c)
      loss = NAN;  // out of range: validation could not see device labels (nn.hpp)
    else
      loss += (log_sum - (zi[label] - mx)) * inv_count;
    if (g) {
      float* gi = g + i * c;
      for (std::int64_t j = lane; j < c; j += 32)
        gi[j] = (expf(zi[j] - mx - log_sum) - (j == label ? 1.0f : 0.0f)) * inv_count;
    }
  }
  block_store(partial + blockIdx.x, loss);
}

/// (argmax == label) / count summed over the rows (per block, to partial[blockIdx.x]); ties go
/// to the lowest column.
__global__ void accuracy_kernel(float* partial, const float* z, const std::int32_t* labels,
                                const std::int32_t* rows, std::int64_t count, std::int64_t c,
                                float inv_count) {
  float hit = 0.0f;
  RINGBLAS_FOR_WARP_ROWS(k, count) {
    const WarpRow w = warp_row(z, labels, rows, count, c, k);
    const int lane = w.lane;
    const float* zi = w.z;
    float best = -INFINITY;
    std::int64_t arg = c;
    for (std::int64_t j = lane; j < c; j += 32)
      if (zi[j] > best || arg == c) {
        best = zi[j];
        arg = j;
      }
    for (int o = 16; o > 0; o >>= 1) {
      const float ob = __shfl_xor_sync(0xffffffffu, best, o);
      const std::int64_t oa = __shfl_xor_sync(0xffffffffu, arg, o);
      if (ob > best || (ob == best && oa < arg)) {
        best = ob;
        arg = oa;
      }
    }
    hit += arg == w.label ? inv_count : 0.0f;
  }
  block_store(partial + blockIdx.x, hit);
}

/// The same two for a few classes (c <= Policy::thread_row_classes): a thread per row of the
/// subset, the row's classes in a loop (a warp per 16-class row left half its lanes idle and, one
/// wave of warps after another, took 0.5 ms on 1M rows). Per-block partials as above.
__global__ void softmax_ce_thread_kernel(float* g, float* partial, const float* z,
                                         const std::int32_t* labels, const std::int32_t* rows,
                                         std::int64_t count, std::int64_t c, float inv_count) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  float loss = 0.0f;
  if (k < count) {
    const std::int64_t i = rows[k];
    const float* zi = z + i * c;
    const std::int32_t label = labels[i];
    float mx = -INFINITY;
    for (std::int64_t j = 0; j < c; ++j) mx = fmaxf(mx, zi[j]);
    float sum = 0.0f;
    for (std::int64_t j = 0; j < c; ++j) sum += expf(zi[j] - mx);
    const float log_sum = logf(sum);
    loss = label < 0 || label >= c ? NAN : (log_sum - (zi[label] - mx)) * inv_count;
    if (g) {
      float* gi = g + i * c;
      for (std::int64_t j = 0; j < c; ++j)
        gi[j] = (expf(zi[j] - mx - log_sum) - (j == label ? 1.0f : 0.0f)) * inv_count;
    }
  }
  block_store(partial + blockIdx.x, warp_sum(loss));
}

__global__ void accuracy_thread_kernel(float* partial, const float* z, const std::int32_t* labels,
                                       const std::int32_t* rows, std::int64_t count, std::int64_t c,
                                       float inv_count) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  float hit = 0.0f;
  if (k < count) {
    const std::int64_t i = rows[k];
    const float* zi = z + i * c;
    float best = -INFINITY;
    std::int64_t arg = c;
    for (std::int64_t j = 0; j < c; ++j)
      if (zi[j] > best || arg == c) {
        best = zi[j];
        arg = j;
      }
    hit = arg == labels[i] ? inv_count : 0.0f;
  }
  block_store(partial + blockIdx.x, warp_sum(hit));
}

/// Masked sigmoid cross-entropy, pass 1: acc[0] += Σ loss, acc[1] += #present over the present
/// targets (grid-stride, block_add's block of row_warps warps; acc zeroed before).
__global__ void sigmoid_ce_sum_kernel(float* acc, const float* z, const float* y, std::size_t n) {
  float loss = 0.0f, present = 0.0f;
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < n;
       e += std::size_t(gridDim.x) * blockDim.x) {
    if (isnan(y[e])) continue;
    present += 1.0f;
    loss += fmaxf(z[e], 0.0f) - z[e] * y[e] + log1pf(expf(-fabsf(z[e])));
  }
  block_add(acc, warp_sum(loss));
  __syncthreads();  // block_add's shared array is reused
  block_add(acc + 1, warp_sum(present));
}

/// Pass 2: g = (σ(z) − y) / P where y is present, 0 where missing; out = Σ loss / P (0 if P = 0).
__global__ void sigmoid_ce_grad_kernel(float* g, float* out, const float* acc, const float* z,
                                       const float* y, std::size_t n) {
  const float p = acc[1];
  const float inv = p > 0.0f ? 1.0f / p : 0.0f;
  if (blockIdx.x == 0 && threadIdx.x == 0) *out = acc[0] * inv;
  if (!g) return;
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < n;
       e += std::size_t(gridDim.x) * blockDim.x) {
    const float ez = expf(-fabsf(z[e]));
    const float s = z[e] >= 0.0f ? 1.0f / (1.0f + ez) : ez / (1.0f + ez);
    g[e] = isnan(y[e]) ? 0.0f : (s - y[e]) * inv;
  }
}

}  // namespace ringblas::cuda::dense_nn
