// Element-wise add / multiply and unary apply of sparse vectors on the device, dense over w's
// positions: the operands are scattered (common/vector_plumbing), one thread per position
// combines them, and detail::write_back applies mask, accumulator and replace and compacts.
// Without mask and accumulator, where T's structure is known beforehand (an operand is full, or
// a unary map), T is built on that structure directly: O(its entries), no host sync.
// Positional operators see a vector as an n x 1 matrix: i the position, j = 0.
#include <algorithm>
#include <string>

#include "backend/core/containers/device_fill.hpp"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/vector_plumbing.hpp"
#include "backend/cuda/elementwise/agent.cuh"
#include "backend/cuda/elementwise/elementwise.hpp"
#include "backend/cuda/elementwise/launch.cuh"
#include "ringblas/error.hpp"

namespace ringblas::cuda::elementwise {
namespace {

template <class V>
__global__ void k_vector_merge(std::size_t n, BinaryOpCode op, bool union_of, const V* u,
                               const unsigned char* pu, const V* v, const unsigned char* pv, V* t,
                               unsigned char* pt) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const bool hu = pu[i] != 0, hv = pv[i] != 0;
  bool present = false;
  V z{};
  if (hu && hv) {
    present = true;
    z = binary_op_at<V>(op, u[i], v[i], std::int64_t(i), 0, std::int64_t(i), 0);
  } else if (union_of && (hu || hv)) {
    present = true;
    z = hu ? u[i] : v[i];
  }
  pt[i] = present ? 1 : 0;
  t[i] = z;
}

template <class V>
__global__ void k_vector_map(std::size_t n, UnaryOpCode op, const unsigned char* pu, V* t) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && pu[i]) t[i] = sr::apply_unary(op, t[i]);
}

// s ∩ f (intersection) or s ∪ f (union) with f full: one thread per stored s(k) at i = s_idx[k]
// combines it with f(i); `s_first`: s is the left operand. Intersection writes out[k] (s's
// structure); union writes out[i] over a copy of f (every position).
template <class V>
__global__ void k_vector_with_full(long long nnz, BinaryOpCode op, bool s_first, bool union_of,
                                   const std::int64_t* s_idx, const V* s, const V* f, V* out) {
  const long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= nnz) return;
  const std::int64_t i = s_idx[k];
  const V z = s_first ? binary_op_at<V>(op, s[k], f[i], i, 0, i, 0)
                      : binary_op_at<V>(op, f[i], s[k], i, 0, i, 0);
  out[union_of ? i : k] = z;
}

template <class V>
__global__ void k_values_map(long long n, UnaryOpCode op, V* t) {
  const long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k < n) t[k] = sr::apply_unary(op, t[k]);
}

/// A device copy of `b` (its first `bytes`), queued on ctx's stream without a host wait.
Buffer copy_async(const Buffer& b, std::size_t bytes, Context& ctx) {
  Buffer out(std::max<std::size_t>(bytes, 1), Location::device, &ctx);
  if (bytes)
    RINGBLAS_CUDA_TRY(
        cudaMemcpyAsync(out.data(), b.data(), bytes, cudaMemcpyDeviceToDevice, stream_of(ctx)));
  return out;
}

/// u scattered to dense values of `type` (zeros elsewhere) and presence flags.
DenseT scatter(const Vector& u, Type type, Context& ctx) {
  const std::size_t n1 = std::max<std::size_t>(std::size_t(u.size()), 1);
  DenseT d{Buffer(n1 * type_size(type), Location::device, &ctx),
           Buffer(n1, Location::device, &ctx)};
  cudaStream_t s = stream_of(ctx);
  RINGBLAS_CUDA_TRY(cudaMemsetAsync(d.values.data(), 0, d.values.size(), s));
  RINGBLAS_CUDA_TRY(cudaMemsetAsync(d.present.data(), 0, d.present.size(), s));
  detail::scatter_vector(u, type, d.values.data(), d.present.as<unsigned char>(), ctx);
  return d;
}

}  // namespace

DenseT vector_merge(const Vector& u, const Vector& v, BinaryOpCode op, Merge how, Type type,
                    Context& ctx) {
  DenseT a = scatter(u, type, ctx), b = scatter(v, type, ctx);
  const std::size_t n = std::size_t(u.size());
  if (n == 0) return a;
  visit_type(type, [&](auto z) {
    using V = decltype(z);
    // a's arrays are read and written by the same thread only, so they take the result.
    k_vector_merge<V><<<blocks_for(n), Policy::block, 0, stream_of(ctx)>>>(
        n, op, how == Merge::union_of, a.values.as<V>(), a.present.as<unsigned char>(),
        b.values.as<V>(), b.present.as<unsigned char>(), a.values.as<V>(),
        a.present.as<unsigned char>());
    RINGBLAS_CHECK_LAUNCH("k_vector_merge", stream_of(ctx), ctx.debug_sync);
  });
  return a;
}

Vector vector_merge_full(const Vector& u, const Vector& v, BinaryOpCode op, Merge how, Type type,
                         Context& ctx) {
  const bool v_full = v.nnz() == v.size();
  if (!v_full && u.nnz() != u.size())
    throw InvalidValue("cuda elementwise::vector_merge_full: neither operand is full");
  // s: the operand whose entries drive the threads (the sparse one, or u when both are full).
  const Vector& s = v_full ? u : v;
  const Vector& f = v_full ? v : u;
  const bool union_of = how == Merge::union_of;
  const Index out_nnz = union_of ? f.nnz() : s.nnz();
  // Operands already of the operator's type are read in place; the union's output starts as a
  // copy of f (each thread then reads f(i) from it and writes only its own position i).
  Buffer s_cast, f_cast;
  const void* sv = s.values().data();
  const void* fv = f.values().data();
  if (s.type() != type) sv = (s_cast = detail::vector_values_as(s, type, ctx)).data();
  if (f.type() != type && !union_of) fv = (f_cast = detail::vector_values_as(f, type, ctx)).data();
  Buffer out_vals =
      union_of ? detail::vector_values_as(f, type, ctx)
               : Buffer(std::max<std::size_t>(std::size_t(out_nnz), 1) * type_size(type),
                        Location::device, &ctx);
  if (union_of) fv = out_vals.data();
  if (s.nnz() > 0)
    visit_type(type, [&](auto z) {
      using V = decltype(z);
      k_vector_with_full<V><<<blocks_for(std::size_t(s.nnz())), Policy::block, 0,
                              stream_of(ctx)>>>(s.nnz(), op, &s == &u, union_of,
                                                s.indices().as<std::int64_t>(),
                                                static_cast<const V*>(sv), static_cast<const V*>(fv),
                                                out_vals.as<V>());
      RINGBLAS_CHECK_LAUNCH("k_vector_with_full", stream_of(ctx), ctx.debug_sync);
    });
  // A full vector's indices are 0..n-1: written, not copied (half the traffic).
  Buffer idx = union_of ? Buffer(std::max<std::size_t>(std::size_t(out_nnz), 1) * 8,
                                 Location::device, &ctx)
                        : copy_async(s.indices(), std::size_t(out_nnz) * 8, ctx);
  if (union_of)
    ringblas::detail::device_iota(idx.as<std::int64_t>(), std::size_t(out_nnz), &ctx);
  return Vector::from_buffers(u.size(), type, out_nnz, std::move(idx), std::move(out_vals));
}

Vector vector_map_values(const Vector& u, UnaryOpCode op, Type type, Context& ctx) {
  Buffer vals = detail::vector_values_as(u, type, ctx);
  if (u.nnz() > 0)
    visit_type(type, [&](auto z) {
      using V = decltype(z);
      k_values_map<V><<<blocks_for(std::size_t(u.nnz())), Policy::block, 0, stream_of(ctx)>>>(
          u.nnz(), op, vals.as<V>());
      RINGBLAS_CHECK_LAUNCH("k_values_map", stream_of(ctx), ctx.debug_sync);
    });
  return Vector::from_buffers(u.size(), type, u.nnz(),
                              copy_async(u.indices(), std::size_t(u.nnz()) * 8, ctx),
                              std::move(vals));
}

DenseT vector_map(const Vector& u, UnaryOpCode op, Type type, Context& ctx) {
  DenseT a = scatter(u, type, ctx);
  const std::size_t n = std::size_t(u.size());
  if (n == 0) return a;
  visit_type(type, [&](auto z) {
    using V = decltype(z);
    k_vector_map<V><<<blocks_for(n), Policy::block, 0, stream_of(ctx)>>>(
        n, op, a.present.as<unsigned char>(), a.values.as<V>());
    RINGBLAS_CHECK_LAUNCH("k_vector_map", stream_of(ctx), ctx.debug_sync);
  });
  return a;
}

}  // namespace ringblas::cuda::elementwise
