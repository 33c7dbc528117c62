// maxk family launchers: operands to the device (A as int32 CSR with fp32 values), outputs kept
// where the caller has them, one kernel per operation (kernels.cuh). No synchronisation: the
// pool frees in stream order and copies back to the host run on ctx.stream (copy_bytes).
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/common/device_props.hpp"
#include "backend/cuda/maxk/kernels.cuh"
#include "backend/cuda/maxk/maxk.hpp"

namespace ringblas::cuda::maxk {
namespace {

unsigned row_grid(Index n) { return grid_for(std::size_t(n), std::size_t(Policy::warps)); }

/// The list of A's further row segments (kernels.cuh, find_segment) when some row may be longer
/// than `edges`, else nothing (one warp per row). Built on the device, no host read: the grid is
/// sized for the most segments there can be (n + nnz / edges).
struct Segments {
  Buffer extras;
  unsigned grid = 0;
  int edges = 0;
  const int* data() const { return extras.size() ? extras.as<int>() : nullptr; }
};
Segments make_segments(const Matrix& a, bool allow_split, int edges, float* zero_split_rows,
                       Index h, const Context& ctx) {
  Segments s;
  s.edges = edges;
  const Index n = a.nrows();
  if (!allow_split || a.nnz() <= edges || n == 0) {
    s.grid = row_grid(n);
    return s;
  }
  cudaStream_t st = stream_of(ctx);
  const Index most = a.nnz() / edges + 1;
  s.extras = Buffer(std::size_t(2 + 2 * most) * sizeof(int), Location::device, &ctx);
  int* ex = s.extras.as<int>();
  RINGBLAS_CUDA_TRY(cudaMemsetAsync(ex, 0, sizeof(int), st));
  segment_extras_kernel<<<grid_for(std::size_t(n), Policy::block), Policy::block, 0, st>>>(
      a.row_ptr().as<int>(), int(n), edges, ex, zero_split_rows, int(h));
  RINGBLAS_CHECK_LAUNCH("maxk::segment_extras_kernel", st, ctx.debug_sync);
  s.grid = row_grid(n + most);
  return s;
}
/// The grid of a grid-stride kernel (forward_kernel, backward_kernel): one wave of the blocks an
/// SM holds at once, at most `needed` (one warp per segment).
template <class Kernel>
unsigned resident_grid(Kernel kernel, std::size_t smem, unsigned needed, const Context& ctx) {
  int per_sm = 0;
  RINGBLAS_CUDA_TRY(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Policy::block, smem));
  const unsigned wave = unsigned(std::max(per_sm, 1)) * unsigned(device_props(ctx.device).sm_count);
  return std::max(1u, std::min(needed, wave));
}

/// Shared memory of a block whose warps each hold `rows` rows in RowLayout(h).
std::size_t row_smem(Index h, int rows) {
  return std::size_t(Policy::warps) * std::size_t(rows) * std::size_t(RowLayout(int(h)).size()) *
         sizeof(float);
}

/// The compiled unroll depths of the forward for each vector width (Shape::unroll).
bool unroll_compiled(int v, int u) {
  return v == 1 ? (u == 4 || u == 8) : v == 2 ? (u == 2 || u == 4) : (u == 1 || u == 2 || u == 4);
}

void check_shape(const char* where, const Shape& s, int k, bool forward) {
  if ((s.vector != 1 && s.vector != 2 && s.vector != 4) || (k > 0 && k % s.vector != 0) ||
      s.slots < 1 || s.slots > 8 || (forward && !unroll_compiled(s.vector, s.unroll)) ||
      s.segment < 32)
    throw InvalidValue(std::string(where) + ": shape (vector " + std::to_string(s.vector) +
                       ", slots " + std::to_string(s.slots) + ", unroll " +
                       std::to_string(s.unroll) + ", segment " + std::to_string(s.segment) +
                       ") does not fit k " + std::to_string(k) +
                       " (vector 1, 2 or 4 dividing k, slots 1 to 8, unroll 4 or 8 for vector 1, "
                       "2 or 4 for vector 2, 1, 2 or 4 for vector 4, segment >= 32)");
}

using ForwardKernel = void (*)(const int*, const int*, const float*, int, const int*, int,
                               const float*, const std::uint8_t*, int, int, int, float*,
                               sparse_layer::ColumnEpilogue, dense_nn::DropoutMask);
/// forward_kernel<V, Wide, U> for a checked shape (unroll_compiled).
ForwardKernel forward_kernel_for(int v, bool wide, int u) {
  if (v == 4) {
    if (wide) return forward_kernel<4, true, 1>;
    return u == 1   ? forward_kernel<4, false, 1>
           : u == 2 ? forward_kernel<4, false, 2>
                    : forward_kernel<4, false, 4>;
  }
  if (v == 2) {
    if (wide) return forward_kernel<2, true, 1>;
    return u == 2 ? forward_kernel<2, false, 2> : forward_kernel<2, false, 4>;
  }
  if (wide) return forward_kernel<1, true, 1>;
  return u == 4 ? forward_kernel<1, false, 4> : forward_kernel<1, false, 8>;
}

template <class T>
const T& on_device(const T& x, T& hold, const Context& ctx) {
  if (x.location() == Location::device) return x;
  hold = x.to(Location::device, ctx);
  return hold;
}

/// A device CBSR of x's shape whose indices equal x's (values uninitialised unless copied).
Cbsr device_pattern(const Cbsr& x, const Context& ctx) {
  return Cbsr::from_buffers(x.nrows(), x.ncols(), x.k(),
                            Buffer(std::size_t(x.nnz()) * sizeof(float), Location::device, &ctx),
                            x.indices().to(Location::device, ctx));
}

}  // namespace

void topk(Cbsr& x, const DenseMatrix& y, int k, Context& ctx) {
  cudaStream_t st = stream_of(ctx);
  DenseMatrix yh;
  const DenseMatrix& yd = on_device(y, yh, ctx);
  const Index n = y.nrows(), h = y.ncols();
  const bool reuse =
      x.location() == Location::device && x.nrows() == n && x.ncols() == h && x.k() == k;
  Cbsr out =
      reuse ? Cbsr()
            : Cbsr::from_buffers(n, h, k,
                                 Buffer(std::size_t(n * k) * sizeof(float), Location::device, &ctx),
                                 Buffer(std::size_t(n * k), Location::device, &ctx));
  Cbsr& dst = reuse ? x : out;
  ctx.trace_line("maxk: topk_kernel, " + std::to_string(n) + " rows of " + std::to_string(h) +
                 ", k " + std::to_string(k));
  if (n > 0 && k > 0) {
    topk_kernel<<<row_grid(n), Policy::block, 0, st>>>(yd.values().as<float>(), int(n), int(h), k,
                                                       dst.values().as<float>(),
                                                       dst.indices().as<std::uint8_t>());
    RINGBLAS_CHECK_LAUNCH("maxk::topk_kernel", st, ctx.debug_sync);
  }
  if (!reuse) x = x.location() == Location::device ? std::move(out) : out.to(Location::host, ctx);
}

void densify(DenseMatrix& d, const Cbsr& x, Context& ctx) {
  cudaStream_t st = stream_of(ctx);
  Cbsr xh;
  const Cbsr& xd = on_device(x, xh, ctx);
  const Index n = x.nrows(), h = x.ncols();
  const bool direct = d.location() == Location::device && d.nrows() == n && d.ncols() == h &&
                      d.type() == Type::fp32;
  DenseMatrix out = direct ? DenseMatrix()
                           : DenseMatrix::from_buffer(n, h, Type::fp32, Layout::row_major,
                                                      Buffer(std::size_t(n * h) * sizeof(float),
                                                             Location::device, &ctx));
  DenseMatrix& dst = direct ? d : out;
  ctx.trace_line("densify: densify_kernel, " + std::to_string(n) + " rows of " + std::to_string(h) +
                 ", k " + std::to_string(x.k()));
  if (n * h > 0) {
    densify_kernel<<<row_grid(n), Policy::block, row_smem(h, 1), st>>>(
        xd.values().as<float>(), xd.indices().as<std::uint8_t>(), int(n), x.k(), int(h),
        dst.values().as<float>());
    RINGBLAS_CHECK_LAUNCH("maxk::densify_kernel", st, ctx.debug_sync);
  }
  if (!direct) d = d.location() == Location::device ? std::move(out) : out.to(Location::host, ctx);
}

Shape forward_shape(int k) {
  const int v = k > 0 ? forward_vector(k) : 1;
  return Shape{v, k > 0 ? forward_slots(k) : 1, forward_unroll(v)};
}
Shape backward_shape(int k) {
  const int most = Policy::backward_vector;
  const int v = most >= 4 && k % 4 == 0 ? 4 : most >= 2 && k % 2 == 0 ? 2 : 1;
  // One warp per segment: on the 100k x 64 graph the one-wave grid was 1-3% slower at every k
  // (H100, bench_maxk --grids), where the forward was no slower.
  return Shape{v, 1, Policy::unroll, false};
}

void forward(DenseMatrix& c, const Matrix& a, const Cbsr& x, const Epilogue* ep,
             const Descriptor& d, Context& ctx) {
  forward(c, a, x, ep, d, ctx, forward_shape(x.k()));
}

void backward(Cbsr& c, const Matrix& a, const DenseMatrix& b, const Descriptor& d, Context& ctx) {
  backward(c, a, b, d, ctx, backward_shape(c.k()));
}

void forward(DenseMatrix& c, const Matrix& a, const Cbsr& x, const Epilogue* ep,
             const Descriptor& d, Context& ctx, const Shape& shape, const OutputDropout* drop) {
  check_shape("maxk::forward", shape, x.k(), true);
  cudaStream_t st = stream_of(ctx);
  Matrix ahold;
  const Matrix& ad = prepare_operand(a, d.transpose_a, IndexType::i32, Type::fp32, ahold, ctx);
  Cbsr xh;
  const Cbsr& xd = on_device(x, xh, ctx);
  const Index n = ad.nrows(), h = x.ncols();
  const bool direct = c.location() == Location::device;
  Buffer tmp;
  float* out = nullptr;
  if (direct) {
    out = c.values().as<float>();
  } else {
    tmp = Buffer(std::size_t(n * h) * sizeof(float), Location::device, &ctx);
    out = tmp.as<float>();
  }
  DenseVector bias_hold;
  const DenseVector* bias = ep && ep->has_bias() ? &on_device(*ep->bias, bias_hold, ctx) : nullptr;
  const sparse_layer::ColumnEpilogue epi{bias ? bias->values().as<float>() : nullptr,
                                         ep && ep->has_relu(), ep && ep->clamp.has_value(),
                                         float(ep ? ep->clamp.value_or(0) : 0)};
  const dense_nn::DropoutMask mask =
      drop ? dense_nn::mask_of(drop->p, drop->seed, drop->stream) : dense_nn::mask_of(0, 0, 0);
  const bool epilogue = ep && !ep->is_identity();  // (a dropped 0 is 0: the memset below holds)
  ctx.trace_line("mxm (cbsr): forward_kernel, " + std::to_string(n) + " rows, " +
                 std::to_string(ad.nnz()) + " nnz, " + std::to_string(h) + " columns, k " +
                 std::to_string(x.k()) + (mask.drop ? ", output dropout" : ""));
  if (n > 0 && h > 0) {
    if (!epilogue && (x.k() == 0 || ad.nnz() == 0)) {
      RINGBLAS_CUDA_TRY(cudaMemsetAsync(out, 0, std::size_t(n * h) * sizeof(float), st));
    } else {
      // A split row's partial sums add up only under a linear epilogue (bias or none).
      const bool linear = !(ep && (ep->has_relu() || ep->clamp));
      const Segments seg = make_segments(ad, linear, shape.segment, out, h, ctx);
      const int k = x.k(), v = shape.vector;
      const int slots = k > 0 ? forward_slots(k, v, shape.slots) : 1;
      const bool wide = k / v > 32;
      auto kernel = forward_kernel_for(v, wide, shape.unroll);
      const std::size_t smem = row_smem(h, slots);
      if (smem > 48 * 1024)
        RINGBLAS_CUDA_TRY(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
      const unsigned grid = shape.one_wave ? resident_grid(kernel, smem, seg.grid, ctx) : seg.grid;
      kernel<<<grid, Policy::block, smem, st>>>(
          ad.row_ptr().as<int>(), ad.col_idx().as<int>(), ad.values().as<float>(), int(n),
          seg.data(), seg.edges, xd.values().as<float>(), xd.indices().as<std::uint8_t>(), k, slots,
          int(h), out, epi, mask);
      RINGBLAS_CHECK_LAUNCH("maxk::forward_kernel", st, ctx.debug_sync);
      if (mask.drop && seg.data()) {
        drop_split_rows_kernel<<<grid_for(std::size_t(n), Policy::block), Policy::block, 0, st>>>(
            ad.row_ptr().as<int>(), int(n), seg.edges, out, int(h), mask);
        RINGBLAS_CHECK_LAUNCH("maxk::drop_split_rows_kernel", st, ctx.debug_sync);
      }
    }
  }
  if (!direct)
    c = DenseMatrix::from_buffer(n, h, Type::fp32, Layout::row_major, tmp.to(Location::host, ctx));
}

void backward(Cbsr& c, const Matrix& a, const DenseMatrix& b, const Descriptor& d, Context& ctx,
              const Shape& shape) {
  check_shape("maxk::backward", shape, c.k(), false);
  cudaStream_t st = stream_of(ctx);
  // The kernel walks the rows of M and scatters to C's rows: it computes Mᵀ ⊕.⊗ B, so M = A
  // for op(A) = Aᵀ and M = Aᵀ otherwise.
  Matrix mhold;
  const Matrix& m = prepare_operand(a, !d.transpose_a, IndexType::i32, Type::fp32, mhold, ctx);
  DenseMatrix bh;
  const DenseMatrix& bd = on_device(b, bh, ctx);
  const bool direct = c.location() == Location::device;
  Cbsr staged = direct ? Cbsr() : device_pattern(c, ctx);
  Cbsr& dst = direct ? c : staged;
  const Index n = m.nrows(), h = b.ncols();
  ctx.trace_line("mxm (sampled cbsr): backward_kernel, " + std::to_string(n) + " rows, " +
                 std::to_string(m.nnz()) + " nnz, " + std::to_string(h) + " columns, k " +
                 std::to_string(c.k()));
  if (dst.nnz() > 0)
    RINGBLAS_CUDA_TRY(
        cudaMemsetAsync(dst.values().data(), 0, std::size_t(dst.nnz()) * sizeof(float), st));
  if (n > 0 && h > 0 && c.k() > 0 && m.nnz() > 0) {
    const Segments seg = make_segments(m, true, shape.segment, nullptr, h, ctx);
    const bool wide = c.k() / shape.vector > 32;
    auto kernel = shape.vector == 4 ? (wide ? backward_kernel<4, true> : backward_kernel<4, false>)
                  : shape.vector == 2
                      ? (wide ? backward_kernel<2, true> : backward_kernel<2, false>)
                      : (wide ? backward_kernel<1, true> : backward_kernel<1, false>);
    const std::size_t smem = row_smem(h, 1);
    const unsigned grid = shape.one_wave ? resident_grid(kernel, smem, seg.grid, ctx) : seg.grid;
    kernel<<<grid, Policy::block, smem, st>>>(
        m.row_ptr().as<int>(), m.col_idx().as<int>(), m.values().as<float>(), int(n), seg.data(),
        seg.edges, bd.values().as<float>(), int(h), dst.indices().as<std::uint8_t>(), c.k(),
        dst.values().as<float>());
    RINGBLAS_CHECK_LAUNCH("maxk::backward_kernel", st, ctx.debug_sync);
  }
  if (!direct) c.values() = staged.values().to(Location::host, ctx);
}

}  // namespace ringblas::cuda::maxk
