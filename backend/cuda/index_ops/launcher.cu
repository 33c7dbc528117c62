// Launchers of the index operations: count per output row, exclusive scan (CUB), one host read of
// the total (the output size must be known to allocate it), fill (a warp per row when columns
// keep their ids), a per-row CUB segmented sort
// when the column map is not monotone, and a gather of the values by source entry.
#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <limits>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/host_read.hpp"
#include "backend/cuda/index_ops/index_ops.hpp"
#include "backend/cuda/index_ops/kernels.cuh"
#include "ringblas/error.hpp"

namespace ringblas::cuda::index_ops {
namespace {

constexpr int block = 256;

/// rp (n + 1 values, counts in the first n) scanned in place; returns the total (host sync).
std::int64_t scan_counts(device_array<std::int64_t>& rp, Index n, Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  RINGBLAS_CUDA_TRY(cudaMemsetAsync(rp.data() + n, 0, sizeof(std::int64_t), s));
  std::size_t bytes = 0;
  RINGBLAS_CUDA_TRY(
      cub::DeviceScan::ExclusiveSum(nullptr, bytes, rp.data(), rp.data(), std::size_t(n) + 1, s));
  device_array<unsigned char> tmp(bytes, ctx);
  RINGBLAS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(tmp.data(), bytes, rp.data(), rp.data(),
                                                  std::size_t(n) + 1, s));
  const std::int64_t total = read_value(rp.data() + n, ctx);
  ctx.transfers.device_to_host += 1;
  ctx.transfers.bytes_device_to_host += sizeof(std::int64_t);
  return total;
}

/// The CSR (nrows x ncols) from 64-bit row pointers, columns and source entries of `from`.
template <class I>
Matrix assemble(Index nrows, Index ncols, const Matrix& from, device_array<std::int64_t>& rp,
                std::int64_t nnz, Buffer ci, device_array<std::int64_t>& src, Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  Buffer out_rp;
  if constexpr (std::is_same_v<I, std::int64_t>) {
    out_rp = rp.release();
  } else {
    out_rp = Buffer(sizeof(I) * (std::size_t(nrows) + 1), Location::device, &ctx);
    k_narrow<I><<<grid_for(std::size_t(nrows) + 1, block), block, 0, s>>>(nrows + 1, rp.data(),
                                                                          out_rp.as<I>());
    RINGBLAS_CHECK_LAUNCH("k_narrow", s, ctx.debug_sync);
  }
  const std::size_t vs = type_size(from.type());
  Buffer v(vs * std::size_t(nnz), Location::device, &ctx);
  if (nnz > 0) {
    const unsigned g = grid_for(std::size_t(nnz), block);
    if (vs == 1)
      k_gather_values<std::uint8_t><<<g, block, 0, s>>>(
          nnz, src.data(), from.values().as<std::uint8_t>(), v.as<std::uint8_t>());
    else if (vs == 4)
      k_gather_values<std::uint32_t><<<g, block, 0, s>>>(
          nnz, src.data(), from.values().as<std::uint32_t>(), v.as<std::uint32_t>());
    else
      k_gather_values<std::uint64_t><<<g, block, 0, s>>>(
          nnz, src.data(), from.values().as<std::uint64_t>(), v.as<std::uint64_t>());
    RINGBLAS_CHECK_LAUNCH("k_gather_values", s, ctx.debug_sync);
  }
  return Matrix::from_buffers(nrows, ncols, from.type(), from.index_type(), Index(nnz),
                              std::move(out_rp), std::move(ci), std::move(v));
}

void check_fits(const Matrix& a, Index nrows, Index ncols, std::int64_t nnz, const char* where) {
  const Index lim = std::numeric_limits<std::int32_t>::max();
  if (a.index_type() == IndexType::i32 && (nrows >= lim || ncols >= lim || nnz >= lim))
    throw NotImplemented(std::string(where) + ": the result (" + std::to_string(nnz) +
                         " entries) does not fit the operand's 32-bit indices");
}

template <class I>
Matrix gather_typed(const Matrix& A, Index out_rows, Index out_cols, const device_maps& maps,
                    Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  gather_map m;
  if (maps.src_row.size()) m.src_row = maps.src_row.as<std::int64_t>();
  if (maps.col_ptr.size()) {
    m.col_ptr = maps.col_ptr.as<std::int64_t>();
    m.col_out = maps.col_out.as<std::int64_t>();
  }
  const I* rp = A.row_ptr().as<I>();
  const I* ci = A.col_idx().as<I>();
  device_array<std::int64_t> out_rp(std::size_t(out_rows) + 1, ctx);
  const unsigned g = grid_for(std::size_t(out_rows), block);
  if (out_rows > 0) {
    k_gather_count<I><<<g, block, 0, s>>>(out_rows, rp, ci, m, out_rp.data());
    RINGBLAS_CHECK_LAUNCH("k_gather_count", s, ctx.debug_sync);
  }
  const std::int64_t nnz = scan_counts(out_rp, out_rows, ctx);
  check_fits(A, out_rows, out_cols, nnz, "cuda extract/assign");
  Buffer out_ci(sizeof(I) * std::size_t(nnz), Location::device, &ctx);
  device_array<std::int64_t> src(std::size_t(nnz), ctx);
  if (nnz > 0 && !m.col_ptr) {
    k_gather_fill_rows<I><<<grid_for(std::size_t(out_rows) * 32, block), block, 0, s>>>(
        out_rows, rp, ci, m.src_row, out_rp.data(), out_ci.as<I>(), src.data());
    RINGBLAS_CHECK_LAUNCH("k_gather_fill_rows", s, ctx.debug_sync);
  } else if (nnz > 0) {
    k_gather_fill<I>
        <<<g, block, 0, s>>>(out_rows, rp, ci, m, out_rp.data(), out_ci.as<I>(), src.data());
    RINGBLAS_CHECK_LAUNCH("k_gather_fill", s, ctx.debug_sync);
  }
  if (!maps.monotone && nnz > 0) {
    // Rows are permuted columns: sort each row by column, carrying the source entry.
    Buffer ci2(sizeof(I) * std::size_t(nnz), Location::device, &ctx);
    device_array<std::int64_t> src2(std::size_t(nnz), ctx);
    std::size_t bytes = 0;
    RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::StableSortPairs(
        nullptr, bytes, out_ci.as<I>(), ci2.as<I>(), src.data(), src2.data(), nnz, out_rows,
        out_rp.data(), out_rp.data() + 1, s));
    device_array<unsigned char> tmp(bytes, ctx);
    RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::StableSortPairs(
        tmp.data(), bytes, out_ci.as<I>(), ci2.as<I>(), src.data(), src2.data(), nnz, out_rows,
        out_rp.data(), out_rp.data() + 1, s));
    out_ci = std::move(ci2);
    src = std::move(src2);
  }
  return assemble<I>(out_rows, out_cols, A, out_rp, nnz, std::move(out_ci), src, ctx);
}

template <class I>
Matrix filter_typed(const Matrix& C, const unsigned char* rowin, const unsigned char* colin,
                    bool inside, Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const Index n = C.nrows();
  const I* rp = C.row_ptr().as<I>();
  const I* ci = C.col_idx().as<I>();
  device_array<std::int64_t> out_rp(std::size_t(n) + 1, ctx);
  const unsigned g = grid_for(std::size_t(n), block);
  if (n > 0) {
    k_filter_count<I><<<g, block, 0, s>>>(n, rp, ci, rowin, colin, inside, out_rp.data());
    RINGBLAS_CHECK_LAUNCH("k_filter_count", s, ctx.debug_sync);
  }
  const std::int64_t nnz = scan_counts(out_rp, n, ctx);
  Buffer out_ci(sizeof(I) * std::size_t(nnz), Location::device, &ctx);
  device_array<std::int64_t> src(std::size_t(nnz), ctx);
  if (nnz > 0) {
    k_filter_fill<I><<<g, block, 0, s>>>(n, rp, ci, rowin, colin, inside, out_rp.data(),
                                         out_ci.as<I>(), src.data());
    RINGBLAS_CHECK_LAUNCH("k_filter_fill", s, ctx.debug_sync);
  }
  return assemble<I>(n, C.ncols(), C, out_rp, nnz, std::move(out_ci), src, ctx);
}

}  // namespace

Matrix gather(const Matrix& A, Index out_rows, Index out_cols, const device_maps& maps,
              Context& ctx) {
  return visit_index_type(A.index_type(), [&](auto i) {
    return gather_typed<decltype(i)>(A, out_rows, out_cols, maps, ctx);
  });
}

Matrix filter_region(const Matrix& C, const unsigned char* rowin, const unsigned char* colin,
                     bool inside, Context& ctx) {
  return visit_index_type(C.index_type(), [&](auto i) {
    return filter_typed<decltype(i)>(C, rowin, colin, inside, ctx);
  });
}

}  // namespace ringblas::cuda::index_ops
