// sparse_layer as a variant of the dense-output mxm with an epilogue: run (can_implement is in
// can_implement.cpp, plain C++).
#include <cuda_runtime.h>

#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/sparse_layer/launch.cuh"
#include "backend/cuda/sparse_layer/sparse_layer.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda::sparse_layer {
namespace {

long long row_stride(const DenseMatrix& m) { return m.layout() == Layout::row_major ? m.ncols() : 1; }
long long col_stride(const DenseMatrix& m) { return m.layout() == Layout::row_major ? 1 : m.nrows(); }

}  // namespace

void run_mxm(DenseMatrix& c, const Semiring& s, const Matrix& a, const DenseMatrix& b,
             const Epilogue& ep, const Descriptor& desc, Context& ctx) {
  const char* op = "mxm (dense, epilogue)";
  const std::string why = can_implement(s, a, b, c, desc);
  if (!why.empty()) throw NotImplemented(std::string(op) + ": sparse_layer " + why);
  cudaStream_t st = stream_of(ctx);

  const Matrix ah = a.location() == Location::host ? a : a.to(Location::host, ctx);
  const PreparedLayer p = prepare_layer(desc.transpose_a ? transpose_host(ah) : ah);
  device_array<std::uint32_t> blob(p.blob.size(), ctx);
  blob.from_host(p.blob, ctx);

  const DenseMatrix bd = b.location() == Location::device ? b : b.to(Location::device, ctx);
  DenseVector bias_dev;
  if (ep.has_bias()) {
    DenseVector bh = *ep.bias;
    if (bh.type() != Type::fp32) {
      if (bh.location() != Location::host) bh = bh.to(Location::host, ctx);
      DenseVector f(bh.size(), Type::fp32);
      visit_type(bh.type(), [&](auto z) {
        using V = decltype(z);
        for (Index i = 0; i < bh.size(); ++i) f.values().as<float>()[i] = float(bh.values().as<V>()[i]);
      });
      bh = std::move(f);
    }
    bias_dev = bh.location() == Location::device ? bh : bh.to(Location::device, ctx);
  }
  const bool direct = c.location() == Location::device;
  Buffer out_tmp;
  float* out = nullptr;
  if (direct) {
    out = c.values().as<float>();
  } else {
    out_tmp = Buffer(std::max<std::size_t>(std::size_t(c.nrows() * c.ncols()), 1) * sizeof(float),
                     Location::device, &ctx);
    out = out_tmp.as<float>();
  }

  FeatureArgs f{};
  f.in = bd.values().as<float>();
  f.in_rs = row_stride(bd);
  f.in_cs = col_stride(bd);
  f.out = out;
  f.out_rs = row_stride(c);
  f.out_cs = col_stride(c);
  f.bound = int(b.ncols());
  ColumnEpilogue epi{ep.has_bias() ? bias_dev.values().as<float>() : nullptr, ep.has_relu(),
                     ep.clamp.has_value(), float(ep.clamp.value_or(0))};
  ctx.trace_line(std::string(op) + ": sparse_layer, " + std::to_string(p.layout.outputs) + " rows, " +
                 std::to_string(a.nnz()) + " nnz, n_B " + std::to_string(b.ncols()) + ", " +
                 std::to_string(p.layout.stages) + " stages in " + std::to_string(p.layout.blocks) + " blocks");
  launch_layer(view_of(p.layout, blob.data()), f, epi, st, ctx.debug_sync);
  if (!direct) {
    DenseMatrix host_c = DenseMatrix::from_buffer(c.nrows(), c.ncols(), Type::fp32, c.layout(),
                                                  out_tmp.to(Location::host, ctx));
    c = std::move(host_c);
  }
  RINGBLAS_CUDA_TRY(cudaStreamSynchronize(st));  // blob and staging buffers are freed on return
}

}  // namespace ringblas::cuda::sparse_layer
