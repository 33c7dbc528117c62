// Device build of diag(A[0], ..., A[N-1]) (block_diagonal.hpp): one block per item copies its
// row pointers, column indices and values into place, shifted by the item's offsets.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "backend/cuda/block_diagonal/block_diagonal.hpp"
#include "backend/cuda/common/check.cuh"
#include "backend/cuda/spmm_subwarp/device_prep.hpp"
#include "ringblas/context.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda {
namespace {

/// One item as the kernel reads it (device pointers; offsets into the block-diagonal).
struct BlockItem {
  const void* row_ptr;
  const void* col_idx;
  const void* values;
  long long rows, nnz, row0, col0, nnz0;
  int wide;  ///< the item's indices are 64-bit
};

std::size_t align16(std::size_t x) { return (x + 15) / 16 * 16; }

__device__ long long index_of(const void* a, bool wide, long long k) {
  return wide ? static_cast<const long long*>(a)[k] : static_cast<const int*>(a)[k];
}

/// Block b copies item b: row i starts at nnz0 + row_ptr[i], column j becomes col0 + j. The
/// last row pointer (the total) is written by block 0: an item with no rows writes none.
template <class I, class V>
__global__ void block_diagonal_kernel(const BlockItem* items, I* rp, I* ci, V* val, long long rows,
                                      long long nnz) {
  const BlockItem it = items[blockIdx.x];
  if (blockIdx.x == 0 && threadIdx.x == 0) rp[rows] = static_cast<I>(nnz);
  for (long long i = threadIdx.x; i < it.rows; i += blockDim.x)
    rp[it.row0 + i] = static_cast<I>(it.nnz0 + index_of(it.row_ptr, it.wide, i));
  const V* v = static_cast<const V*>(it.values);
  for (long long p = threadIdx.x; p < it.nnz; p += blockDim.x) {
    ci[it.nnz0 + p] = static_cast<I>(it.col0 + index_of(it.col_idx, it.wide, p));
    val[it.nnz0 + p] = v[p];
  }
}

/// The kernel for the value size (values are copied as bits: the type is already layout.type).
template <class I>
void launch(const BlockItem* items, unsigned blocks, Matrix& out, std::size_t tsz,
            cudaStream_t stream, bool sync) {
  I* rp = out.row_ptr().as<I>();
  I* ci = out.col_idx().as<I>();
  auto run = [&](auto zero) {
    using V = decltype(zero);
    block_diagonal_kernel<I, V><<<blocks, 256, 0, stream>>>(
        items, rp, ci, static_cast<V*>(out.values().data()), out.nrows(), out.nnz());
  };
  switch (tsz) {
    case 1:
      run(std::uint8_t{});
      break;
    case 4:
      run(std::uint32_t{});
      break;
    case 8:
      run(std::uint64_t{});
      break;
    default:
      throw InvalidValue("block_diagonal: value size " + std::to_string(tsz));
  }
  RINGBLAS_CHECK_LAUNCH("block_diagonal_kernel", stream, sync);
}

}  // namespace

Matrix block_diagonal(const std::vector<Matrix>& items, const ringblas::detail::BlockLayout& l,
                      Context& ctx) {
  const std::size_t tsz = type_size(l.type), isz = index_size(l.itype);
  Buffer rp(static_cast<std::size_t>(l.rows() + 1) * isz, Location::device, &ctx);
  Buffer ci(std::max<std::size_t>(static_cast<std::size_t>(l.nnz()) * isz, 1), Location::device,
            &ctx);
  Buffer val(std::max<std::size_t>(static_cast<std::size_t>(l.nnz()) * tsz, 1), Location::device,
             &ctx);
  Matrix out = Matrix::from_buffers(l.rows(), l.cols(), l.type, l.itype, l.nnz(), std::move(rp),
                                    std::move(ci), std::move(val));
  // One scratch allocation on ctx's stream, freed in its order after the kernel (whatever kind
  // of stream it is): the items' metadata, then a cast copy of each item of another value type.
  std::vector<BlockItem> meta(items.size());
  std::size_t scratch = align16(meta.size() * sizeof(BlockItem));
  std::vector<std::size_t> cast_at(items.size(), 0);
  for (std::size_t b = 0; b < items.size(); ++b)
    if (items[b].type() != l.type && items[b].nnz()) {
      cast_at[b] = scratch;
      scratch = align16(scratch + static_cast<std::size_t>(items[b].nnz()) * tsz);
    }
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  Buffer scratch_buf(scratch, Location::device, &ctx);
  void* raw = scratch_buf.data();
  auto* base = static_cast<unsigned char*>(raw);
  for (std::size_t b = 0; b < items.size(); ++b) {
    const Matrix& a = items[b];
    const void* values = a.values().data();
    if (cast_at[b]) {
      detail::cast_into(base + cast_at[b], l.type, values, a.type(),
                        static_cast<std::size_t>(a.nnz()), ctx);
      values = base + cast_at[b];
    }
    meta[b] = BlockItem{a.row_ptr().data(),
                        a.col_idx().data(),
                        values,
                        a.nrows(),
                        a.nnz(),
                        l.row0[b],
                        l.col0[b],
                        l.nnz0[b],
                        a.index_type() == IndexType::i64 ? 1 : 0};
  }
  // Pageable source: staged before cudaMemcpyAsync returns, without waiting for the device (a
  // GCN mini-batch builds three batches; none of them stalls the stream).
  const std::size_t meta_bytes = meta.size() * sizeof(BlockItem);
  RINGBLAS_CUDA_TRY(cudaMemcpyAsync(raw, meta.data(), meta_bytes, cudaMemcpyHostToDevice, stream));
  ctx.transfers.host_to_device += 1;
  ctx.transfers.bytes_host_to_device += meta_bytes;
  const auto* dev = static_cast<const BlockItem*>(raw);
  const auto blocks = static_cast<unsigned>(items.size());
  if (l.itype == IndexType::i32)
    launch<std::int32_t>(dev, blocks, out, tsz, stream, ctx.debug_sync);
  else
    launch<std::int64_t>(dev, blocks, out, tsz, stream, ctx.debug_sync);
  return out;
}

}  // namespace ringblas::cuda
