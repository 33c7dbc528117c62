// Launchers of the skinny GEMMs (skinny_gemm.hpp, kernels in skinny_kernels.cuh): applicability,
// operands to the device (operand.hpp), one launch (NN) or a launch and the partials' reduction
// (TN). Nothing here synchronises with the host.
#include <cstdint>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/dense_nn/operand.hpp"
#include "backend/cuda/dense_nn/skinny_gemm.hpp"
#include "backend/cuda/dense_nn/skinny_kernels.cuh"

namespace ringblas::cuda::dense_nn {
namespace {

/// B's row stride in shared memory: odd, so that 32 lanes reading one column of 32 rows hit 32
/// banks.
int nn_stride(Index n) { return int(n % 2 == 1 ? n : n + 1); }

template <int NMax, int R>
void launch_nn(float* c, const float* a, const float* b, Index m, int k, int n, float alpha,
               const DropoutMask& mask, cudaStream_t st, const Context& ctx) {
  const int stride = nn_stride(n);
  const std::size_t smem = std::size_t(k) * std::size_t(stride) * sizeof(float);
  const std::size_t rows_per_block = std::size_t(Policy::skinny_warps) * R;
  unsigned grid = grid_for(std::size_t(m), rows_per_block);
  if (grid > Policy::max_blocks) grid = Policy::max_blocks;
  skinny_nn_kernel<NMax, R>
      <<<grid, Policy::skinny_warps * 32, smem, st>>>(c, a, b, m, k, n, stride, alpha, mask);
  RINGBLAS_CHECK_LAUNCH("skinny_nn_kernel", st, ctx.debug_sync);
}

template <int NMax>
void launch_tn(float* c, const float* a, const float* b, Index m, int k, int n, float alpha,
               const DropoutMask& mask, cudaStream_t st, const Context& ctx) {
  constexpr int threads = 256;
  std::size_t blocks = grid_for(std::size_t(m), Policy::skinny_tn_tile);
  if (blocks > Policy::skinny_tn_blocks) blocks = Policy::skinny_tn_blocks;
  const std::size_t per_block = std::size_t(k) * std::size_t(n);
  if (blocks * per_block > Policy::skinny_partial_floats)
    blocks = std::max<std::size_t>(1, Policy::skinny_partial_floats / per_block);
  device_array<float> partial(blocks * per_block, ctx);
  const dim3 grid(unsigned(blocks), grid_for(std::size_t(k), threads));
  skinny_tn_kernel<NMax><<<grid, threads, 0, st>>>(partial.data(), a, b, m, k, n, mask);
  RINGBLAS_CHECK_LAUNCH("skinny_tn_kernel", st, ctx.debug_sync);
  skinny_tn_reduce_kernel<<<grid_for(per_block, threads), threads, 0, st>>>(
      c, partial.data(), int(blocks), std::int64_t(per_block), alpha);
  RINGBLAS_CHECK_LAUNCH("skinny_tn_reduce_kernel", st, ctx.debug_sync);
}

}  // namespace

std::optional<std::string> can_implement_skinny_gemm(const DenseMatrix& C, const DenseMatrix& A,
                                                     const DenseMatrix& B, double beta,
                                                     const Descriptor& d) {
  if (C.type() != Type::fp32)
    return "the skinny kernels are fp32 only (" + std::string(type_name(C.type())) + " given)";
  if (beta != 0.0) return std::string("beta != 0 (the skinny kernels do not read C)");
  if (d.transpose_b) return std::string("a transposed B");
  if (C.ncols() > Policy::skinny_max_n)
    return "C has " + std::to_string(C.ncols()) + " columns, more than " +
           std::to_string(Policy::skinny_max_n);
  const Index k = A.ncols();  // NN: the inner dimension; TN: C's rows
  if (k == 0 || C.ncols() == 0) return std::string("an empty product (cuBLAS's case)");
  if (A.nrows() >= (Index{1} << 31) || k * A.nrows() >= (Index{1} << 62))
    return std::string("A is too large");
  if (!d.transpose_a) {
    const std::size_t smem = std::size_t(k) * std::size_t(nn_stride(C.ncols())) * sizeof(float);
    if (smem > std::size_t(Policy::skinny_smem_bytes))
      return "B (" + std::to_string(k) + " x " + std::to_string(C.ncols()) +
             ") does not fit in the kernel's shared memory";
  } else if (k > Policy::skinny_max_k) {
    return "C has " + std::to_string(k) + " rows, more than " +
           std::to_string(Policy::skinny_max_k);
  }
  return std::nullopt;
}

void skinny_gemm(DenseMatrix& C, double alpha, const DenseMatrix& A, const DenseMatrix& B, double p,
                 std::uint64_t seed, std::uint64_t stream, const Descriptor& d, Context& ctx) {
  make_resident(C, ctx);
  const cudaStream_t st = stream_of(ctx);
  const Index m = A.nrows();
  const int k = int(A.ncols()), n = int(C.ncols());
  float* c = C.values().as<float>();
  if (m == 0) {  // an empty inner (TN) or outer (NN) dimension: C = 0
    if (C.values().size()) RINGBLAS_CUDA_TRY(cudaMemsetAsync(c, 0, C.values().size(), st));
    return;
  }
  Buffer hold_a, hold_b;
  const float* a = static_cast<const float*>(device_values(A, hold_a, ctx));
  const float* b = static_cast<const float*>(device_values(B, hold_b, ctx));
  const DropoutMask mask = mask_of(p, seed, stream);
  const float al = float(alpha);
  if (ctx.trace)
    ctx.trace_line(std::string("gemm: skinny ") + (d.transpose_a ? "TN" : "NN") + ", " +
                   std::to_string(m) + " x " + std::to_string(k) + " by " + std::to_string(n) +
                   " columns");
  if (!d.transpose_a) {
    if (n <= 16)
      launch_nn<16, Policy::skinny_rows>(c, a, b, m, k, n, al, mask, st, ctx);
    else
      launch_nn<32, Policy::skinny_rows / 2>(c, a, b, m, k, n, al, mask, st, ctx);
  } else {
    if (n <= 16)
      launch_tn<16>(c, a, b, m, k, n, al, mask, st, ctx);
    else
      launch_tn<32>(c, a, b, m, k, n, al, mask, st, ctx);
  }
}

}  // namespace ringblas::cuda::dense_nn
