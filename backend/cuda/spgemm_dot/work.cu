// The measured work of spgemm_dot and spgemm_dot_hash on one problem (see spgemm_dot.hpp's cost
// model): one pass over the mask's entries, a warp per mask row, reading only row lengths. The
// averages of the size-only model cannot see skew: on R-MAT scale 22 without a degree order the
// rows of Bᵀ met by the mask's entries hold 85x the average (83.9G probes where the model counted
// 1G), so the hash variant, cheaper by the averages, took 788 ms where the dot one took 501 ms.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/spgemm_dot/spgemm_dot.hpp"

namespace ringblas::cuda::spgemm_dot {

namespace {

inline cudaStream_t stream_of(const Context& ctx) { return static_cast<cudaStream_t>(ctx.stream); }

/// Σ over the mask's entries (i, j) of the work of one entry for each variant: sum[0] (dot),
/// min(a, b) searches of log2(max(a, b) + 1) steps each (a = |A(i, :)|, b = |Bt(j, :)|: the
/// shorter row probed, the longer binary-searched); sum[1] (hash), b probes (row i of A sits in
/// the table). A warp per mask row.
__global__ void __launch_bounds__(256)
    entry_work(int m, const std::int32_t* m_rp, const std::int32_t* m_ci, const std::int32_t* a_rp,
               const std::int32_t* b_rp, double* sum) {
  __shared__ double part[2][256 / 32];
  const int lane = threadIdx.x & 31;
  double dot = 0, hash = 0;
  for (long long i = (blockIdx.x * 256LL + threadIdx.x) >> 5; i < m;
       i += (256LL * gridDim.x) >> 5) {
    const int a = a_rp[i + 1] - a_rp[i];
    for (int e = m_rp[i] + lane; e < m_rp[i + 1]; e += 32) {
      const int j = m_ci[e];
      const int b = b_rp[j + 1] - b_rp[j];
      const int lo = a < b ? a : b, hi = a < b ? b : a;
      dot += double(lo) * log2(double(hi) + 1.0);
      hash += double(b);
    }
  }
  for (int off = 16; off > 0; off >>= 1) {
    dot += __shfl_xor_sync(0xffffffffu, dot, off);
    hash += __shfl_xor_sync(0xffffffffu, hash, off);
  }
  if (lane == 0) {
    part[0][threadIdx.x >> 5] = dot;
    part[1][threadIdx.x >> 5] = hash;
  }
  __syncthreads();
  if (threadIdx.x < 2) {
    double t = 0;
    for (int w = 0; w < 256 / 32; ++w) t += part[threadIdx.x][w];
    atomicAdd(sum + threadIdx.x, t);
  }
}

bool on_device_i32(const Matrix& x) {
  return x.location() == Location::device && x.index_type() == IndexType::i32;
}

}  // namespace

std::optional<EntryWork> measured_entry_work(const Matrix* mask, const Matrix& A, const Matrix& B,
                                             const Descriptor& d, Context& ctx) {
  // Only operands the kernels read as they are: op(A) = A, op(B)ᵀ = B (the caller gave Bᵀ, as
  // triangle counting does), all on the device with 32-bit indices.
  if (!mask || d.transpose_a || !d.transpose_b) return std::nullopt;
  if (!on_device_i32(*mask) || !on_device_i32(A) || !on_device_i32(B)) return std::nullopt;
  const Index m = mask->nrows();
  if (A.nrows() != m || mask->ncols() != B.nrows()) return std::nullopt;  // the op reports it
  if (m > std::numeric_limits<std::int32_t>::max() - 1) return std::nullopt;
  if (mask->nnz() == 0 || m == 0) return EntryWork{};
  RINGBLAS_CUDA_TRY(cudaSetDevice(ctx.device));
  cudaStream_t st = stream_of(ctx);
  device_array<double> sum(2, ctx);
  sum.fill_zero(ctx);
  const unsigned grid = static_cast<unsigned>(std::min<long long>((m + 7) / 8, 8192));
  entry_work<<<grid, 256, 0, st>>>(
      static_cast<int>(m), mask->row_ptr().as<std::int32_t>(), mask->col_idx().as<std::int32_t>(),
      A.row_ptr().as<std::int32_t>(), B.row_ptr().as<std::int32_t>(), sum.data());
  RINGBLAS_CHECK_LAUNCH("spgemm_dot::entry_work", st, ctx.debug_sync);
  const std::vector<double> total = sum.to_host(ctx);
  ctx.transfers.device_to_host += 1;
  ctx.transfers.bytes_device_to_host += 2 * sizeof(double);
  return EntryWork{total[0], total[1]};
}

}  // namespace ringblas::cuda::spgemm_dot
