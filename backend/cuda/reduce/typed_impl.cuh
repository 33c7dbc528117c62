// Definitions of reduction::typed<T> (included only by inst_<type>.cu): the row kernel at two group
// widths, column atomics, and CUB's device reduction with the monoid functor as the operator and
// its identity as the initial value.
#pragma once
#include <cub/device/device_reduce.cuh>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/reduce/kernels.cuh"
#include "backend/cuda/reduce/policy.hpp"
#include "backend/cuda/reduce/typed.hpp"
#include "semirings/visit.hpp"

namespace ringblas::cuda::reduction {

template <class T>
void typed<T>::rows_short(MonoidCode m, const Matrix& A, T* out, unsigned char* present,
                          Context& ctx) {
  const Index n = A.nrows();
  if (n == 0) return;
  cudaStream_t s = stream_of(ctx);
  using P = policy;
  constexpr int B = P::block;
  const bool wide = double(A.nnz()) > P::long_row * double(n);
  sr::visit_monoid<T>(m, [&](auto mo) {
    using M = decltype(mo);
    visit_index_type(A.index_type(), [&](auto i) {
      using I = decltype(i);
      if (wide)
        k_rows_subwarp<M, T, I, 32, B><<<grid_for(std::size_t(n) * 32, B), B, 0, s>>>(
            n, A.row_ptr().as<I>(), A.values().as<T>(), out, present);
      else
        k_rows_subwarp<M, T, I, P::row_subwarp, B>
            <<<grid_for(std::size_t(n) * P::row_subwarp, B), B, 0, s>>>(
                n, A.row_ptr().as<I>(), A.values().as<T>(), out, present);
    });
  });
  RINGBLAS_CHECK_LAUNCH("k_rows_subwarp", s, ctx.debug_sync);
}

template <class T>
void typed<T>::cols_atomic(MonoidCode m, const Matrix& A, T* out, unsigned char* present,
                           Context& ctx) {
  const std::int64_t nnz = A.nnz();
  if (nnz == 0) return;
  cudaStream_t s = stream_of(ctx);
  using P = policy;
  const unsigned grid = grid_for(std::size_t(nnz), std::size_t(P::block) * P::items_per_thread);
  sr::visit_monoid<T>(m, [&](auto mo) {
    using M = decltype(mo);
    visit_index_type(A.index_type(), [&](auto i) {
      using I = decltype(i);
      k_cols_atomic<M, T, I>
          <<<grid, P::block, 0, s>>>(nnz, A.col_idx().as<I>(), A.values().as<T>(), out, present);
    });
  });
  RINGBLAS_CHECK_LAUNCH("k_cols_atomic", s, ctx.debug_sync);
}

template <class T>
void typed<T>::all(MonoidCode m, const T* vals, Index n, T* out, Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  sr::visit_monoid<T>(m, [&](auto mo) {
    using M = decltype(mo);
    std::size_t bytes = 0;
    RINGBLAS_CUDA_TRY(
        cub::DeviceReduce::Reduce(nullptr, bytes, vals, out, n, M{}, M::identity(), s));
    device_array<unsigned char> tmp(bytes, ctx);
    RINGBLAS_CUDA_TRY(
        cub::DeviceReduce::Reduce(tmp.data(), bytes, vals, out, n, M{}, M::identity(), s));
  });
}

template <class T>
void typed<T>::fill_identity(MonoidCode m, Index n, T* out, Context& ctx) {
  if (n == 0) return;
  const T id = sr::visit_monoid<T>(m, [](auto mo) { return decltype(mo)::identity(); });
  k_fill<T>
      <<<grid_for(std::size_t(n), policy::block), policy::block, 0, stream_of(ctx)>>>(n, id, out);
  RINGBLAS_CHECK_LAUNCH("k_fill", stream_of(ctx), ctx.debug_sync);
}

}  // namespace ringblas::cuda::reduction
