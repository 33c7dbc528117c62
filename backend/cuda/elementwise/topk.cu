// select row_topk on the device: the k largest entries of each row, ties to the smaller column.
//
// Each entry gets an order-preserving unsigned key (agent.cuh key_of: NaN lowest, -0 = +0); a
// stable segmented sort (CUB DeviceSegmentedSort::StableSortPairsDescending, one segment per row)
// orders the entry positions by key, equal keys keeping column order; one thread per row flags
// the first k positions of its segment and compact() (compact.cuh) keeps the flagged entries in
// column order. col_topk is row_topk between two transposes (entry.cpp). Deterministic.
#include <cub/device/device_segmented_sort.cuh>
#include <string>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/elementwise/agent.cuh"
#include "backend/cuda/elementwise/compact.cuh"
#include "backend/cuda/elementwise/elementwise.hpp"
#include "backend/cuda/elementwise/launch.cuh"
#include "ringblas/error.hpp"

namespace ringblas::cuda::elementwise {
namespace {

template <class V, class I, class K>
__global__ void k_topk_keys(std::size_t nnz, const V* x, K* keys, I* positions) {
  const std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= nnz) return;
  keys[p] = key_of(x[p]);
  positions[p] = I(p);
}

/// flags[p] = 1 for the first k sorted positions of each row (flags zeroed before).
template <class I>
__global__ void k_topk_flags(std::size_t nrows, Index k, const I* rp, const I* sorted, I* flags) {
  const std::size_t r = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const I b = rp[r], len = rp[r + 1] - b;
  const I keep = Index(len) < k ? len : I(k);
  for (I q = b; q < b + keep; ++q) flags[sorted[q]] = I(1);
}

template <class V, class I>
Matrix topk_typed(const Matrix& A, Index k, const Context& ctx) {
  using K = typename order_key<V>::type;
  cudaStream_t s = stream_of(ctx);
  const std::size_t nnz = std::size_t(A.nnz()), n = std::size_t(A.nrows());
  device_array<I> flags(nnz + 1, ctx);
  flags.fill_zero(ctx);
  if (nnz > 0 && k > 0) {
    device_array<K> keys(nnz, ctx), keys_out(nnz, ctx);
    device_array<I> positions(nnz, ctx), sorted(nnz, ctx);
    k_topk_keys<V, I, K><<<blocks_for(nnz), Policy::block, 0, s>>>(nnz, A.values().as<V>(),
                                                                   keys.data(), positions.data());
    RINGBLAS_CHECK_LAUNCH("k_topk_keys", s, ctx.debug_sync);
    const I* rp = A.row_ptr().as<I>();
    std::size_t bytes = 0;
    RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::StableSortPairsDescending(
        nullptr, bytes, keys.data(), keys_out.data(), positions.data(), sorted.data(),
        std::int64_t(nnz), std::int64_t(n), rp, rp + 1, s));
    {
      device_array<unsigned char> tmp(bytes, ctx);
      RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::StableSortPairsDescending(
          tmp.data(), bytes, keys.data(), keys_out.data(), positions.data(), sorted.data(),
          std::int64_t(nnz), std::int64_t(n), rp, rp + 1, s));
    }
    k_topk_flags<I><<<blocks_for(n), Policy::block, 0, s>>>(n, k, rp, sorted.data(), flags.data());
    RINGBLAS_CHECK_LAUNCH("k_topk_flags", s, ctx.debug_sync);
  }
  return compact<V, I>(A, flags, ctx);
}

}  // namespace

Matrix row_topk(const Matrix& A, Index k, const Context& ctx) {
  if (k < 0)
    throw InvalidValue("cuda elementwise::row_topk: k must be >= 0, got " + std::to_string(k));
  if (A.location() != Location::device)
    throw InvalidValue("cuda elementwise::row_topk: the operand must be on the device");
  return visit_type(A.type(), [&](auto v) {
    return visit_index_type(
        A.index_type(), [&](auto i) { return topk_typed<decltype(v), decltype(i)>(A, k, ctx); });
  });
}

}  // namespace ringblas::cuda::elementwise
