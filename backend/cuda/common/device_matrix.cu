// Device-side operand preparation: index widening/narrowing, value casts, CUB-based transpose
// (the row and the value packed into the sort's payload for 32-bit indices, else a sorted
// permutation and gathers), and value masks filtered to their structure.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <cstdint>
#include <string>
#include <type_traits>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/common/radix_sort_wide.cuh"
#include "backend/cuda/common/scan_total.cuh"
#include "backend/cuda/common/transpose_partition.hpp"
#include "ringblas/error.hpp"
#include "semirings/cast.hpp"

namespace ringblas::cuda {
namespace {

constexpr int block = 256;

template <class To, class From>
__global__ void k_convert(std::size_t n, const From* in, To* out) {
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<To>(in[i]);
}

template <class To, class From>
__global__ void k_cast_values(std::size_t n, const From* in, To* out) {
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sr::cast<To, From>(in[i]);
}

template <class I> __global__ void k_iota(std::size_t n, I* out) {
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = I(i);
}

/// rows[p] = the row of entry p (one warp per row).
template <class I> __global__ void k_expand_rows(Index nrows, const I* rp, I* rows) {
  Index r = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (r >= nrows) return;
  for (I p = rp[r] + lane; p < rp[r + 1]; p += 32) rows[p] = I(r);
}

/// out[q] = in[perm[q]] for elements of `Bytes` bytes.
template <class E, class I>
__global__ void k_gather(std::size_t n, const I* perm, const E* in, E* out) {
  std::size_t q = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q < n) out[q] = in[perm[q]];
}

/// rp[c] = number of sorted keys < c, for c in [0, ncols].
template <class I>
__global__ void k_lower_bounds(Index ncols, std::size_t nnz, const I* keys, I* rp) {
  Index c = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c > ncols) return;
  std::size_t lo = 0, hi = nnz;
  while (lo < hi) {
    std::size_t mid = (lo + hi) / 2;
    if (Index(keys[mid]) < c) lo = mid + 1;
    else hi = mid;
  }
  rp[c] = I(lo);
}

/// The entries of a value mask whose value is nonzero, a warp per row (coalesced; long rows in
/// chunks of 32, kept entries placed by ballots). Fill = false: counts[r]; true: writes them.
template <class V, class I, bool Fill>
__global__ void k_mask_rows(Index nrows, const I* rp, const I* ci, const V* v, I* out_rp,
                            I* out_ci) {
  const Index r = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31u;
  if (r >= nrows) return;  // uniform across the warp
  const I e = rp[r + 1];
  I o = Fill ? out_rp[r] : I(0);
  // Unrolled so that a long row's loads of several chunks are in flight at once (each chunk's
  // place depends on the previous one's count, its loads do not).
#pragma unroll 4
  for (I base = rp[r]; base < e; base += 32) {
    const I p = base + I(lane);
    const bool keep = p < e && v[p] != V(0);
    const unsigned ballot = __ballot_sync(0xffffffffu, keep);
    if (Fill && keep) out_ci[o + I(__popc(ballot & ((1u << lane) - 1u)))] = ci[p];
    o += I(__popc(ballot));
  }
  if (!Fill && lane == 0) out_rp[r] = o;
}

template <class To, class From>
Buffer convert_buffer(const Buffer& in, std::size_t n, const Context& ctx) {
  Buffer out(n * sizeof(To), Location::device, &ctx);
  if (n == 0) return out;
  k_convert<To, From><<<grid_for(n, block), block, 0, stream_of(ctx)>>>(n, in.as<From>(),
                                                                      out.as<To>());
  RINGBLAS_CHECK_LAUNCH("k_convert", stream_of(ctx), ctx.debug_sync);
  return out;
}

void require_device(const Matrix& a, const char* where) {
  if (a.location() != Location::device)
    throw InvalidValue(std::string(where) + ": the matrix must be on the device");
}

/// The radix sort's payload for an 8-byte value: the row and the value's two halves (12 bytes,
/// against 16 for a row beside an aligned 8-byte value).
struct row_value8 {
  std::int32_t row;
  std::uint32_t lo, hi;
};
/// The payload carrying an entry's row and value bits: (row << 32 | bits) for E of 1 or 4 bytes,
/// row_value8 for 8 bytes.
template <class E>
using row_value_t = std::conditional_t<sizeof(E) == 8, row_value8, std::uint64_t>;

/// packed[p] = the row of p and the bits of value p, one warp per row.
template <class E>
__global__ void k_pack_row_value(Index nrows, const std::int32_t* rp, const E* v,
                                 row_value_t<E>* packed) {
  const Index r = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (r >= nrows) return;
  for (std::int32_t p = rp[r] + std::int32_t(threadIdx.x % 32); p < rp[r + 1]; p += 32) {
    if constexpr (sizeof(E) == 8)
      packed[p] = row_value8{std::int32_t(r), std::uint32_t(v[p]), std::uint32_t(v[p] >> 32)};
    else
      packed[p] = (std::uint64_t(r) << 32) | std::uint64_t(v[p]);
  }
}

/// Row index and value bits back out of the sorted payloads.
template <class E>
__global__ void k_unpack_row_value(std::size_t n, const row_value_t<E>* packed, std::int32_t* rows,
                                   E* v) {
  const std::size_t q = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= n) return;
  const row_value_t<E> x = packed[q];
  if constexpr (sizeof(E) == 8) {
    rows[q] = x.row;
    v[q] = (E(x.hi) << 32) | E(x.lo);
  } else {
    rows[q] = std::int32_t(x >> 32);
    v[q] = E(x & 0xffffffffu);
  }
}

/// Stable sort of (key, value) pairs by key bits [0, end_bit): CUB's tuning, or 10-bit digits
/// for TransposeMethod::radix10 when the count fits its 32-bit offsets.
template <class K, class V>
void sort_pairs(TransposeMethod method, const K* kin, K* kout, const V* vin, V* vout, std::size_t n,
                int end_bit, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const bool wide = method == TransposeMethod::radix10 && n < (std::size_t(1) << 32);
  std::size_t bytes = 0;
  auto run = [&](void* tmp) {
    if (wide)
      return radix_sort_pairs_wide<10>(tmp, bytes, kin, kout, vin, vout, std::uint32_t(n), 0,
                                       end_bit, s);
    return cub::DeviceRadixSort::SortPairs(tmp, bytes, kin, kout, vin, vout, n, 0, end_bit, s);
  };
  RINGBLAS_CUDA_TRY(run(nullptr));
  device_array<unsigned char> tmp(bytes, ctx);
  RINGBLAS_CUDA_TRY(run(tmp.data()));
}

/// Sort-key bits that hold every column index below ncols (at least 1).
int column_bits(Index ncols, int max_bits) {
  int end_bit = 1;
  while (end_bit < max_bits && (Index(1) << end_bit) <= ncols) ++end_bit;
  return end_bit;
}

/// aᵀ for 32-bit indices: the row and the value travel together as the payload of a stable
/// radix sort by column (8 bytes for values of 1 or 4 bytes, 12 for 8 bytes), so no gather
/// follows the sort (the general path, for 64-bit indices, gathers rows and values through the
/// sorted permutation: two random reads per entry).
template <class E>
Matrix transpose_packed(const Matrix& a, TransposeMethod method, const Context& ctx) {
  const std::size_t nnz = std::size_t(a.nnz());
  cudaStream_t s = stream_of(ctx);
  device_array<row_value_t<E>> packed(nnz, ctx), sorted(nnz, ctx);
  device_array<std::int32_t> keys(nnz, ctx);
  Buffer t_rp(sizeof(std::int32_t) * std::size_t(a.ncols() + 1), Location::device, &ctx);
  Buffer t_ci(sizeof(std::int32_t) * nnz, Location::device, &ctx);
  Buffer t_v(sizeof(E) * nnz, Location::device, &ctx);
  if (nnz > 0) {
    k_pack_row_value<E><<<grid_for(std::size_t(a.nrows()) * 32, block), block, 0, s>>>(
        a.nrows(), a.row_ptr().as<std::int32_t>(), a.values().as<E>(), packed.data());
    RINGBLAS_CHECK_LAUNCH("k_pack_row_value", s, ctx.debug_sync);
    const int end_bit = column_bits(a.ncols(), 32);
    const auto* kin = reinterpret_cast<const std::uint32_t*>(a.col_idx().as<std::int32_t>());
    auto* kout = reinterpret_cast<std::uint32_t*>(keys.data());
    sort_pairs(method, kin, kout, packed.data(), sorted.data(), nnz, end_bit, ctx);
    k_unpack_row_value<E><<<grid_for(nnz, block), block, 0, s>>>(
        nnz, sorted.data(), t_ci.as<std::int32_t>(), t_v.as<E>());
    RINGBLAS_CHECK_LAUNCH("k_unpack_row_value", s, ctx.debug_sync);
  }
  const std::size_t nb = std::size_t(a.ncols()) + 1;
  k_lower_bounds<std::int32_t>
      <<<grid_for(nb, block), block, 0, s>>>(a.ncols(), nnz, keys.data(), t_rp.as<std::int32_t>());
  RINGBLAS_CHECK_LAUNCH("k_lower_bounds", s, ctx.debug_sync);
  return Matrix::from_buffers(a.ncols(), a.nrows(), a.type(), a.index_type(), a.nnz(),
                              std::move(t_rp), std::move(t_ci), std::move(t_v));
}

template <class I>
Matrix transpose_typed(const Matrix& a, TransposeMethod method, const Context& ctx) {
  using U = std::make_unsigned_t<I>;
  if constexpr (std::is_same_v<I, std::int32_t>) {
    const int bits = column_bits(a.ncols(), 32);
    if (method == TransposeMethod::partition && a.nnz() > 0 && bits <= partition_max_column_bits)
      return transpose_partition(a, bits, ctx);
    if (type_size(a.type()) == 8) return transpose_packed<std::uint64_t>(a, method, ctx);
    if (type_size(a.type()) == 4) return transpose_packed<std::uint32_t>(a, method, ctx);
    if (type_size(a.type()) == 1) return transpose_packed<std::uint8_t>(a, method, ctx);
  }
  const std::size_t nnz = std::size_t(a.nnz());
  cudaStream_t s = stream_of(ctx);
  device_array<I> rows(nnz, ctx), perm_in(nnz, ctx), perm(nnz, ctx), keys(nnz, ctx);
  Buffer t_rp(sizeof(I) * std::size_t(a.ncols() + 1), Location::device, &ctx);
  Buffer t_ci(sizeof(I) * nnz, Location::device, &ctx);
  Buffer t_v(type_size(a.type()) * nnz, Location::device, &ctx);
  if (nnz > 0) {
    k_expand_rows<I><<<grid_for(std::size_t(a.nrows()) * 32, block), block, 0, s>>>(
        a.nrows(), a.row_ptr().as<I>(), rows.data());
    RINGBLAS_CHECK_LAUNCH("k_expand_rows", s, ctx.debug_sync);
    k_iota<I><<<grid_for(nnz, block), block, 0, s>>>(nnz, perm_in.data());
    RINGBLAS_CHECK_LAUNCH("k_iota", s, ctx.debug_sync);
    const int end_bit = column_bits(a.ncols(), int(sizeof(I) * 8));
    const U* kin = reinterpret_cast<const U*>(a.col_idx().as<I>());
    U* kout = reinterpret_cast<U*>(keys.data());
    sort_pairs(method, kin, kout, perm_in.data(), perm.data(), nnz, end_bit, ctx);
    k_gather<I, I><<<grid_for(nnz, block), block, 0, s>>>(nnz, perm.data(), rows.data(),
                                                          t_ci.as<I>());
    RINGBLAS_CHECK_LAUNCH("k_gather", s, ctx.debug_sync);
    switch (type_size(a.type())) {
      case 1:
        k_gather<std::uint8_t, I><<<grid_for(nnz, block), block, 0, s>>>(
            nnz, perm.data(), a.values().as<std::uint8_t>(), t_v.as<std::uint8_t>());
        break;
      case 4:
        k_gather<std::uint32_t, I><<<grid_for(nnz, block), block, 0, s>>>(
            nnz, perm.data(), a.values().as<std::uint32_t>(), t_v.as<std::uint32_t>());
        break;
      default:
        k_gather<std::uint64_t, I><<<grid_for(nnz, block), block, 0, s>>>(
            nnz, perm.data(), a.values().as<std::uint64_t>(), t_v.as<std::uint64_t>());
    }
    RINGBLAS_CHECK_LAUNCH("k_gather", s, ctx.debug_sync);
  }
  const std::size_t nb = std::size_t(a.ncols()) + 1;
  k_lower_bounds<I><<<grid_for(nb, block), block, 0, s>>>(a.ncols(), nnz, keys.data(),
                                                          t_rp.as<I>());
  RINGBLAS_CHECK_LAUNCH("k_lower_bounds", s, ctx.debug_sync);
  return Matrix::from_buffers(a.ncols(), a.nrows(), a.type(), a.index_type(), a.nnz(),
                              std::move(t_rp), std::move(t_ci), std::move(t_v));
}

template <class V, class I>
DeviceMask value_mask_typed(const Matrix& m, DeviceMask out, const Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const Index n = m.nrows();
  device_array<I> rp(std::size_t(n) + 1, ctx);
  rp.fill_zero(ctx);
  const unsigned warps = grid_for(std::size_t(n) * 32, block);
  if (n > 0) {
    k_mask_rows<V, I, false><<<warps, block, 0, s>>>(n, m.row_ptr().as<I>(), m.col_idx().as<I>(),
                                                    m.values().as<V>(), rp.data(), nullptr);
    RINGBLAS_CHECK_LAUNCH("k_mask_rows<count>", s, ctx.debug_sync);
  }
  const I nnz = exclusive_scan_total(rp.data(), std::size_t(n) + 1, ctx);
  device_array<I> ci(std::size_t(nnz), ctx);
  if (n > 0 && nnz > 0) {
    k_mask_rows<V, I, true><<<warps, block, 0, s>>>(n, m.row_ptr().as<I>(), m.col_idx().as<I>(),
                                                   m.values().as<V>(), rp.data(), ci.data());
    RINGBLAS_CHECK_LAUNCH("k_mask_rows<fill>", s, ctx.debug_sync);
  }
  out.nnz = Index(nnz);
  out.row_ptr = rp.release();
  out.col_idx = ci.release();
  return out;
}

}  // namespace

Matrix with_index_type(Matrix a, IndexType it, const Context& ctx) {
  require_device(a, "cuda::with_index_type");
  if (a.index_type() == it) return a;
  const Index lim = Index(1) << 31;
  if (it == IndexType::i32 && (a.nnz() >= lim || a.nrows() >= lim || a.ncols() >= lim))
    throw InvalidValue("cuda::with_index_type: " + std::to_string(a.nnz()) + " entries of a " +
                       std::to_string(a.nrows()) + "x" + std::to_string(a.ncols()) +
                       " matrix do not fit 32-bit indices");
  const std::size_t nr = std::size_t(a.nrows()) + 1, nz = std::size_t(a.nnz());
  Buffer rp, ci;
  if (it == IndexType::i64) {
    rp = convert_buffer<std::int64_t, std::int32_t>(a.row_ptr(), nr, ctx);
    ci = convert_buffer<std::int64_t, std::int32_t>(a.col_idx(), nz, ctx);
  } else {
    rp = convert_buffer<std::int32_t, std::int64_t>(a.row_ptr(), nr, ctx);
    ci = convert_buffer<std::int32_t, std::int64_t>(a.col_idx(), nz, ctx);
  }
  Index nrows = a.nrows(), ncols = a.ncols(), nnz = a.nnz();
  Type t = a.type();
  return Matrix::from_buffers(nrows, ncols, t, it, nnz, std::move(rp), std::move(ci),
                              std::move(a.values()));
}

Matrix cast_values(Matrix a, Type t, const Context& ctx) {
  require_device(a, "cuda::cast_values");
  if (a.type() == t) return a;
  const std::size_t n = std::size_t(a.nnz());
  Buffer out(type_size(t) * n, Location::device, &ctx);
  if (n > 0) {
    visit_type(t, [&](auto to) {
      visit_type(a.type(), [&](auto from) {
        using To = decltype(to);
        using From = decltype(from);
        k_cast_values<To, From><<<grid_for(n, block), block, 0, stream_of(ctx)>>>(
            n, a.values().as<From>(), out.as<To>());
      });
    });
    RINGBLAS_CHECK_LAUNCH("k_cast_values", stream_of(ctx), ctx.debug_sync);
  }
  Index nrows = a.nrows(), ncols = a.ncols(), nnz = a.nnz();
  IndexType it = a.index_type();
  return Matrix::from_buffers(nrows, ncols, t, it, nnz, std::move(a.row_ptr()),
                              std::move(a.col_idx()), std::move(out));
}

Matrix transpose(const Matrix& a, const Context& ctx, TransposeMethod method) {
  require_device(a, "cuda::transpose");
  return visit_index_type(a.index_type(),
                          [&](auto i) { return transpose_typed<decltype(i)>(a, method, ctx); });
}

const Matrix& prepare_operand(const Matrix& a, bool transposed, IndexType it,
                              std::optional<Type> values, Matrix& hold, const Context& ctx) {
  const Matrix* cur = &a;
  auto keep = [&](Matrix m) {
    hold = std::move(m);
    cur = &hold;
  };
  // A host matrix without entries (say an output just constructed) is made on the device: there
  // is nothing to copy, and the trace and transfer counters then show no copy.
  if (cur->location() != Location::device)
    keep(cur->nnz() == 0 ? empty_device_matrix(a.nrows(), a.ncols(), a.type(), it, ctx)
                         : cur->to(Location::device, ctx));
  if (cur->index_type() != it) {
    if (cur == &a) keep(with_index_type(Matrix(a), it, ctx));
    else keep(with_index_type(std::move(hold), it, ctx));
  }
  if (transposed) keep(transpose(*cur, ctx));
  if (values && cur->type() != *values) {
    if (cur == &a) keep(cast_values(Matrix(a), *values, ctx));
    else keep(cast_values(std::move(hold), *values, ctx));
  }
  return *cur;
}

DeviceMask make_device_mask(const Matrix* M, bool structure, bool complement, IndexType it,
                            const Context& ctx) {
  DeviceMask out;
  out.complement = complement;
  out.itype = it;
  if (!M) return out;
  out.present = true;
  out.nrows = M->nrows();
  out.ncols = M->ncols();
  Matrix hold;
  const Matrix& m = prepare_operand(*M, false, it, std::nullopt, hold, ctx);
  if (structure) {
    out.nnz = m.nnz();
    if (&m == &hold) {
      out.row_ptr = std::move(hold.row_ptr());
      out.col_idx = std::move(hold.col_idx());
    } else {
      out.row_ptr = m.row_ptr();
      out.col_idx = m.col_idx();
    }
    return out;
  }
  return visit_type(m.type(), [&](auto v) {
    return visit_index_type(it, [&](auto i) {
      return value_mask_typed<decltype(v), decltype(i)>(m, std::move(out), ctx);
    });
  });
}

Matrix empty_device_matrix(Index nrows, Index ncols, Type t, IndexType it, const Context& ctx) {
  Buffer rp(index_size(it) * std::size_t(nrows + 1), Location::device, &ctx);
  RINGBLAS_CUDA_TRY(cudaMemsetAsync(rp.data(), 0, rp.size(), stream_of(ctx)));
  return Matrix::from_buffers(nrows, ncols, t, it, 0, std::move(rp),
                              Buffer(0, Location::device, &ctx), Buffer(0, Location::device, &ctx));
}

}  // namespace ringblas::cuda
