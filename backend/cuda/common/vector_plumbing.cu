// Device sparse-vector plumbing for mxv / vxm: scatter, mask flags, write-back and compaction.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <string>

#include "backend/core/containers/device_fill.hpp"
#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/host_read.hpp"
#include "backend/cuda/common/row_merge.cuh"
#include "backend/cuda/common/vector_plumbing.hpp"
#include "backend/cuda/spmm_subwarp/device_prep.hpp"
#include "semirings/arith.hpp"

namespace ringblas::cuda::detail {
namespace {

inline cudaStream_t stream_of(const Context& ctx) { return static_cast<cudaStream_t>(ctx.stream); }
inline unsigned blocks(long long n) { return static_cast<unsigned>((n + 255) / 256); }

template <class T>
__global__ void scatter_kernel(const std::int64_t* idx, const T* vals, long long nnz, T* dense,
                               unsigned char* present) {
  const long long e = blockIdx.x * 256ll + threadIdx.x;
  if (e >= nnz) return;
  if (dense) dense[idx[e]] = vals[e];
  if (present) present[idx[e]] = 1;
}

__global__ void narrow_idx_kernel(std::int32_t* out, const std::int64_t* in, long long n) {
  const long long e = blockIdx.x * 256ll + threadIdx.x;
  if (e < n) out[e] = static_cast<std::int32_t>(in[e]);
}

template <class T>
__global__ void mask_kernel(const std::int64_t* idx, const T* vals, long long nnz, bool structural,
                            bool complement, unsigned char* admit) {
  const long long e = blockIdx.x * 256ll + threadIdx.x;
  if (e >= nnz) return;
  if (structural || vals[e] != T(0)) admit[idx[e]] = complement ? 0 : 1;
}

/// mask_kernel for a full valued mask (nnz = size: its indices are 0..n-1), by position: every
/// position is written, so neither the indices (8n bytes) nor a memset are read or needed.
template <class T>
__global__ void full_mask_kernel(const T* vals, long long n, bool complement,
                                 unsigned char* admit) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < n) admit[i] = (vals[i] != T(0)) != complement ? 1 : 0;
}

/// A presence flag widened for counting (a sum of bytes would overflow).
struct flag_as_count {
  __device__ long long operator()(unsigned char f) const { return f ? 1 : 0; }
};

// Z = T, or old accum T where both exist; inside the mask w takes Z, outside it keeps old
// (or loses it with replace).
template <class T>
__global__ void write_back_kernel(int n, const T* t, const unsigned char* tp, const unsigned char* admit,
                                  const T* old, const unsigned char* op, int accum, bool replace, T* out,
                                  unsigned char* out_p) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  if (i >= n) return;
  const bool has_t = tp[i] != 0, has_old = op && op[i] != 0;
  bool present = false;
  T v{};
  if (!admit || admit[i]) {
    if (accum >= 0 && has_t && has_old)
      present = true, v = binary_op_at<T>(BinaryOpCode(accum), old[i], t[i], 0, 0, 0, 0);
    else if (has_t) present = true, v = t[i];
    else if (accum >= 0 && has_old) present = true, v = old[i];
  } else if (!replace && has_old) {
    present = true, v = old[i];
  }
  out_p[i] = present ? 1 : 0;
  out[i] = v;
}

/// w[i] = w[i] accum t[i] where t is present (accumulate_in_place).
template <class T>
__global__ void accumulate_full_kernel(int n, const T* t, const unsigned char* tp, int accum, T* w) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n && tp[i]) w[i] = binary_op_at<T>(BinaryOpCode(accum), w[i], t[i], 0, 0, 0, 0);
}

}  // namespace

const Vector& on_device(const Vector& v, Vector& hold, Context& ctx) {
  if (v.location() == Location::device) return v;
  hold = v.to(Location::device, ctx);
  return hold;
}

void scatter_vector(const Vector& u, Type type, void* dense, unsigned char* present, Context& ctx) {
  if (u.nnz() == 0) return;
  Buffer vals;
  if (dense) vals = vector_values_as(u, type, ctx);
  visit_type(type, [&](auto z) {
    using T = decltype(z);
    scatter_kernel<T><<<blocks(u.nnz()), 256, 0, stream_of(ctx)>>>(
        u.indices().as<std::int64_t>(), dense ? vals.as<T>() : nullptr, u.nnz(), static_cast<T*>(dense), present);
    RINGBLAS_CHECK_LAUNCH("scatter_kernel", stream_of(ctx), ctx.debug_sync);
  });
}

Buffer vector_values_as(const Vector& u, Type type, Context& ctx) {
  Buffer out(std::max<std::size_t>(static_cast<std::size_t>(u.nnz()), 1) * type_size(type), Location::device, &ctx);
  cast_into(out.data(), type, u.values().data(), u.type(), static_cast<std::size_t>(u.nnz()), ctx);
  return out;
}

Buffer narrow_indices(const Buffer& idx, Index count, Context& ctx) {
  Buffer out(std::max<std::size_t>(static_cast<std::size_t>(count), 1) * 4, Location::device, &ctx);
  if (count == 0) return out;
  narrow_idx_kernel<<<blocks(count), 256, 0, stream_of(ctx)>>>(out.as<std::int32_t>(), idx.as<std::int64_t>(), count);
  RINGBLAS_CHECK_LAUNCH("narrow_idx_kernel", stream_of(ctx), ctx.debug_sync);
  return out;
}

Buffer mask_admit(const Vector* mask, Index n, bool structural, bool complement, Context& ctx) {
  if (!mask && !complement) return Buffer();
  Buffer admit(std::max<std::size_t>(static_cast<std::size_t>(n), 1), Location::device, &ctx);
  cudaStream_t s = stream_of(ctx);
  // A full mask (every position stored, so its indices are 0..n-1; BFS's ⟨¬depth⟩): admitted
  // by position. Structural: one memset; valued: its values alone.
  if (mask && n > 0 && mask->nnz() == n) {
    if (structural) {
      RINGBLAS_CUDA_TRY(
          cudaMemsetAsync(admit.data(), complement ? 0 : 1, static_cast<std::size_t>(n), s));
      return admit;
    }
    Vector hold;
    const Vector& dev = on_device(*mask, hold, ctx);
    visit_type(dev.type(), [&](auto z) {
      using T = decltype(z);
      full_mask_kernel<T><<<blocks(n), 256, 0, s>>>(dev.values().as<T>(), n, complement,
                                                    admit.as<unsigned char>());
      RINGBLAS_CHECK_LAUNCH("full_mask_kernel", s, ctx.debug_sync);
    });
    return admit;
  }
  RINGBLAS_CUDA_TRY(
      cudaMemsetAsync(admit.data(), complement ? 1 : 0, static_cast<std::size_t>(n), s));
  if (!mask || mask->nnz() == 0) {
    if (!mask) RINGBLAS_CUDA_TRY(cudaMemsetAsync(admit.data(), 0, static_cast<std::size_t>(n), stream_of(ctx)));
    return admit;  // no mask + complement admits nothing (GraphBLAS C<!NULL>)
  }
  Vector hold;
  const Vector& dev = on_device(*mask, hold, ctx);
  visit_type(dev.type(), [&](auto z) {
    using T = decltype(z);
    mask_kernel<T><<<blocks(dev.nnz()), 256, 0, stream_of(ctx)>>>(
        dev.indices().as<std::int64_t>(), dev.values().as<T>(), dev.nnz(), structural, complement, admit.as<unsigned char>());
    RINGBLAS_CHECK_LAUNCH("mask_kernel", stream_of(ctx), ctx.debug_sync);
  });
  return admit;
}

bool write_back_copies_t(const Vector& w_old, const unsigned char* admit, Accum accum) {
  // Mirrors write_back: without a mask or an accumulator w is t (its `plain` case); an
  // accumulator into an empty w finds no old entry, so every admitted position takes t as well.
  // A positional accumulator is not this case: write_back refuses it (NotImplemented).
  return admit == nullptr && (!accum || (!is_positional(*accum) && w_old.nnz() == 0));
}

bool accumulate_in_place(Vector& w, const void* t_values, Type t_type,
                         const unsigned char* t_present, const unsigned char* admit, Accum accum,
                         Context& ctx) {
  const Index n = w.size();
  if (admit || !accum || is_positional(*accum) || w.location() != Location::device || n == 0 ||
      w.nnz() != n)
    return false;
  const Type tw = w.type();
  Buffer t_cast;
  if (t_type != tw) {
    t_cast = Buffer(static_cast<std::size_t>(n) * type_size(tw), Location::device, &ctx);
    cast_into(t_cast.data(), tw, t_values, t_type, static_cast<std::size_t>(n), ctx);
  }
  const void* t_w = t_type != tw ? t_cast.data() : t_values;
  cudaStream_t s = stream_of(ctx);
  visit_type(tw, [&](auto z) {
    using T = decltype(z);
    accumulate_full_kernel<T><<<blocks(n), 256, 0, s>>>(static_cast<int>(n),
                                                         static_cast<const T*>(t_w), t_present,
                                                         static_cast<int>(*accum), w.values().as<T>());
    RINGBLAS_CHECK_LAUNCH("accumulate_full_kernel", s, ctx.debug_sync);
  });
  return true;
}

Vector write_back(const Vector& w_old, const void* t_values, Type t_type, const unsigned char* t_present,
                  const unsigned char* admit, Accum accum, bool replace, Context& ctx) {
  if (accum && is_positional(*accum))
    throw NotImplemented("cuda vector write-back: positional accumulator " + std::string(binary_op_name(*accum)));
  const Index n = w_old.size();
  const Type tw = w_old.type();
  const std::size_t tsz = type_size(tw);
  cudaStream_t s = stream_of(ctx);
  const std::size_t n1 = std::max<std::size_t>(static_cast<std::size_t>(n), 1);
  // t in w's type: t itself when the types agree (no copy), else a cast copy.
  Buffer t_cast;
  if (t_type != tw) {
    t_cast = Buffer(n1 * tsz, Location::device, &ctx);
    cast_into(t_cast.data(), tw, t_values, t_type, static_cast<std::size_t>(n), ctx);
  }
  const void* t_w = t_type != tw ? t_cast.data() : t_values;
  const bool need_old = w_old.nnz() > 0 && (accum.has_value() || ((admit != nullptr) && !replace));
  Buffer old_vals, old_present, full_idx;
  // No mask and an accumulator into a full w (FastSV's labels, PageRank's ranks): every position
  // keeps an entry (w's, or w accum t), so w stays full: no compaction, no read-back of nnz.
  const bool stays_full = need_old && !admit && accum.has_value() && w_old.nnz() == n;
  if (need_old) {
    Vector hold;
    const Vector& dev = on_device(w_old, hold, ctx);
    old_vals = Buffer(n1 * tsz, Location::device, &ctx);
    old_present = Buffer(n1, Location::device, &ctx);
    RINGBLAS_CUDA_TRY(cudaMemsetAsync(old_present.data(), 0, n1, s));
    scatter_vector(dev, tw, old_vals.data(), old_present.as<unsigned char>(), ctx);
    if (stays_full) {  // a full vector's indices are 0..n-1: written, not copied
      full_idx = Buffer(n1 * 8, Location::device, &ctx);
      ringblas::detail::device_iota(full_idx.as<std::int64_t>(), std::size_t(n), &ctx);
    }
  }
  if (stays_full) {
    Buffer vals(n1 * tsz, Location::device, &ctx), flags(n1, Location::device, &ctx);
    visit_type(tw, [&](auto z) {
      using T = decltype(z);
      write_back_kernel<T><<<blocks(n), 256, 0, s>>>(
          static_cast<int>(n), static_cast<const T*>(t_w), t_present, nullptr, old_vals.as<T>(),
          old_present.as<unsigned char>(), static_cast<int>(*accum), replace, vals.as<T>(),
          flags.as<unsigned char>());
      RINGBLAS_CHECK_LAUNCH("write_back_kernel", s, ctx.debug_sync);
    });
    return Vector::from_buffers(n, tw, n, std::move(full_idx), std::move(vals));
  }
  // Without a mask, an accumulator or old entries to keep, w is t itself: no merge pass.
  const bool plain = admit == nullptr && !accum.has_value() && !need_old;
  Buffer vals, flags;
  if (!plain && n > 0) {
    vals = Buffer(n1 * tsz, Location::device, &ctx);
    flags = Buffer(n1, Location::device, &ctx);
    visit_type(tw, [&](auto z) {
      using T = decltype(z);
      write_back_kernel<T><<<blocks(n), 256, 0, s>>>(
          static_cast<int>(n), static_cast<const T*>(t_w), t_present, admit, need_old ? old_vals.as<T>() : nullptr,
          need_old ? old_present.as<unsigned char>() : nullptr, accum ? static_cast<int>(*accum) : -1, replace,
          vals.as<T>(), flags.as<unsigned char>());
      RINGBLAS_CHECK_LAUNCH("write_back_kernel", s, ctx.debug_sync);
    });
  }
  const void* z_vals = plain ? t_w : vals.data();
  const unsigned char* z_flags = plain ? t_present : flags.as<unsigned char>();
  return compact_flagged(n, tw, z_vals, z_flags, -1, ctx);
}

Vector compact_flagged(Index n, Type type, const void* vals, const unsigned char* flags,
                       long long count, Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const std::size_t tsz = type_size(type);
  // The count first (one read of n bytes, the one synchronisation), so that w's arrays are
  // allocated at their size and one select pass fills indices and values together.
  long long selected = count;
  if (selected < 0 && n > 0) {
    Buffer total(sizeof(long long), Location::device, &ctx);
    const auto counts = thrust::make_transform_iterator(flags, flag_as_count{});
    std::size_t bytes = 0;
    RINGBLAS_CUDA_TRY(cub::DeviceReduce::Sum(nullptr, bytes, counts, total.as<long long>(), n, s));
    Buffer temp(std::max<std::size_t>(bytes, 1), Location::device, &ctx);
    RINGBLAS_CUDA_TRY(
        cub::DeviceReduce::Sum(temp.data(), bytes, counts, total.as<long long>(), n, s));
    selected = read_value(total.as<long long>(), ctx);
    ctx.transfers.device_to_host += 1;
    ctx.transfers.bytes_device_to_host += sizeof(long long);
  }
  const std::size_t nsel = static_cast<std::size_t>(std::max<long long>(selected, 0));
  Buffer idx(std::max<std::size_t>(nsel, 1) * 8, Location::device, &ctx), v(std::max<std::size_t>(nsel, 1) * tsz, Location::device, &ctx);
  if (nsel) {
    Buffer count(sizeof(long long), Location::device, &ctx);
    visit_type(type, [&](auto z) {
      using T = decltype(z);
      const auto in = thrust::make_zip_iterator(thrust::make_tuple(
          thrust::counting_iterator<std::int64_t>(0), static_cast<const T*>(vals)));
      const auto out = thrust::make_zip_iterator(thrust::make_tuple(idx.as<std::int64_t>(), v.as<T>()));
      std::size_t bytes = 0;
      RINGBLAS_CUDA_TRY(
          cub::DeviceSelect::Flagged(nullptr, bytes, in, flags, out, count.as<long long>(), n, s));
      Buffer temp(std::max<std::size_t>(bytes, 1), Location::device, &ctx);
      RINGBLAS_CUDA_TRY(cub::DeviceSelect::Flagged(temp.data(), bytes, in, flags, out,
                                                   count.as<long long>(), n, s));
    });
  }
  return Vector::from_buffers(n, type, static_cast<Index>(nsel), std::move(idx), std::move(v));
}

}  // namespace ringblas::cuda::detail
