// select row_topk on the device: the k largest entries of each row, ties to the smaller column.
//
// Order: an order-preserving unsigned key per entry (agent.cuh key_of: NaN lowest, -0 = +0),
// then the column. One thread per entry (its row by binary search of the row pointers):
// - in a row of at most k entries it keeps the entry;
// - in a short row (<= Policy::topk_short_row) it counts the entries that rank above its own,
//   stopping at k, and keeps the entry when fewer than k do (no sort; reads stay in L1);
// - in a long row it writes its key and position for a stable segmented sort (CUB
//   DeviceSegmentedSort::StableSortPairsDescending over the long rows only: short rows are
//   passed as empty segments), after which one thread per long row flags its first k positions.
// compact() (compact.cuh) then keeps the flagged entries in column order. col_topk is row_topk
// between two transposes (entry.cpp). Deterministic. No shared memory.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

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

/// Flags of the short rows' entries, keys and positions of the long rows' (flags zeroed before).
template <class V, class I, class K>
__global__ void k_topk_rank(std::size_t nnz, I nrows, Index k, const I* rp, const V* x, I* flags,
                            K* keys, I* positions) {
  const std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= nnz) return;
  const I r = row_of(rp, nrows, I(p));
  const I b = rp[r], e = rp[r + 1], len = e - b;
  const K kp = key_of(x[p]);
  if (len > I(Policy::topk_short_row)) {
    keys[p] = kp;
    positions[p] = I(p);
    return;
  }
  if (Index(len) <= k) {
    flags[p] = I(1);
    return;
  }
  Index above = 0;
  for (I q = b; q < e && above < k; ++q) {
    const K kq = key_of(x[q]);
    if (kq > kp || (kq == kp && q < I(p))) ++above;
  }
  flags[p] = above < k ? I(1) : I(0);
}

/// Segment ends for the sort: a long row's end, or its begin (an empty segment) for a short row.
template <class I>
struct long_row_end {
  const I* rp;
  __host__ __device__ I operator()(I r) const {
    return rp[r + 1] - rp[r] > I(Policy::topk_short_row) ? rp[r + 1] : rp[r];
  }
};

/// flags[p] = 1 for the first k sorted positions of each long row.
template <class I>
__global__ void k_topk_long_flags(std::size_t nrows, Index k, const I* rp, const I* sorted,
                                  I* flags) {
  const std::size_t r = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const I b = rp[r], len = rp[r + 1] - b;
  if (len <= I(Policy::topk_short_row)) return;
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
    const I* rp = A.row_ptr().as<I>();
    device_array<K> keys(nnz, ctx), keys_out(nnz, ctx);
    device_array<I> positions(nnz, ctx), sorted(nnz, ctx);
    k_topk_rank<V, I, K><<<blocks_for(nnz), Policy::block, 0, s>>>(
        nnz, I(n), k, rp, A.values().as<V>(), flags.data(), keys.data(), positions.data());
    RINGBLAS_CHECK_LAUNCH("k_topk_rank", s, ctx.debug_sync);
    const auto ends =
        thrust::make_transform_iterator(thrust::counting_iterator<I>(0), long_row_end<I>{rp});
    std::size_t bytes = 0;
    RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::StableSortPairsDescending(
        nullptr, bytes, keys.data(), keys_out.data(), positions.data(), sorted.data(),
        std::int64_t(nnz), std::int64_t(n), rp, ends, s));
    {
      device_array<unsigned char> tmp(bytes, ctx);
      RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::StableSortPairsDescending(
          tmp.data(), bytes, keys.data(), keys_out.data(), positions.data(), sorted.data(),
          std::int64_t(nnz), std::int64_t(n), rp, ends, s));
    }
    k_topk_long_flags<I>
        <<<blocks_for(n), Policy::block, 0, s>>>(n, k, rp, sorted.data(), flags.data());
    RINGBLAS_CHECK_LAUNCH("k_topk_long_flags", s, ctx.debug_sync);
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
