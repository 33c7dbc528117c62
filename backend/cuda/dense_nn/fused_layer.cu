// cuda entry points of the fused hidden-layer passes (include/ringblas/nn.hpp:
// bias_relu_dropout, linear_dropout_relu_backward, dense_layer_backward): operands to the device
// (operand.hpp), the kernels of fused_kernels.cuh, cuBLAS (gemm) first when D has more columns than
// the kernel multiplies itself. Nothing here synchronises with the host.
#include <cstdint>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/dense_nn/fused_kernels.cuh"
#include "backend/cuda/dense_nn/grid.cuh"
#include "backend/cuda/dense_nn/operand.hpp"

namespace ringblas::cuda {
namespace {

using dense_nn::Policy;

using dense_nn::stride_grid;

template <int KMax>
void launch_linear_backward(unsigned grid, std::size_t smem, float* g, float* partial,
                            const float* d, const float* w, const float* y, Index n, int m, int k,
                            const dense_nn::DropoutMask& mask, cudaStream_t st,
                            const Context& ctx) {
  dense_nn::linear_backward_kernel<KMax>
      <<<grid, Policy::fused_warps * 32, smem, st>>>(g, partial, d, w, y, n, m, k, mask);
  RINGBLAS_CHECK_LAUNCH("linear_backward_kernel", st, ctx.debug_sync);
}

}  // namespace

void bias_relu_dropout(DenseMatrix& H, const DenseVector& b, double p, std::uint64_t seed,
                       std::uint64_t stream, Context& ctx) {
  dense_nn::make_resident(H, ctx);
  const std::size_t n = std::size_t(H.nrows()) * std::size_t(H.ncols());
  if (n == 0) return;
  Buffer hold;
  const float* bias = static_cast<const float*>(dense_nn::device_values(b, hold, ctx));
  float* h = H.values().as<float>();
  const cudaStream_t st = stream_of(ctx);
  const dense_nn::DropoutMask mask = dense_nn::mask_of(p, seed, stream);
  if (H.ncols() % 4 == 0 && reinterpret_cast<std::uintptr_t>(h) % 16 == 0) {
    dense_nn::bias_relu_dropout4_kernel<<<stride_grid(n / 4), Policy::block, 0, st>>>(
        reinterpret_cast<float4*>(h), bias, n / 4, H.ncols(), mask);
    RINGBLAS_CHECK_LAUNCH("bias_relu_dropout4_kernel", st, ctx.debug_sync);
  } else {
    dense_nn::bias_relu_dropout_kernel<<<stride_grid(n), Policy::block, 0, st>>>(h, bias, n,
                                                                                 H.ncols(), mask);
    RINGBLAS_CHECK_LAUNCH("bias_relu_dropout_kernel", st, ctx.debug_sync);
  }
}

void linear_dropout_relu_backward(DenseMatrix& G, DenseVector* s, const DenseMatrix& D,
                                  const DenseMatrix& W, const DenseMatrix* Y, double p,
                                  std::uint64_t seed, std::uint64_t stream, Context& ctx) {
  dense_nn::make_resident(G, ctx);
  if (s) dense_nn::make_resident(*s, ctx);
  const cudaStream_t st = stream_of(ctx);
  const Index n = G.nrows();
  const int m = int(G.ncols()), k = int(D.ncols());
  if (m == 0) return;
  if (n == 0) {
    if (s) RINGBLAS_CUDA_TRY(cudaMemsetAsync(s->values().data(), 0, s->values().size(), st));
    return;
  }
  const int kmax = k <= 16 ? 16 : k <= Policy::fused_max_k ? Policy::fused_max_k : 0;
  const std::size_t wt_bytes = std::size_t(kmax) * std::size_t(m) * sizeof(float);
  const std::size_t sum_bytes = std::size_t(Policy::fused_warps) * std::size_t(m) * sizeof(float);
  // Wᵀ in shared memory when it fits, else cuBLAS writes the product into G first; the column
  // sums in the kernel when they fit too, else column_sums after it.
  const bool product = kmax > 0 && wt_bytes + sum_bytes <= std::size_t(Policy::fused_smem_bytes);
  const bool sums =
      s && (product ? wt_bytes : 0) + sum_bytes <= std::size_t(Policy::fused_smem_bytes);
  if (!product) {
    Descriptor tb;
    tb.transpose_b = true;
    gemm(G, 1.0, D, W, 0.0, tb, ctx);
  }
  Buffer hold_d, hold_w, hold_y;
  const float* d =
      product ? static_cast<const float*>(dense_nn::device_values(D, hold_d, ctx)) : nullptr;
  const float* w =
      product ? static_cast<const float*>(dense_nn::device_values(W, hold_w, ctx)) : nullptr;
  const float* y =
      Y ? static_cast<const float*>(dense_nn::device_values(*Y, hold_y, ctx)) : nullptr;
  const std::size_t rows_per_block = std::size_t(Policy::fused_warps) * Policy::fused_rows;
  unsigned grid = grid_for(std::size_t(n), rows_per_block);
  if (grid > Policy::fused_max_blocks) grid = Policy::fused_max_blocks;
  device_array<float> partial(sums ? std::size_t(grid) * std::size_t(m) : 0, ctx);
  const std::size_t smem = (product ? wt_bytes : 0) + (sums ? sum_bytes : 0);
  float* g = G.values().as<float>();
  const dense_nn::DropoutMask mask = dense_nn::mask_of(p, seed, stream);
  float* part = sums ? partial.data() : nullptr;
  if (!product)
    launch_linear_backward<0>(grid, smem, g, part, d, w, y, n, m, k, mask, st, ctx);
  else if (kmax == 16)
    launch_linear_backward<16>(grid, smem, g, part, d, w, y, n, m, k, mask, st, ctx);
  else
    launch_linear_backward<Policy::fused_max_k>(grid, smem, g, part, d, w, y, n, m, k, mask, st,
                                                ctx);
  if (sums) {
    dense_nn::
        column_partials_kernel<<<grid_for(std::size_t(m), Policy::block), Policy::block, 0, st>>>(
            s->values().as<float>(), part, int(grid), m);
    RINGBLAS_CHECK_LAUNCH("column_partials_kernel", st, ctx.debug_sync);
  } else if (s) {
    column_sums(*s, G, ctx);
  }
}

void dense_layer_backward(DenseMatrix& dW, DenseMatrix& G, DenseVector* s, const DenseMatrix& X,
                          const DenseMatrix& D, const DenseMatrix& W, bool relu, bool x_dropped,
                          double p, std::uint64_t seed, std::uint64_t stream, Context& ctx) {
  const Index n = X.nrows();
  const int m = int(X.ncols()), k = int(D.ncols());
  if (k > Policy::fused_max_k || n == 0 || m == 0 || k == 0) {
    // Wider D (or an empty problem): the two passes it stands for.
    Descriptor ta;
    ta.transpose_a = true;
    dropout_gemm(dW, 1.0, X, D, x_dropped ? 0.0 : p, seed, stream, ta, ctx);
    linear_dropout_relu_backward(G, s, D, W, relu ? &X : nullptr, p, seed, stream, ctx);
    return;
  }
  dense_nn::make_resident(dW, ctx);
  dense_nn::make_resident(G, ctx);
  if (s) dense_nn::make_resident(*s, ctx);
  const cudaStream_t st = stream_of(ctx);
  Buffer hold_x, hold_d, hold_w;
  const float* x = static_cast<const float*>(dense_nn::device_values(X, hold_x, ctx));
  const float* d = static_cast<const float*>(dense_nn::device_values(D, hold_d, ctx));
  const float* w = static_cast<const float*>(dense_nn::device_values(W, hold_w, ctx));
  unsigned blocks = grid_for(std::size_t(n), Policy::layer_tile);
  if (blocks > Policy::layer_max_blocks) blocks = Policy::layer_max_blocks;
  device_array<float> dw_partial(std::size_t(blocks) * std::size_t(m) * std::size_t(k), ctx);
  device_array<float> s_partial(s ? std::size_t(blocks) * std::size_t(m) : 0, ctx);
  const dim3 grid(blocks, grid_for(std::size_t(m), Policy::layer_threads));
  const dense_nn::DropoutMask mask = dense_nn::mask_of(p, seed, stream);
  float* g = G.values().as<float>();
  float* sp = s ? s_partial.data() : nullptr;
  if (k <= 16)
    dense_nn::layer_backward_kernel<16><<<grid, Policy::layer_threads, 0, st>>>(
        g, dw_partial.data(), sp, x, d, w, n, m, k, relu, x_dropped, mask);
  else
    dense_nn::layer_backward_kernel<Policy::fused_max_k><<<grid, Policy::layer_threads, 0, st>>>(
        g, dw_partial.data(), sp, x, d, w, n, m, k, relu, x_dropped, mask);
  RINGBLAS_CHECK_LAUNCH("layer_backward_kernel", st, ctx.debug_sync);
  dense_nn::column_partials_kernel<<<grid_for(std::size_t(m) * std::size_t(k), Policy::block),
                                     Policy::block, 0, st>>>(dW.values().as<float>(),
                                                             dw_partial.data(), int(blocks), m * k);
  RINGBLAS_CHECK_LAUNCH("column_partials_kernel", st, ctx.debug_sync);
  if (s) {
    dense_nn::
        column_partials_kernel<<<grid_for(std::size_t(m), Policy::block), Policy::block, 0, st>>>(
            s->values().as<float>(), sp, int(blocks), m);
    RINGBLAS_CHECK_LAUNCH("column_partials_kernel", st, ctx.debug_sync);
  }
}

}  // namespace ringblas::cuda
