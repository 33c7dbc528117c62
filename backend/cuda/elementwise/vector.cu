// Element-wise add / multiply and unary apply of sparse vectors on the device, dense over w's
// positions: the operands are scattered (common/vector_plumbing), one thread per position
// combines them, and detail::write_back applies mask, accumulator and replace and compacts.
// Positional operators see a vector as an n x 1 matrix: i the position, j = 0.
#include <string>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/vector_plumbing.hpp"
#include "backend/cuda/elementwise/agent.cuh"
#include "backend/cuda/elementwise/elementwise.hpp"
#include "backend/cuda/elementwise/launch.cuh"

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
