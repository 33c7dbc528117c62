// cuda executor of sort_permutation and of extract with vector index lists: the permutation by
// a stable CUB radix sort of (value, index) pairs, and device index maps for the index gather
// of extract (row list: the list itself as int64; column list: per source column the output
// columns taking it, by a histogram, a scan and a stable radix sort of (column, position)).
// Thread mapping of the helper kernels: one thread per element; no shared memory.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/common/write_back.hpp"
#include "backend/cuda/index_ops/index_ops.hpp"
#include "backend/cuda/index_ops/index_vectors.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda::index_ops {
namespace {

constexpr int block = 256;

__global__ void k_iota(std::int64_t n, std::int64_t* out) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < n) out[k] = k;
}

/// out[k] = in[k] as int64 (an index list's values).
template <class T>
__global__ void k_widen(std::int64_t n, const T* in, std::int64_t* out) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < n) out[k] = std::int64_t(in[k]);
}

/// Sort keys: the values, -0.0 as +0.0 (a comparison sort calls them equal; radix order would
/// not).
template <class T>
__global__ void k_sort_keys(std::int64_t n, const T* in, T* out) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const T v = in[k];
  if constexpr (std::is_floating_point_v<T>)
    out[k] = v == T(0) ? T(0) : v;
  else
    out[k] = v;
}

/// counts[j + 1] += 1 for every list entry j (counts zeroed, ncols + 1 long).
__global__ void k_histogram(std::int64_t n, const std::int64_t* list, unsigned long long* counts) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < n) atomicAdd(counts + list[k] + 1, 1ull);
}

/// The values of an int32/int64 index-list vector as a device int64 buffer.
Buffer device_list(const Vector& v, Context& ctx) {
  const Vector d = v.location() == Location::device ? v : v.to(Location::device, ctx);
  const std::int64_t n = d.nnz();
  Buffer out(sizeof(std::int64_t) * std::size_t(n), Location::device, &ctx);
  if (n == 0) return out;
  cudaStream_t s = stream_of(ctx);
  if (d.type() == Type::int64) {
    RINGBLAS_CUDA_TRY(
        cudaMemcpyAsync(out.data(), d.values().data(), out.size(), cudaMemcpyDeviceToDevice, s));
  } else if (d.type() == Type::int32) {
    k_widen<std::int32_t><<<grid_for(std::size_t(n), block), block, 0, s>>>(
        n, d.values().as<std::int32_t>(), out.as<std::int64_t>());
    RINGBLAS_CHECK_LAUNCH("k_widen", s, ctx.debug_sync);
  } else {
    throw InvalidValue("extract: an index list must be int32 or int64, it is " +
                       std::string(type_name(d.type())));
  }
  return out;
}

/// col_ptr (n_src + 1) and col_out (list length): the output columns of every source column,
/// in increasing order (a stable sort by source column of the positions 0..n-1).
void column_map(const Buffer& list, std::int64_t n, Index n_src, device_maps& maps, Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  device_array<unsigned long long> counts(std::size_t(n_src) + 1, ctx);
  counts.fill_zero(ctx);
  if (n > 0) {
    k_histogram<<<grid_for(std::size_t(n), block), block, 0, s>>>(n, list.as<std::int64_t>(),
                                                                  counts.data());
    RINGBLAS_CHECK_LAUNCH("k_histogram", s, ctx.debug_sync);
  }
  maps.col_ptr = Buffer(sizeof(std::int64_t) * (std::size_t(n_src) + 1), Location::device, &ctx);
  std::size_t bytes = 0;
  RINGBLAS_CUDA_TRY(cub::DeviceScan::InclusiveSum(nullptr, bytes, counts.data(),
                                                  maps.col_ptr.as<unsigned long long>(),
                                                  std::size_t(n_src) + 1, s));
  {
    device_array<unsigned char> tmp(bytes, ctx);
    RINGBLAS_CUDA_TRY(cub::DeviceScan::InclusiveSum(tmp.data(), bytes, counts.data(),
                                                    maps.col_ptr.as<unsigned long long>(),
                                                    std::size_t(n_src) + 1, s));
  }
  maps.col_out = Buffer(sizeof(std::int64_t) * std::size_t(n), Location::device, &ctx);
  if (n == 0) return;
  device_array<std::int64_t> pos(std::size_t(n), ctx), keys_out(std::size_t(n), ctx);
  k_iota<<<grid_for(std::size_t(n), block), block, 0, s>>>(n, pos.data());
  RINGBLAS_CHECK_LAUNCH("k_iota", s, ctx.debug_sync);
  int bits = 1;
  while (bits < 63 && (Index(1) << bits) < n_src) ++bits;
  bytes = 0;
  RINGBLAS_CUDA_TRY(
      cub::DeviceRadixSort::SortPairs(nullptr, bytes, list.as<std::int64_t>(), keys_out.data(),
                                      pos.data(), maps.col_out.as<std::int64_t>(), n, 0, bits, s));
  device_array<unsigned char> tmp(bytes, ctx);
  RINGBLAS_CUDA_TRY(
      cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, list.as<std::int64_t>(), keys_out.data(),
                                      pos.data(), maps.col_out.as<std::int64_t>(), n, 0, bits, s));
}

}  // namespace

std::optional<std::string> can_implement_sort_permutation(const Vector& u) {
  if (u.type() == Type::boolean) return "bool values (the cpu row sorts them)";
  return std::nullopt;
}

void sort_permutation(Vector& p, const Vector& u, bool descending, Context& ctx) {
  if (auto why = can_implement_sort_permutation(u))
    throw NotImplemented("sort_permutation (cuda): " + *why);
  RINGBLAS_CUDA_TRY(cudaSetDevice(ctx.device));
  cudaStream_t s = stream_of(ctx);
  const Vector d = u.location() == Location::device ? u : u.to(Location::device, ctx);
  const std::int64_t n = d.nnz();
  Buffer idx(sizeof(std::int64_t) * std::size_t(n), Location::device, &ctx);
  Buffer perm(sizeof(std::int64_t) * std::size_t(n), Location::device, &ctx);
  if (n > 0) {
    k_iota<<<grid_for(std::size_t(n), block), block, 0, s>>>(n, idx.as<std::int64_t>());
    RINGBLAS_CHECK_LAUNCH("k_iota", s, ctx.debug_sync);
    visit_type(d.type(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        device_array<T> keys(std::size_t(n), ctx), keys_out(std::size_t(n), ctx);
        k_sort_keys<T>
            <<<grid_for(std::size_t(n), block), block, 0, s>>>(n, d.values().as<T>(), keys.data());
        RINGBLAS_CHECK_LAUNCH("k_sort_keys", s, ctx.debug_sync);
        // The vector's indices increase, so a stable sort leaves equal values in index order.
        const std::int64_t* in_idx = d.indices().as<std::int64_t>();
        std::size_t bytes = 0;
        auto sort = [&](void* tmp) {
          if (descending)
            return cub::DeviceRadixSort::SortPairsDescending(
                tmp, bytes, keys.data(), keys_out.data(), in_idx, perm.as<std::int64_t>(), n, 0,
                int(sizeof(T) * 8), s);
          return cub::DeviceRadixSort::SortPairs(tmp, bytes, keys.data(), keys_out.data(), in_idx,
                                                 perm.as<std::int64_t>(), n, 0, int(sizeof(T) * 8),
                                                 s);
        };
        RINGBLAS_CUDA_TRY(sort(nullptr));
        device_array<unsigned char> tmp(bytes, ctx);
        RINGBLAS_CUDA_TRY(sort(tmp.data()));
      }
    });
  }
  p = Vector::from_buffers(u.size(), Type::int64, n, std::move(idx), std::move(perm));
  if (ctx.trace)
    ctx.trace_line("sort_permutation: cuda radix sort of " + std::to_string(n) + " " +
                   std::string(type_name(u.type())) + " values" +
                   (descending ? ", descending" : ", ascending"));
}

void extract_vectors(Matrix& C, const Matrix* mask, Accum accum, const Matrix& A,
                     const Vector* rows, const Vector* cols, const Descriptor& desc, Context& ctx) {
  RINGBLAS_CUDA_TRY(cudaSetDevice(ctx.device));
  Matrix hold;
  const Matrix& a = prepare_operand(A, desc.transpose_a, A.index_type(), std::nullopt, hold, ctx);
  const Index nr = rows ? rows->nnz() : a.nrows(), nc = cols ? cols->nnz() : a.ncols();
  ctx.trace_line("extract: cuda index gather, " + std::to_string(nr) + "x" + std::to_string(nc) +
                 " from " + std::to_string(a.nnz()) + " entries" +
                 (desc.transpose_a ? " of Aᵀ" : "") + "; index lists on the device" +
                 (cols ? ", rows sorted" : ""));
  Matrix T;
  if (!rows && !cols) {
    T = &a == &hold ? std::move(hold) : Matrix(a);
  } else {
    device_maps maps;
    if (rows) maps.src_row = device_list(*rows, ctx);
    if (cols) {
      const Buffer list = device_list(*cols, ctx);
      column_map(list, nc, a.ncols(), maps, ctx);
      maps.monotone = false;  // not checked: the gather sorts each row
    }
    T = gather(a, nr, nc, maps, ctx);
  }
  const DeviceMask m =
      make_device_mask(mask, desc.mask_structure, desc.mask_complement, T.index_type(), ctx);
  write_back(C, m, accum, desc.replace, std::move(T), ctx);
}

}  // namespace ringblas::cuda::index_ops
