// cuda entry points of the dense_nn operations (include/ringblas/nn.hpp; gemm is cublas_gemm.cu):
// operands to the device (operand.hpp), output cleared where the kernel accumulates, one launch.
// Nothing here synchronises with the host (the scalars stay in out[slot] on the device).
#include <cmath>
#include <cstdint>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/dense_nn/grid.cuh"
#include "backend/cuda/dense_nn/kernels.cuh"
#include "backend/cuda/dense_nn/operand.hpp"

namespace ringblas::cuda {
namespace {

using dense_nn::Policy;

using dense_nn::stride_grid;

/// Blocks of the row kernels (softmax cross-entropy, accuracy): a warp per row of the subset.
unsigned row_grid(Index count) { return grid_for(std::size_t(count), Policy::row_warps); }

/// out = Σ of the row kernel's per-block partials.
void sum_partials(float* out, const device_array<float>& partial, cudaStream_t st,
                  const Context& ctx) {
  dense_nn::sum_partials_kernel<<<1, Policy::block, 0, st>>>(out, partial.data(),
                                                             std::int64_t(partial.size()));
  RINGBLAS_CHECK_LAUNCH("sum_partials_kernel", st, ctx.debug_sync);
}

template <class X>
float* values_of(X& x) {
  return x.values().template as<float>();
}

}  // namespace

void column_sums(DenseVector& s, const DenseMatrix& A, Context& ctx) {
  dense_nn::make_resident(s, ctx);
  const cudaStream_t st = stream_of(ctx);
  if (s.size() == 0) return;
  RINGBLAS_CUDA_TRY(cudaMemsetAsync(values_of(s), 0, s.values().size(), st));
  if (A.nrows() == 0) return;
  Buffer hold;
  const float* a = static_cast<const float*>(dense_nn::device_values(A, hold, ctx));
  const dim3 block(Policy::sum_cols, Policy::sum_lanes);
  const dim3 grid(grid_for(std::size_t(A.ncols()), Policy::sum_cols),
                  grid_for(std::size_t(A.nrows()), Policy::rows_per_block));
  dense_nn::column_sums_kernel<<<grid, block, 0, st>>>(values_of(s), a, A.nrows(), A.ncols());
  RINGBLAS_CHECK_LAUNCH("column_sums_kernel", st, ctx.debug_sync);
}

void relu_backward(DenseMatrix& G, const DenseMatrix& Y, Context& ctx) {
  dense_nn::make_resident(G, ctx);
  const std::size_t n = std::size_t(G.nrows()) * std::size_t(G.ncols());
  if (n == 0) return;
  Buffer hold;
  const float* y = static_cast<const float*>(dense_nn::device_values(Y, hold, ctx));
  const cudaStream_t st = stream_of(ctx);
  dense_nn::relu_backward_kernel<<<stride_grid(n), Policy::block, 0, st>>>(values_of(G), y, n);
  RINGBLAS_CHECK_LAUNCH("relu_backward_kernel", st, ctx.debug_sync);
}

void dropout(DenseMatrix& Y, const DenseMatrix* X, double p, std::uint64_t seed,
             std::uint64_t stream, Context& ctx) {
  if (X) {  // out of place: Y's old values are not needed, only its device storage
    if (Y.location() != Location::device)
      Y = DenseMatrix::from_buffer(Y.nrows(), Y.ncols(), Y.type(), Y.layout(),
                                   Buffer(Y.values().size(), Location::device, &ctx));
  } else {
    dense_nn::make_resident(Y, ctx);
  }
  const std::size_t n = std::size_t(Y.nrows()) * std::size_t(Y.ncols());
  if (n == 0) return;
  Buffer hold;
  const float* x =
      X ? static_cast<const float*>(dense_nn::device_values(*X, hold, ctx)) : values_of(Y);
  const cudaStream_t st = stream_of(ctx);
  const dense_nn::DropoutMask mask = dense_nn::mask_of(p, seed, stream);
  float* y = values_of(Y);
  std::size_t done = 0;
  if (reinterpret_cast<std::uintptr_t>(y) % 16 == 0 &&
      reinterpret_cast<std::uintptr_t>(x) % 16 == 0) {
    const std::size_t n4 = n / 4;
    if (n4 > 0) {
      dense_nn::dropout4_kernel<<<stride_grid(n4), Policy::block, 0, st>>>(
          reinterpret_cast<float4*>(y), reinterpret_cast<const float4*>(x), n4, mask);
      RINGBLAS_CHECK_LAUNCH("dropout4_kernel", st, ctx.debug_sync);
    }
    done = 4 * n4;
  }
  if (done < n) {  // unaligned, or the last n % 4 elements
    dense_nn::dropout_kernel<<<stride_grid(n - done), Policy::block, 0, st>>>(y, x, done, n, mask);
    RINGBLAS_CHECK_LAUNCH("dropout_kernel", st, ctx.debug_sync);
  }
}

namespace {

/// The operands both row kernels read, on the device, and where their sum goes.
struct RowOperands {
  Buffer hold_z, hold_labels, hold_rows;
  const float* z;
  const std::int32_t* labels;
  const std::int32_t* rows;
  float* out;
  RowOperands(DenseVector& o, Index slot, const DenseMatrix& Z, const DenseVector& l,
              const DenseVector& r, Context& ctx) {
    dense_nn::make_resident(o, ctx);
    z = static_cast<const float*>(dense_nn::device_values(Z, hold_z, ctx));
    labels = static_cast<const std::int32_t*>(dense_nn::device_values(l, hold_labels, ctx));
    rows = static_cast<const std::int32_t*>(dense_nn::device_values(r, hold_rows, ctx));
    out = values_of(o) + slot;
  }
};

}  // namespace

void softmax_cross_entropy(DenseMatrix* G, DenseVector& out, Index slot, const DenseMatrix& Z,
                           const DenseVector& labels, const DenseVector& rows, Context& ctx) {
  const RowOperands a(out, slot, Z, labels, rows, ctx);
  const cudaStream_t st = stream_of(ctx);
  if (G) dense_nn::make_resident(*G, ctx);
  float* g = G ? values_of(*G) : nullptr;
  if (g) RINGBLAS_CUDA_TRY(cudaMemsetAsync(g, 0, G->values().size(), st));
  const Index count = rows.size();
  const float inv = float(1.0 / double(count));
  if (Z.ncols() <= Policy::thread_row_classes) {
    const unsigned grid = grid_for(std::size_t(count), Policy::row_warps * 32);
    device_array<float> partial(grid, ctx);
    dense_nn::softmax_ce_thread_kernel<<<grid, Policy::row_warps * 32, 0, st>>>(
        g, partial.data(), a.z, a.labels, a.rows, count, Z.ncols(), inv);
    RINGBLAS_CHECK_LAUNCH("softmax_ce_thread_kernel", st, ctx.debug_sync);
    sum_partials(a.out, partial, st, ctx);
    return;
  }
  device_array<float> partial(row_grid(count), ctx);
  dense_nn::softmax_ce_kernel<<<row_grid(count), Policy::row_warps * 32, 0, st>>>(
      g, partial.data(), a.z, a.labels, a.rows, count, Z.ncols(), inv);
  RINGBLAS_CHECK_LAUNCH("softmax_ce_kernel", st, ctx.debug_sync);
  sum_partials(a.out, partial, st, ctx);
}

void accuracy(DenseVector& out, Index slot, const DenseMatrix& Z, const DenseVector& labels,
              const DenseVector& rows, Context& ctx) {
  const RowOperands a(out, slot, Z, labels, rows, ctx);
  const cudaStream_t st = stream_of(ctx);
  const Index count = rows.size();
  const float inv = float(1.0 / double(count));
  if (Z.ncols() <= Policy::thread_row_classes) {
    const unsigned grid = grid_for(std::size_t(count), Policy::row_warps * 32);
    device_array<float> partial(grid, ctx);
    dense_nn::accuracy_thread_kernel<<<grid, Policy::row_warps * 32, 0, st>>>(
        partial.data(), a.z, a.labels, a.rows, count, Z.ncols(), inv);
    RINGBLAS_CHECK_LAUNCH("accuracy_thread_kernel", st, ctx.debug_sync);
    sum_partials(a.out, partial, st, ctx);
    return;
  }
  device_array<float> partial(row_grid(count), ctx);
  dense_nn::accuracy_kernel<<<row_grid(count), Policy::row_warps * 32, 0, st>>>(
      partial.data(), a.z, a.labels, a.rows, count, Z.ncols(), inv);
  RINGBLAS_CHECK_LAUNCH("accuracy_kernel", st, ctx.debug_sync);
  sum_partials(a.out, partial, st, ctx);
}

void adam_step(DenseMatrix& W, const DenseMatrix& G, DenseMatrix& m, DenseMatrix& v,
               const nn::AdamOptions& o, Index t, Context& ctx) {
  dense_nn::make_resident(W, ctx);
  dense_nn::make_resident(m, ctx);
  dense_nn::make_resident(v, ctx);
  const std::size_t n = std::size_t(W.nrows()) * std::size_t(W.ncols());
  if (n == 0) return;
  Buffer hold;
  const float* g = static_cast<const float*>(dense_nn::device_values(G, hold, ctx));
  // Formed in double and rounded once, as the cpu loop does (cpu_nn.cpp).
  const dense_nn::AdamScalars s{float(o.beta1),
                                float(o.beta2),
                                float(o.weight_decay),
                                float(o.eps),
                                float(o.lr / (1.0 - std::pow(o.beta1, double(t)))),
                                float(1.0 / (1.0 - std::pow(o.beta2, double(t))))};
  const cudaStream_t st = stream_of(ctx);
  dense_nn::adam_kernel<<<stride_grid(n), Policy::block, 0, st>>>(values_of(W), g, values_of(m),
                                                                  values_of(v), n, s);
  RINGBLAS_CHECK_LAUNCH("adam_kernel", st, ctx.debug_sync);
}

void sigmoid_cross_entropy(DenseMatrix* G, DenseVector& out, Index slot, const DenseMatrix& Z,
                           const DenseMatrix& Y, Context& ctx) {
  dense_nn::make_resident(out, ctx);
  if (G) dense_nn::make_resident(*G, ctx);
  const cudaStream_t st = stream_of(ctx);
  Buffer hz, hy;
  const float* z = static_cast<const float*>(dense_nn::device_values(Z, hz, ctx));
  const float* y = static_cast<const float*>(dense_nn::device_values(Y, hy, ctx));
  const std::size_t n = std::size_t(Z.nrows()) * std::size_t(Z.ncols());
  Buffer acc(2 * sizeof(float), Location::device, &ctx);  // Σ loss, #present
  RINGBLAS_CUDA_TRY(cudaMemsetAsync(acc.data(), 0, 2 * sizeof(float), st));
  const unsigned grid = n ? stride_grid(n) : 1;
  if (n) {
    dense_nn::sigmoid_ce_sum_kernel<<<grid, Policy::row_warps * 32, 0, st>>>(acc.as<float>(), z, y,
                                                                             n);
    RINGBLAS_CHECK_LAUNCH("sigmoid_ce_sum_kernel", st, ctx.debug_sync);
  }
  dense_nn::sigmoid_ce_grad_kernel<<<grid, Policy::block, 0, st>>>(
      G ? values_of(*G) : nullptr, values_of(out) + slot, acc.as<float>(), z, y, n);
  RINGBLAS_CHECK_LAUNCH("sigmoid_ce_grad_kernel", st, ctx.debug_sync);
}

}  // namespace ringblas::cuda
