// apply (value maps) on the device: z = f(a, i, j) with A's structure (reused when A is a
// temporary, else copied). Maps that do not read the row: Policy::items entries per thread,
// striped (coalesced, several loads in flight per thread), the column copy fused into the same
// pass. Maps that read the row: one thread per entry, the row by a binary search within its
// tile's rows (launch.cuh tile_rows), the columns copied by cudaMemcpyAsync. No shared memory.
#include <string>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/elementwise/agent.cuh"
#include "backend/cuda/elementwise/elementwise.hpp"
#include "backend/cuda/elementwise/launch.cuh"
#include "ringblas/error.hpp"

namespace ringblas::cuda::elementwise {
namespace {

/// One thread per entry, its row found within its tile's rows (launch.cuh tile_rows).
template <class V, class I>
__global__ void k_map_rows(MapArgs<V> a, std::size_t nnz, const I* rp, const I* tile_row,
                           const I* ci, const V* x, V* z) {
  const std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= nnz) return;
  const std::int64_t i = std::int64_t(row_in_tile(rp, tile_row, Policy::block, p));
  z[p] = map_value(a, x[p], i, std::int64_t(ci[p]));
}

/// Policy::items entries per thread, block-striped: z[p] = f(x[p], 0, ci[p]), and o_ci[p] = ci[p]
/// unless o_ci is null (the structure is reused).
template <class V, class I>
__global__ void __launch_bounds__(Policy::block)
    k_map_striped(MapArgs<V> a, std::size_t nnz, const I* ci, const V* x, I* o_ci, V* z) {
  constexpr int N = Policy::items;
  const std::size_t base = std::size_t(blockIdx.x) * Policy::block * N + threadIdx.x;
  I c[N];
  V v[N];
#pragma unroll
  for (int t = 0; t < N; ++t) {
    const std::size_t p = base + std::size_t(t) * Policy::block;
    if (p < nnz) {
      c[t] = ci[p];
      v[t] = x[p];
    }
  }
#pragma unroll
  for (int t = 0; t < N; ++t) {
    const std::size_t p = base + std::size_t(t) * Policy::block;
    if (p < nnz) {
      if (o_ci) o_ci[p] = c[t];
      z[p] = map_value(a, v[t], 0, std::int64_t(c[t]));
    }
  }
}

template <class V, class I>
Matrix map_typed(const Matrix& A, Matrix& hold, const MapOp& f, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const MapArgs<V> args = map_args<V>(f);
  const std::size_t nnz = std::size_t(A.nnz()), n = std::size_t(A.nrows());
  Buffer rp, ci;
  if (&A == &hold) {
    rp = std::move(hold.row_ptr());
    ci = std::move(hold.col_idx());
  } else {
    rp = Buffer(sizeof(I) * (n + 1), Location::device, &ctx);
    ci = Buffer(sizeof(I) * nnz, Location::device, &ctx);
    RINGBLAS_CUDA_TRY(
        cudaMemcpyAsync(rp.data(), A.row_ptr().data(), rp.size(), cudaMemcpyDeviceToDevice, s));
  }
  const bool needs_row = map_needs_row(args), copy_columns = &A != &hold && nnz > 0;
  if (copy_columns && needs_row)
    RINGBLAS_CUDA_TRY(
        cudaMemcpyAsync(ci.data(), A.col_idx().data(), ci.size(), cudaMemcpyDeviceToDevice, s));
  // In place when A's values are ours (each thread reads its entry before writing it).
  Buffer vals =
      &A == &hold ? std::move(hold.values()) : Buffer(sizeof(V) * nnz, Location::device, &ctx);
  const V* x = &A == &hold ? vals.as<V>() : A.values().as<V>();
  if (nnz > 0 && needs_row) {
    const device_array<I> tiles = tile_rows(rp.as<I>(), I(n), nnz, Policy::block, ctx);
    k_map_rows<V, I><<<blocks_for(nnz), Policy::block, 0, s>>>(args, nnz, rp.as<I>(), tiles.data(),
                                                               ci.as<I>(), x, vals.as<V>());
    RINGBLAS_CHECK_LAUNCH("k_map_rows", s, ctx.debug_sync);
  } else if (nnz > 0) {
    const I* from_ci = copy_columns ? A.col_idx().as<I>() : ci.as<I>();
    k_map_striped<V, I>
        <<<grid_for(nnz, std::size_t(Policy::block) * Policy::items), Policy::block, 0, s>>>(
            args, nnz, from_ci, x, copy_columns ? ci.as<I>() : nullptr, vals.as<V>());
    RINGBLAS_CHECK_LAUNCH("k_map_striped", s, ctx.debug_sync);
  }
  return Matrix::from_buffers(Index(n), A.ncols(), A.type(), index_type_of<I>::value, Index(nnz),
                              std::move(rp), std::move(ci), std::move(vals));
}

}  // namespace

Matrix map(const Matrix& a, Matrix& hold, const MapOp& f, const Context& ctx) {
  if (a.location() != Location::device)
    throw InvalidValue("cuda elementwise::map: the operand must be on the device");
  return visit_type(a.type(), [&](auto v) {
    return visit_index_type(a.index_type(), [&](auto i) {
      return map_typed<decltype(v), decltype(i)>(a, hold, f, ctx);
    });
  });
}

}  // namespace ringblas::cuda::elementwise
