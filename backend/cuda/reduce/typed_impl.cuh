// Definitions of reduction::typed<T> (included only by inst_<type>.cu): the row kernels at two
// group widths, column atomics, and CUB's device reduction with the monoid functor as the operator
// and its identity as the initial value.
#pragma once
#include <algorithm>
#include <cub/device/device_reduce.cuh>
#include <type_traits>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/device_props.hpp"
#include "backend/cuda/reduce/kernels.cuh"
#include "backend/cuda/reduce/policy.hpp"
#include "backend/cuda/reduce/typed.hpp"
#include "semirings/visit.hpp"

namespace ringblas::cuda::reduction {

template <class T>
void typed<T>::rows_short(MonoidCode m, const Matrix& A, T* out, unsigned char* present,
                          row_tally tally, row_kernel kernel, Context& ctx) {
  const Index n = A.nrows();
  if (n == 0) return;
  cudaStream_t s = stream_of(ctx);
  using P = policy;
  constexpr int B = P::block;
  const bool wide = double(A.nnz()) > P::long_row * double(n);
  const bool vec = kernel == row_kernel::vec;
  const int sms = device_props(ctx.device).sm_count;
  sr::visit_monoid<T>(m, [&](auto mo) {
    using M = decltype(mo);
    visit_index_type(A.index_type(), [&](auto i) {
      using I = decltype(i);
      auto launch = [&](auto width) {
        constexpr int W = decltype(width)::value;
        const unsigned grid = grid_for(std::size_t(n) * W, B);
        const I* rp = A.row_ptr().as<I>();
        const T* v = A.values().as<T>();
        if (vec) {
          // The grid-stride loop runs on the blocks resident at once (one wave): asked of the
          // runtime once per instantiation, as the kernels' register counts differ (ptxas: 32 to
          // 64 on sm_90).
          static const int per_sm = [] {
            int b = 0;
            RINGBLAS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &b, k_rows_vec<M, T, I, W, P::block>, P::block, 0));
            return std::max(b, 1);
          }();
          k_rows_vec<M, T, I, W, B>
              <<<std::min(grid, unsigned(per_sm * sms)), B, 0, s>>>(n, rp, v, out, present, tally);
        } else {
          k_rows_subwarp<M, T, I, W, B><<<grid, B, 0, s>>>(n, rp, v, out, present, tally);
        }
      };
      if (wide)
        launch(std::integral_constant<int, 32>{});
      else
        launch(std::integral_constant<int, P::row_subwarp>{});
    });
  });
  RINGBLAS_CHECK_LAUNCH(vec ? "k_rows_vec" : "k_rows_subwarp", s, ctx.debug_sync);
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
void typed<T>::cols_ranges(MonoidCode m, const Matrix& A, T* out, unsigned char* present,
                           Index range, Context& ctx) {
  const Index nrows = A.nrows(), ncols = A.ncols();
  if (A.nnz() == 0) return;
  cudaStream_t s = stream_of(ctx);
  using P = policy;
  constexpr int B = P::block, W = P::row_subwarp;
  sr::visit_monoid<T>(m, [&](auto mo) {
    using M = decltype(mo);
    visit_index_type(A.index_type(), [&](auto i) {
      using I = decltype(i);
      const I* rp = A.row_ptr().as<I>();
      device_array<I> cur(std::size_t(nrows), ctx);  // each row's next entry: its start at first
      RINGBLAS_CUDA_TRY(cudaMemcpyAsync(cur.data(), rp, std::size_t(nrows) * sizeof(I),
                                        cudaMemcpyDeviceToDevice, s));
      for (Index lo = 0; lo < ncols; lo += range)
        k_cols_ranges<M, T, I, W, B><<<grid_for(std::size_t(nrows) * W, B), B, 0, s>>>(
            nrows, rp, cur.data(), A.col_idx().as<I>(), A.values().as<T>(),
            std::min(ncols, lo + range), out, present);
    });
  });
  RINGBLAS_CHECK_LAUNCH("k_cols_ranges", s, ctx.debug_sync);
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
