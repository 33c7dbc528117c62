// The sparse DNN layer chain on the GPU: prepared weights (resident, or streamed double-buffered
// on a copy stream when over the memory budget) and one fused sparse_layer kernel per layer, which
// also compacts the active features on the device (agent.cuh). The host only queues kernels: no
// memset, scan or synchronization between layers; the counts come back once at the end.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/sparse_layer/launch.cuh"
#include "backend/cuda/sparse_layer/sparse_layer.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda::sparse_layer {
namespace {

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { RINGBLAS_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

/// A pool of CUDA events, destroyed together.
class Events {
 public:
  Events(std::size_t n, bool timing) : ev_(n) {
    for (auto& e : ev_) RINGBLAS_CUDA_TRY(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  ~Events() {
    for (auto e : ev_)
      if (e) cudaEventDestroy(e);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  cudaEvent_t operator[](std::size_t i) const { return ev_[i]; }

 private:
  std::vector<cudaEvent_t> ev_;
};

template <class T> class Pinned {
 public:
  explicit Pinned(std::size_t n) : n_(n) {
    if (n) RINGBLAS_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&p_), n * sizeof(T)));
  }
  ~Pinned() {
    if (p_) cudaFreeHost(p_);
  }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  T* data() { return p_; }
  T& operator[](std::size_t i) { return p_[i]; }

 private:
  T* p_ = nullptr;
  std::size_t n_;
};

/// out(:, c) = in(:, cols[c]) for c < count, columns of `rows` floats.
__global__ void gather_columns(float* out, const float* in, long long in_rs, long long in_cs,
                               const int* cols, int count, int rows) {
  const long long total = (long long)count * rows;
  for (long long x = blockIdx.x * (long long)blockDim.x + threadIdx.x; x < total;
       x += (long long)gridDim.x * blockDim.x) {
    const long long c = x / rows, i = x % rows;
    out[x] = in[cols[c] * in_cs + i * in_rs];
  }
}

float elapsed(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  RINGBLAS_CUDA_TRY(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

}  // namespace

DenseMatrix run_chain(const std::vector<Matrix>& weights, const std::vector<float>& bias, float ymax,
                      const DenseMatrix& features, std::vector<Index>& ids,
                      const LayerChainOptions& opt, LayerChainStats* stats, Context& ctx) {
  using clock = std::chrono::steady_clock;
  // ctx.device picks the GPU (one MPI rank per GPU sets it): every allocation and launch below
  // goes to the current device.
  RINGBLAS_CUDA_TRY(cudaSetDevice(ctx.device));
  cudaStream_t s = stream_of(ctx);
  const int nl = int(weights.size());
  const int n = int(features.nrows());
  const int nf = int(features.ncols());
  LayerChainStats local;
  LayerChainStats& st = stats ? *stats : local;
  st = LayerChainStats{};
  const bool split = stats != nullptr;

  // --- weights: prepare on the host, then resident or streamed ---
  const auto t0 = clock::now();
  std::vector<Matrix> on_host;  // copies only of device-resident weights
  bool all_host = true;
  for (const Matrix& w : weights) all_host = all_host && w.location() == Location::host;
  if (!all_host)
    for (const Matrix& w : weights)
      on_host.push_back(w.location() == Location::host ? w : w.to(Location::host, ctx));
  const std::vector<PreparedLayer> prepared = prepare_layers(all_host ? weights : on_host);
  std::size_t total_words = 0, max_words = 0;
  for (const PreparedLayer& l : prepared) {
    total_words += l.blob.size();
    max_words = std::max(max_words, l.blob.size());
  }
  st.weight_bytes = total_words * 4;
  const bool streamed = opt.force_out_of_core ||
                        (opt.weight_budget_bytes && st.weight_bytes > opt.weight_budget_bytes);
  st.out_of_core = streamed;
  device_array<std::uint32_t> resident(streamed ? 0 : total_words, ctx);
  std::vector<std::size_t> offset(static_cast<std::size_t>(nl), 0);
  Pinned<std::uint32_t> staged(streamed ? total_words : 0);
  device_array<std::uint32_t> slot[2] = {device_array<std::uint32_t>(streamed ? max_words : 0, ctx),
                                         device_array<std::uint32_t>(streamed ? max_words : 0, ctx)};
  for (int k = 0, at = 0; k < nl; at += int(prepared[std::size_t(k)].blob.size()), ++k) {
    offset[std::size_t(k)] = std::size_t(at);
    const auto& b = prepared[std::size_t(k)].blob;
    if (streamed) {
      std::copy(b.begin(), b.end(), staged.data() + at);
    } else if (!b.empty()) {
      RINGBLAS_CUDA_TRY(cudaMemcpyAsync(resident.data() + at, b.data(), b.size() * 4,
                                        cudaMemcpyHostToDevice, s));
    }
  }
  RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));
  st.prepare_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  ctx.trace_line("mxm_layers: sparse_layer, " + std::to_string(nl) + " layers, " + std::to_string(n) +
                 " neurons, " + std::to_string(nf) + " features, weights " +
                 std::to_string(st.weight_bytes) + " bytes " + (streamed ? "streamed" : "resident"));

  // --- features and the compaction state ---
  Events tev(split ? std::size_t(2 * nl + 5) : 0, true);
  if (split) RINGBLAS_CUDA_TRY(cudaEventRecord(tev[0], s));
  const DenseMatrix fd = features.location() == Location::device ? features : features.to(Location::device, ctx);
  if (split) RINGBLAS_CUDA_TRY(cudaEventRecord(tev[1], s));
  const long long in_rs0 = fd.layout() == Layout::row_major ? nf : 1;
  const long long in_cs0 = fd.layout() == Layout::row_major ? 1 : n;
  const std::size_t cells = std::size_t(n) * std::size_t(nf);
  device_array<float> y[2] = {device_array<float>(nl > 0 ? cells : 0, ctx), device_array<float>(nl > 1 ? cells : 0, ctx)};
  const std::size_t fcap = std::size_t(std::max(nf, 1));
  device_array<long long> id[3] = {device_array<long long>(fcap, ctx), device_array<long long>(fcap, ctx),
                                   device_array<long long>(fcap, ctx)};
  device_array<int> flags[2] = {device_array<int>(fcap, ctx), device_array<int>(fcap, ctx)};
  device_array<int> list[2] = {device_array<int>(fcap, ctx), device_array<int>(fcap, ctx)};
  device_array<int> counts(std::size_t(std::max(nl, 1)), ctx);
  {
    std::vector<long long> iota(fcap);
    std::iota(iota.begin(), iota.end(), 0LL);
    id[2].from_host(iota, ctx);
  }
  flags[0].fill_zero(ctx);
  flags[1].fill_zero(ctx);
  counts.fill_zero(ctx);
  Events copied(streamed ? std::size_t(nl) : 0, false), done(streamed ? std::size_t(nl) : 0, false);
  Stream copy_stream;
  auto issue_copy = [&](int k) {
    if (k >= nl) return;
    if (k >= 2) RINGBLAS_CUDA_TRY(cudaStreamWaitEvent(copy_stream.s, done[std::size_t(k - 2)], 0));
    const auto& b = prepared[std::size_t(k)].blob;
    RINGBLAS_CUDA_TRY(cudaMemcpyAsync(slot[k % 2].data(), staged.data() + offset[std::size_t(k)],
                                      b.size() * 4, cudaMemcpyHostToDevice, copy_stream.s));
    RINGBLAS_CUDA_TRY(cudaEventRecord(copied[std::size_t(k)], copy_stream.s));
  };
  if (streamed) {
    issue_copy(0);
    issue_copy(1);
  }

  // --- the layers: one launch each; the kernel reads the previous count from device memory ---
  if (split && nl > 0) RINGBLAS_CUDA_TRY(cudaEventRecord(tev[2], s));
  for (int k = 0; k < nl && nf > 0; ++k) {
    const std::uint32_t* base = resident.data() + offset[std::size_t(k)];
    if (streamed) {
      RINGBLAS_CUDA_TRY(cudaStreamWaitEvent(s, copied[std::size_t(k)], 0));
      base = slot[k % 2].data();
    }
    FeatureArgs f{};
    f.in = k == 0 ? fd.values().as<float>() : y[(k - 1) % 2].data();
    f.in_rs = k == 0 ? in_rs0 : 1;
    f.in_cs = k == 0 ? in_cs0 : n;
    f.out = y[k % 2].data();
    f.out_rs = 1;
    f.out_cs = n;
    f.gather = k == 0 ? nullptr : list[(k - 1) % 2].data();
    f.count_in = k == 0 ? nullptr : counts.data() + (k - 1);
    f.bound = nf;
    f.flags = flags[k % 2].data();
    f.prev_flags = k == 0 ? nullptr : flags[(k - 1) % 2].data();
    f.count_out = counts.data() + k;
    f.list_out = list[k % 2].data();
    f.ids_in = k == 0 ? id[2].data() : id[(k - 1) % 2].data();
    f.ids_out = id[k % 2].data();
    launch_layer(view_of(prepared[std::size_t(k)].layout, base), f,
                 BiasReluClamp{bias[std::size_t(k)], ymax}, s, ctx.debug_sync);
    if (split) RINGBLAS_CUDA_TRY(cudaEventRecord(tev[3 + k], s));
    if (streamed) {
      RINGBLAS_CUDA_TRY(cudaEventRecord(done[std::size_t(k)], s));
      issue_copy(k + 2);
    }
  }
  const int last = nf > 0 ? nl - 1 : -1;
  std::vector<int> counts_h(std::size_t(std::max(nl, 1)), 0);
  if (last >= 0) counts_h = counts.to_host(ctx);  // synchronizes the compute stream
  RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));
  if (streamed) RINGBLAS_CUDA_TRY(cudaStreamSynchronize(copy_stream.s));
  for (int k = 0; k < nl; ++k) {
    st.active.push_back(counts_h[std::size_t(k)]);
    if (opt.on_layer) opt.on_layer(k + 1, counts_h[std::size_t(k)]);
  }

  // --- results: the surviving columns in ascending id order ---
  if (split) RINGBLAS_CUDA_TRY(cudaEventRecord(tev[2 * nl + 3], s));
  const int survivors = last >= 0 ? counts_h[std::size_t(last)] : (nl == 0 ? nf : 0);
  Buffer out(std::size_t(n) * std::size_t(survivors) * sizeof(float), Location::device, &ctx);
  ids.assign(std::size_t(survivors), 0);
  if (survivors > 0) {
    std::vector<int> cols(static_cast<std::size_t>(survivors));
    std::vector<long long> col_ids(static_cast<std::size_t>(survivors));
    if (last >= 0) {
      cols = list[last % 2].to_host(ctx, std::size_t(survivors));
      col_ids = id[last % 2].to_host(ctx, std::size_t(survivors));
    } else {
      std::iota(cols.begin(), cols.end(), 0);
      std::iota(col_ids.begin(), col_ids.end(), 0LL);
    }
    std::vector<int> order(static_cast<std::size_t>(survivors));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return col_ids[std::size_t(a)] < col_ids[std::size_t(b)]; });
    std::vector<int> sorted_cols(order.size());
    for (std::size_t c = 0; c < order.size(); ++c) {
      sorted_cols[c] = cols[std::size_t(order[c])];
      ids[c] = col_ids[std::size_t(order[c])];
    }
    device_array<int> cols_dev(sorted_cols.size(), ctx);
    cols_dev.from_host(sorted_cols, ctx);
    const float* src = last >= 0 ? y[last % 2].data() : fd.values().as<float>();
    const long long rs = last >= 0 ? 1 : in_rs0, cs = last >= 0 ? n : in_cs0;
    const long long total = (long long)survivors * n;
    const unsigned grid = unsigned(std::min<long long>((total + 255) / 256, 65535));
    gather_columns<<<grid, 256, 0, s>>>(out.as<float>(), src, rs, cs, cols_dev.data(), survivors, n);
    RINGBLAS_CHECK_LAUNCH("gather_columns", s, ctx.debug_sync);
    RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));
  }
  if (split) {
    RINGBLAS_CUDA_TRY(cudaEventRecord(tev[2 * nl + 4], s));
    RINGBLAS_CUDA_TRY(cudaEventSynchronize(tev[2 * nl + 4]));
    st.transfer_ms = elapsed(tev[0], tev[1]) + elapsed(tev[2 * nl + 3], tev[2 * nl + 4]);
    for (int k = 0; k <= last; ++k) {
      st.layer_ms.push_back(elapsed(tev[2 + k], tev[3 + k]));
      st.kernel_ms += st.layer_ms.back();
    }
    st.compaction_ms = 0;  // fused into the kernel
    if (last >= 0) st.inference_ms = elapsed(tev[2], tev[3 + last]);
  }
  return DenseMatrix::from_buffer(n, survivors, Type::fp32, Layout::col_major, std::move(out));
}

}  // namespace ringblas::cuda::sparse_layer
