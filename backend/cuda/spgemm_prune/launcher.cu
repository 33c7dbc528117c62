// spgemm_prune launcher: operands on the device with 32-bit indices and the semiring's values,
// the persistent expand-and-prune kernel (kernels.cuh) with a reserved output, a rerun at the
// exact size when the reservation was short, then CSR assembly (scan of the row counts, gather).
// Compiled for the rows of backend/cuda/manifest.def's spgemm_prune family (plus_times over fp32
// and fp64, Markov clustering's expansion).
#include <algorithm>
#include <cstdio>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <string>
#include <vector>

#include "backend/core/containers/device_fill.hpp"
#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/common/device_props.hpp"
#include "backend/cuda/common/manifest.hpp"
#include "backend/cuda/spgemm_prune/kernels.cuh"
#include "backend/cuda/spgemm_prune/spgemm_prune.hpp"
#include "ringblas/error.hpp"
#include "ringblas_generated/cuda_manifest/spgemm_prune.hpp"
#include "semirings/semiring.hpp"

namespace ringblas::cuda::spgemm_prune {

namespace {

std::string human(double x) {
  char buf[32];
  if (x >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2fG", x / 1e9);
  else if (x >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2fM", x / 1e6);
  else if (x >= 1e3)
    std::snprintf(buf, sizeof buf, "%.1fK", x / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f", x);
  return buf;
}

/// A dense device vector of `n` values (indices 0..n-1) adopting `values`.
Vector dense_vector(Index n, Type t, Buffer values, const Context& ctx) {
  Buffer idx(std::size_t(n) * sizeof(std::int64_t), Location::device, &ctx);
  ringblas::detail::device_iota(idx.as<std::int64_t>(), std::size_t(n), &ctx);
  return Vector::from_buffers(n, t, n, std::move(idx), std::move(values));
}

template <class T, class I>
Matrix assemble(Index m, Index n, std::int64_t nnz, const device_array<int>& out_k,
                const device_array<T>& out_v, const device_array<std::int64_t>& row_begin,
                device_array<int>& row_nnz, bool sort_rows, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  device_array<I> rp(std::size_t(m) + 1, ctx);
  std::size_t bytes = 0;
  RINGBLAS_CUDA_TRY(
      cub::DeviceScan::ExclusiveSum(nullptr, bytes, row_nnz.data(), rp.data(), m + 1, s));
  {
    device_array<unsigned char> tmp(bytes, ctx);
    RINGBLAS_CUDA_TRY(
        cub::DeviceScan::ExclusiveSum(tmp.data(), bytes, row_nnz.data(), rp.data(), m + 1, s));
  }
  device_array<I> ci(std::size_t(nnz), ctx);
  device_array<T> cv(std::size_t(nnz), ctx);
  if (m > 0) {
    k_gather<T, I><<<grid_for(std::size_t(m) * 32, 256), 256, 0, s>>>(
        out_k.data(), out_v.data(), row_begin.data(), row_nnz.data(), rp.data(), ci.data(),
        cv.data(), m);
    RINGBLAS_CHECK_LAUNCH("k_gather", s, ctx.debug_sync);
  }
  if (sort_rows && nnz > 0) {
    // Rows from the sparse accumulator come in the order their columns were first touched.
    device_array<I> sci(std::size_t(nnz), ctx);
    device_array<T> scv(std::size_t(nnz), ctx);
    std::size_t sbytes = 0;
    RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(nullptr, sbytes, ci.data(), sci.data(),
                                                          cv.data(), scv.data(), nnz, m, rp.data(),
                                                          rp.data() + 1, s));
    device_array<unsigned char> tmp(sbytes, ctx);
    RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(tmp.data(), sbytes, ci.data(), sci.data(),
                                                          cv.data(), scv.data(), nnz, m, rp.data(),
                                                          rp.data() + 1, s));
    return Matrix::from_buffers(m, n, type_of_v<T>, index_type_of<I>::value, nnz, rp.release(),
                                sci.release(), scv.release());
  }
  return Matrix::from_buffers(m, n, type_of_v<T>, index_type_of<I>::value, nnz, rp.release(),
                              ci.release(), cv.release());
}

template <class S>
void run_typed(Matrix& C, const Matrix& A, const Matrix& B, const RowPrune& rule,
               RowPruneStats* stats, Context& ctx) {
  using T = typename S::value_type;
  using P = policy;
  cudaStream_t s = stream_of(ctx);
  const Index m = A.nrows(), n = B.ncols();
  const std::size_t entry = sizeof(int) + sizeof(T);
  const std::size_t smem = std::size_t(P::window) * (sizeof(acc_t<T>) + 1);
  RINGBLAS_CUDA_TRY(cudaFuncSetAttribute(k_expand_prune<S>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  int per_sm = 0;
  RINGBLAS_CUDA_TRY(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_expand_prune<S>, P::threads, smem));
  const DeviceProps& props = device_props(ctx.device);
  const std::size_t free_bytes = device_free_bytes();
  // Row buffers (two lists of ncols slots per block, and the sparse accumulator's slots and flags
  // when rows can be wider than policy::spa_min_span) take at most a quarter of the free memory.
  const bool spa = n > P::spa_min_span;
  const std::size_t row_buffer = std::max<std::size_t>(std::size_t(n), 1) *
                                 (2 * entry + (spa ? sizeof(acc_t<T>) + sizeof(int) : 0));
  std::int64_t blocks = std::int64_t(std::max(per_sm, 1)) * props.sm_count;
  blocks = std::min<std::int64_t>(blocks, std::max<Index>(m, 1));
  blocks = std::min<std::int64_t>(blocks, std::int64_t(free_bytes / 4 / row_buffer));
  if (blocks < 1)
    throw OutOfMemory("mxm_prune_rows (spgemm_prune): a row buffer of " +
                          std::to_string(row_buffer) + " bytes does not fit the " +
                          std::to_string(free_bytes) + " free bytes",
                      row_buffer);
  device_array<int> list_k(std::size_t(blocks) * std::size_t(n), ctx);
  device_array<T> list_v(std::size_t(blocks) * std::size_t(n), ctx);
  device_array<int> cand_k(std::size_t(blocks) * std::size_t(n), ctx);
  device_array<T> cand_v(std::size_t(blocks) * std::size_t(n), ctx);
  device_array<acc_t<T>> spa_vals(spa ? std::size_t(blocks) * std::size_t(n) : 0, ctx);
  device_array<int> spa_seen(spa ? std::size_t(blocks) * std::size_t(n) : 0, ctx);
  device_array<unsigned long long> counters(c_count, ctx);
  device_array<std::int64_t> row_begin(std::size_t(m), ctx);
  device_array<int> row_nnz(std::size_t(m) + 1, ctx);
  device_array<T> row_max(std::size_t(m), ctx), row_sumsq(std::size_t(m), ctx);
  prune_args<T> a;
  a.A = csr_ref<int>{A.nrows(), A.ncols(), A.row_ptr().as<int>(), A.col_idx().as<int>(),
                     A.values().data()};
  a.B = csr_ref<int>{B.nrows(), B.ncols(), B.row_ptr().as<int>(), B.col_idx().as<int>(),
                     B.values().data()};
  a.rule =
      ringblas::detail::prune_rule{rule.threshold,    rule.select,        rule.recover,
                                   rule.recover_mass, rule.loop_if_empty, rule.diagonal_offset};
  a.cut = T(rule.threshold);
  a.list_k = list_k.data();
  a.list_v = list_v.data();
  a.cand_k = cand_k.data();
  a.cand_v = cand_v.data();
  a.spa_vals = spa ? spa_vals.data() : nullptr;
  a.spa_seen = spa ? spa_seen.data() : nullptr;
  a.list_stride = n;
  a.counters = counters.data();
  a.row_begin = row_begin.data();
  a.row_nnz = row_nnz.data();
  a.row_max = row_max.data();
  a.row_sumsq = row_sumsq.data();
  a.nrows = m;
  // Rows by size (at most 32 products: a warp each) and the first reservation: per row
  // min(products, ncols, reserve_factor x max(select, recover, 16)), within a quarter of the
  // free memory (the counters read back once).
  device_array<int> small_rows(std::size_t(m), ctx), large_rows(std::size_t(m), ctx);
  a.small_rows = small_rows.data();
  a.large_rows = large_rows.data();
  const double per_row =
      P::reserve_factor * double(std::max<Index>({rule.select, rule.recover, Index(16)}));
  std::int64_t capacity = 1024;
  counters.fill_zero(ctx);
  if (m > 0) {
    const long long cap = (long long)std::min(per_row, double(std::max<Index>(n, 1)));
    k_classify<<<grid_for(std::size_t(m) * 32, 256), 256, 0, s>>>(
        a.A, a.B, cap, counters.data(), small_rows.data(), large_rows.data());
    RINGBLAS_CHECK_LAUNCH("k_classify", s, ctx.debug_sync);
  }
  std::vector<unsigned long long> got = counters.to_host(ctx);
  const std::int64_t n_small = std::int64_t(got[c_small]), n_large = std::int64_t(got[c_large]);
  capacity = std::max<std::int64_t>(
      capacity, std::int64_t(std::min(double(got[c_reserve]), double(free_bytes / 4 / entry))));
  device_array<int> out_k;
  device_array<T> out_v;
  int attempts = 0;
  for (;;) {
    ++attempts;
    out_k = device_array<int>(std::size_t(capacity), ctx);
    out_v = device_array<T>(std::size_t(capacity), ctx);
    a.out_k = out_k.data();
    a.out_v = out_v.data();
    a.capacity = capacity;
    // Clear the launch counters, keep the row lists' sizes.
    RINGBLAS_CUDA_TRY(
        cudaMemsetAsync(counters.data(), 0, c_reserve * sizeof(unsigned long long), s));
    row_nnz.fill_zero(ctx);
    if (n_large > 0) {
      k_expand_prune<S>
          <<<unsigned(std::min<std::int64_t>(blocks, n_large)), P::threads, smem, s>>>(a);
      RINGBLAS_CHECK_LAUNCH("k_expand_prune", s, ctx.debug_sync);
    }
    if (n_small > 0) {
      k_expand_prune_warp<S><<<grid_for(std::size_t(n_small) * 32, 256), 256, 0, s>>>(a);
      RINGBLAS_CHECK_LAUNCH("k_expand_prune_warp", s, ctx.debug_sync);
    }
    got = counters.to_host(ctx);
    const auto total = std::int64_t(got[c_cursor]);
    if (total <= capacity || attempts == 2) {
      if (total > capacity)
        throw InvalidValue("mxm_prune_rows (spgemm_prune): the rerun at the exact size " +
                           std::to_string(capacity) + " still overflowed (" +
                           std::to_string(total) + ")");
      break;
    }
    capacity = total;  // the exact size: the rows' survivors do not depend on the reservation
  }
  const std::int64_t nnz = std::int64_t(got[c_cursor]);
  const bool sort_rows = got[c_unsorted] > 0;  // the sparse accumulator's rows are unsorted
  if (ctx.trace)
    ctx.trace_line("mxm_prune_rows: spgemm_prune, " + std::to_string(n_large) + " rows by " +
                   std::to_string(std::min<std::int64_t>(blocks, n_large)) + " blocks, " +
                   std::to_string(n_small) + " by warps, nnz(T) " + human(double(got[c_expanded])) +
                   ", nnz(C) " + human(double(nnz)) + ", " + std::to_string(got[c_selected]) +
                   " rows selected, " + std::to_string(got[c_recovered]) + " recovered" +
                   (attempts > 1 ? ", rerun at the exact output size" : ""));
  C = nnz < (std::int64_t(1) << 31) - 1
          ? assemble<T, std::int32_t>(m, n, nnz, out_k, out_v, row_begin, row_nnz, sort_rows, ctx)
          : assemble<T, std::int64_t>(m, n, nnz, out_k, out_v, row_begin, row_nnz, sort_rows, ctx);
  if (stats) {
    stats->row_max = dense_vector(m, type_of_v<T>, row_max.release(), ctx);
    stats->row_sumsq = dense_vector(m, type_of_v<T>, row_sumsq.release(), ctx);
    stats->expanded_nnz = Index(got[c_expanded]);
    stats->rows_selected = Index(got[c_selected]);
    stats->rows_recovered = Index(got[c_recovered]);
  }
}

}  // namespace

void run(Matrix& C, const Semiring& s, const Matrix& A, const Matrix& B, const RowPrune& rule,
         RowPruneStats* stats, const Descriptor& desc, Context& ctx) {
  if (auto why = can_implement(s, A, B, desc))
    throw NotImplemented("mxm_prune_rows (spgemm_prune): " + *why);
  RINGBLAS_CUDA_TRY(cudaSetDevice(ctx.device));
  Matrix hold_a, hold_b;
  const Matrix& a = prepare_operand(A, desc.transpose_a, IndexType::i32, s.type, hold_a, ctx);
  const Matrix& b = prepare_operand(B, desc.transpose_b, IndexType::i32, s.type, hold_b, ctx);
  // The rows of backend/cuda/manifest.def's spgemm_prune family, instantiated here.
  manifest::with_semiring<manifest::spgemm_prune>(
      s, [&](auto sr_tag) { run_typed<decltype(sr_tag)>(C, a, b, rule, stats, ctx); });
}

}  // namespace ringblas::cuda::spgemm_prune
