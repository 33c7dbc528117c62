// The sparse DNN layer chain on the GPU: weights prepared on the device and resident (or, under a
// memory budget, prepared on the host and streamed double-buffered on a copy stream when over it),
// one fused sparse_layer kernel per layer, which also compacts the active features on the device
// (agent.cuh), and once few features remain the tail kernel for every remaining layer (tail.cuh).
// The host only queues kernels: no memset or scan between layers; besides the counts at the end,
// it reads the active count a few times (after layers 4, 6, 8, 12, ...) while the tail may start.
// Sparse features (run_network) cross the bus as CSR arrays and are laid out densely here; only
// the survivors' ids come back.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <numeric>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/sparse_layer/launch.cuh"
#include "backend/cuda/sparse_layer/packed_upload.hpp"
#include "backend/cuda/sparse_layer/phase_trace.cuh"
#include "backend/cuda/sparse_layer/sparse_layer.hpp"
#include "backend/cuda/sparse_layer/upload.hpp"
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

/// out(order[i], c) = in(i, cols[c]) for c < count, columns of `rows` floats (order null: i).
__global__ void gather_columns(float* out, const float* in, long long in_rs, long long in_cs,
                               const int* cols, const int* order, int count, int rows) {
  const long long total = (long long)count * rows;
  for (long long x = blockIdx.x * (long long)blockDim.x + threadIdx.x; x < total;
       x += (long long)gridDim.x * blockDim.x) {
    const long long c = x / rows, i = x % rows;
    out[c * rows + (order ? order[i] : i)] = in[cols[c] * in_cs + i * in_rs];
  }
}

float elapsed(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  RINGBLAS_CUDA_TRY(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

/// out(:, f) = row f of the CSR features (images x n), out zeroed before: the dense column-major
/// layout the first layer reads, built from the sparse arrays on the device. One warp per image.
__global__ void scatter_features(const void* rp, const void* ci, int wide, const float* v, int images,
                                 int n, float* out) {
  const long long f = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (f >= images) return;
  const long long p0 = load_index(rp, wide, f), p1 = load_index(rp, wide, f + 1);
  for (long long p = p0 + lane; p < p1; p += 32) out[f * n + load_index(ci, wide, p)] = v[p];
}

/// The state of one run of the layers: activations (double buffered), the active lists and their
/// feature ids, the per-layer counts. After run_layers the survivors are columns
/// list[last % 2][0 .. survivors) of y[last % 2], with ids id[last % 2].
struct Chain {
  int n, nf, nl;
  device_array<float> y[2];
  device_array<long long> id[3];
  device_array<int> flags[2], list[2], counts;
  int last = -1, survivors = 0;
  Chain(int n_, int nf_, int nl_, const Context& ctx)
      : n(n_), nf(nf_), nl(nl_),
        y{device_array<float>(nl_ > 0 ? std::size_t(n_) * std::size_t(nf_) : 0, ctx),
          device_array<float>(nl_ > 1 ? std::size_t(n_) * std::size_t(nf_) : 0, ctx)},
        id{device_array<long long>(std::size_t(std::max(nf_, 1)), ctx), device_array<long long>(std::size_t(std::max(nf_, 1)), ctx),
           device_array<long long>(std::size_t(std::max(nf_, 1)), ctx)},
        flags{device_array<int>(std::size_t(std::max(nf_, 1)), ctx), device_array<int>(std::size_t(std::max(nf_, 1)), ctx)},
        list{device_array<int>(std::size_t(std::max(nf_, 1)), ctx), device_array<int>(std::size_t(std::max(nf_, 1)), ctx)},
        counts(std::size_t(std::max(nl_, 1)), ctx) {
    std::vector<long long> iota(std::size_t(std::max(nf, 1)));
    std::iota(iota.begin(), iota.end(), 0LL);
    id[2].from_host(iota, ctx);
    flags[0].fill_zero(ctx);
    flags[1].fill_zero(ctx);
    counts.fill_zero(ctx);
  }
};

/// Layer k's weights on the device when its kernel is queued: `base(k)` is called for k = 0..L-1
/// in order just before (it may make the stream wait for a copy), `after(k)` just after.
/// `resident`: base has no side effects and every layer is on the device from the start (the
/// tail kernel needs that).
struct WeightSource {
  const std::vector<BlobLayout>& layout;
  std::function<const std::uint32_t*(int)> base;
  std::function<void(int)> after;
  bool resident = false;
};

/// Queues every layer on s (one fused kernel each; the kernel reads the previous count from
/// device memory; with opt.fused_tail, the layers left once few features remain in one tail
/// launch), then reads the counts back (the one synchronization, besides the tail's checks) and
/// reports them. ev: nl + 1 timing events (null when not timed).
void run_layers(Chain& c, const WeightSource& w, const float* in, long long in_rs, long long in_cs,
                const std::vector<float>& bias, float ymax, const LayerChainOptions& opt,
                LayerChainStats& st, const Events* ev, Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const int nl = c.nl, n = c.n;
  // The active count is read (one synchronization each) after layers 4, 6, 8, 12, 16, 24, 32, ...
  const int first_check = 3;
  // The tail kernel: when it can run, its per-layer views are uploaded once. Staged, its buffers
  // hold the largest stage of the layers it may run (after the first check), rounded to the 32
  // banks.
  // (an explicit staged on a wider network was refused by can_implement_chain)
  int stage_rows = opt.tail != SparseTail::rows && tail_stages(n) ? 32 : 0;
  if (stage_rows > 0)
    for (int k = first_check + 1; k < nl; ++k)
      stage_rows = std::max(stage_rows, (w.layout[std::size_t(k)].max_stage + 31) / 32 * 32);
  const int capacity =
      opt.fused_tail && w.resident && nl > 2 && c.nf > 0 ? tail_capacity(n, stage_rows) : 0;
  device_array<TailLayer> tail_layers(capacity > 0 ? std::size_t(nl) : 0, ctx);
  if (capacity > 0) {
    std::vector<TailLayer> h(static_cast<std::size_t>(nl));
    for (int k = 0; k < nl; ++k) h[std::size_t(k)] = TailLayer{view_of(w.layout[std::size_t(k)], w.base(k)), bias[std::size_t(k)]};
    RINGBLAS_CUDA_TRY(cudaMemcpyAsync(tail_layers.data(), h.data(), h.size() * sizeof(TailLayer), cudaMemcpyHostToDevice, s));
    RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));  // h is a host temporary
  }
  std::vector<int> timed_at{0};  // event slots recorded: 0, then one per launch
  if (ev && nl > 0) RINGBLAS_CUDA_TRY(cudaEventRecord((*ev)[0], s));
  int check = first_check;
  bool tail_next = false;   // the tail starts after this layer (parity, see below)
  int known = c.nf;         // an upper bound of the active features (the last count read)
  for (int k = 0; k < nl && c.nf > 0; ++k) {
    const std::uint32_t* base = w.base(k);
    FeatureArgs f{};
    f.in = k == 0 ? in : c.y[(k - 1) % 2].data();
    f.in_rs = k == 0 ? in_rs : 1;
    f.in_cs = k == 0 ? in_cs : n;
    f.out = c.y[k % 2].data();
    f.out_rs = 1;
    f.out_cs = n;
    f.gather = k == 0 ? nullptr : c.list[(k - 1) % 2].data();
    f.count_in = k == 0 ? nullptr : c.counts.data() + (k - 1);
    f.bound = c.nf;
    f.flags = c.flags[k % 2].data();
    f.prev_flags = k == 0 ? nullptr : c.flags[(k - 1) % 2].data();
    f.count_out = c.counts.data() + k;
    f.list_out = c.list[k % 2].data();
    f.ids_in = k == 0 ? c.id[2].data() : c.id[(k - 1) % 2].data();
    f.ids_out = c.id[k % 2].data();
    launch_layer(view_of(w.layout[std::size_t(k)], base), f, BiasReluClamp{bias[std::size_t(k)], ymax}, s,
                 ctx.debug_sync);
    if (ev) RINGBLAS_CUDA_TRY(cudaEventRecord((*ev)[std::size_t(k + 1)], s));
    timed_at.push_back(k + 1);
    if (w.after) w.after(k);
    if (capacity > 0 && !tail_next && k == check && k + 2 < nl) {
      const int ran = check + 1;  // 4, 6, 8, 12, ...: a power of two grows by half, else by a third
      check = ran + ((ran & (ran - 1)) == 0 ? ran / 2 : ran / 3) - 1;
      int active = 0;
      RINGBLAS_CUDA_TRY(cudaMemcpyAsync(&active, c.counts.data() + k, sizeof(int), cudaMemcpyDeviceToHost, s));
      RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));
      tail_next = active <= capacity;
      known = active;
    }
    // The tail starts after layer k once due, if the buffers differ: it reads y[k % 2] and writes
    // the last layer's y[(nl - 1) % 2] (else one more per-layer launch first).
    if (tail_next && k + 1 < nl && (nl - 1 - k) % 2 == 1) {
      TailArgs A{};
      A.layers = tail_layers.data() + (k + 1);
      A.count = nl - 1 - k;
      A.neurons = n;
      A.ymax = ymax;
      A.in = c.y[k % 2].data();
      A.gather = c.list[k % 2].data();
      A.count_in = c.counts.data() + k;
      // Features only die, so the count read last bounds the tail's grid (staged only, so that
      // the rows path's launch stays as measured: its surplus blocks return at once).
      A.bound = stage_rows > 0 ? known : c.nf;
      A.stage_rows = stage_rows;
      A.counts = c.counts.data() + (k + 1);
      A.out = c.y[(nl - 1) % 2].data();
      A.list_out = c.list[(nl - 1) % 2].data();
      A.ids_in = c.id[k % 2].data();
      A.ids_out = c.id[(nl - 1) % 2].data();
      ctx.trace_line("mxm_layers: tail kernel from layer " + std::to_string(k + 2) +
                     (stage_rows > 0 ? ", staged (" + std::to_string(stage_rows) + "-row buffers)"
                                     : ", rows"));
      launch_tail(A, s, ctx.debug_sync);
      if (ev) RINGBLAS_CUDA_TRY(cudaEventRecord((*ev)[std::size_t(nl)], s));
      timed_at.push_back(nl);
      st.tail_from = k + 2;  // 1-based
      break;
    }
  }
  c.last = c.nf > 0 ? nl - 1 : -1;
  std::vector<int> counts_h(std::size_t(std::max(nl, 1)), 0);
  if (c.last >= 0) counts_h = c.counts.to_host(ctx);  // synchronizes the compute stream
  RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));
  for (int k = 0; k < nl; ++k) {
    st.active.push_back(counts_h[std::size_t(k)]);
    if (opt.on_layer) opt.on_layer(k + 1, counts_h[std::size_t(k)]);
  }
  c.survivors = c.last >= 0 ? counts_h[std::size_t(c.last)] : (nl == 0 ? c.nf : 0);
  if (ev && c.last >= 0) {
    for (std::size_t i = 1; i < timed_at.size(); ++i) {
      st.layer_ms.push_back(elapsed((*ev)[std::size_t(timed_at[i - 1])], (*ev)[std::size_t(timed_at[i])]));
      st.kernel_ms += st.layer_ms.back();
    }
    st.inference_ms = elapsed((*ev)[0], (*ev)[std::size_t(timed_at.back())]);
  }
  st.compaction_ms = 0;  // fused into the kernel
}

/// The survivors' ids ascending, and the activation column of each (same order).
void sorted_survivors(const Chain& c, std::vector<Index>& ids, std::vector<int>& cols, const Context& ctx) {
  const int m = c.survivors;
  std::vector<int> col(static_cast<std::size_t>(m));
  std::vector<long long> cid(static_cast<std::size_t>(m));
  if (c.last >= 0) {
    col = c.list[c.last % 2].to_host(ctx, std::size_t(m));
    cid = c.id[c.last % 2].to_host(ctx, std::size_t(m));
  } else {
    std::iota(col.begin(), col.end(), 0);
    std::iota(cid.begin(), cid.end(), 0LL);
  }
  std::vector<int> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return cid[std::size_t(a)] < cid[std::size_t(b)]; });
  ids.assign(std::size_t(m), 0);
  cols.assign(std::size_t(m), 0);
  for (std::size_t i = 0; i < order.size(); ++i) {
    cols[i] = col[std::size_t(order[i])];
    ids[i] = cid[std::size_t(order[i])];
  }
}

/// The survivors' final columns, n x m column-major on the device, in the order of `cols`, rows
/// back in neuron order (`last_order`: the last layer's output order, PreparedChain::order).
DenseMatrix gather_survivors(const Chain& c, const std::vector<int>& cols, const float* in, long long in_rs,
                             long long in_cs, const int* last_order, Context& ctx) {
  cudaStream_t s = stream_of(ctx);
  const int n = c.n, m = int(cols.size());
  Buffer out(std::size_t(n) * std::size_t(m) * sizeof(float), Location::device, &ctx);
  if (m > 0) {
    device_array<int> cols_dev(cols.size(), ctx);
    cols_dev.from_host(cols, ctx);
    const float* src = c.last >= 0 ? c.y[c.last % 2].data() : in;
    const long long rs = c.last >= 0 ? 1 : in_rs, cs = c.last >= 0 ? n : in_cs;
    const long long total = (long long)m * n;
    const unsigned grid = unsigned(std::min<long long>((total + 255) / 256, 65535));
    gather_columns<<<grid, 256, 0, s>>>(out.as<float>(), src, rs, cs, cols_dev.data(),
                                        c.last >= 0 ? last_order : nullptr, m, n);
    RINGBLAS_CHECK_LAUNCH("gather_columns", s, ctx.debug_sync);
    RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));
  }
  return DenseMatrix::from_buffer(n, m, Type::fp32, Layout::col_major, std::move(out));
}

}  // namespace

SparseNetwork network_holding(DeviceWeights w, Index neurons, const std::vector<float>& bias,
                              float ymax, int device) {
  auto state = std::make_shared<::ringblas::detail::SparseNetworkState>();
  state->weights = std::move(w);
  SparseNetwork net;
  net.neurons = neurons;
  net.bias = bias;
  net.ymax = ymax;
  net.device = device;
  net.weight_bytes = state->weights.bytes();
  net.state = std::move(state);
  return net;
}

SparseNetwork prepare_network(const std::vector<Matrix>& weights, const std::vector<float>& bias,
                              float ymax, LayerChainStats* stats,
                              const NetworkPrepareOptions& options, Context& ctx) {
  using clock = std::chrono::steady_clock;
  RINGBLAS_CUDA_TRY(cudaSetDevice(ctx.device));
  const auto t0 = clock::now();
  std::size_t bytes_in = 0;
  SparseNetwork net =
      network_holding(prepare_layers_device(weights, ctx, options.upload, &bytes_in,
                                            prepare_options(options)),
                      weights.empty() ? 0 : weights[0].nrows(), bias, ymax, ctx.device);
  if (stats) {
    *stats = LayerChainStats{};
    stats->prepare_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    stats->weight_bytes = net.weight_bytes;
    stats->bytes_in = bytes_in;
  }
  ctx.trace_line("prepare_network: sparse_layer, " + std::to_string(weights.size()) +
                 " layers prepared on device " + std::to_string(ctx.device) + ", " +
                 std::to_string(net.weight_bytes) + " bytes, " + std::to_string(bytes_in) +
                 " bytes sent");
  return net;
}

std::size_t reserve_staging(Context& ctx) {
  RINGBLAS_CUDA_TRY(cudaSetDevice(ctx.device));
  return reserve_packed_staging();
}

Matrix stage_features(const Matrix& features, SparseUpload how, Context& ctx,
                      std::size_t* bytes_in, PackThreads threads) {
  RINGBLAS_CUDA_TRY(cudaSetDevice(ctx.device));
  if (bytes_in) *bytes_in = 0;
  Matrix held;
  const Matrix* f = &features;
  if (f->type() != Type::fp32) {
    held = (f->location() == Location::host ? *f : f->to(Location::host, ctx)).cast(Type::fp32);
    f = &held;
  }
  if (f->location() == Location::device) return *f;  // fp32 already there: a device copy
  // Packed (packed_upload.hpp: the device rebuilds the CSR arrays), or as stored (upload: several
  // host threads).
  if (how == SparseUpload::packed) {
    const std::string why = packed_unavailable({f});
    if (why.empty()) {
      PackedDevice pk = upload_packed({f}, ctx, threads);
      if (bytes_in) *bytes_in = pk.bytes_sent;
      ctx.trace_line("mxm_layers: features packed, " + std::to_string(pk.bytes_sent) +
                     " bytes sent" + (pk.iso ? " (iso)" : ""));
      return packed_matrix(std::move(pk), f->nrows(), f->ncols(), f->nnz());
    }
    ctx.trace_line("mxm_layers: features not packed (" + why + "), copied as stored");
  }
  Buffer rp(f->row_ptr().size(), Location::device, &ctx),
      ci(f->col_idx().size(), Location::device, &ctx),
      v(f->values().size(), Location::device, &ctx);
  upload({{rp.data(), f->row_ptr().data(), rp.size()},
          {ci.data(), f->col_idx().data(), ci.size()},
          {v.data(), f->values().data(), v.size()}},
         ctx.device, stream_of(ctx));
  if (bytes_in) *bytes_in = rp.size() + ci.size() + v.size();
  return Matrix::from_buffers(f->nrows(), f->ncols(), Type::fp32, f->index_type(), f->nnz(),
                              std::move(rp), std::move(ci), std::move(v));
}

std::vector<Index> run_network(const SparseNetwork& net, const Matrix& features, const LayerChainOptions& opt,
                               LayerChainStats* stats, DenseMatrix* survivors, Context& ctx) {
  RINGBLAS_CUDA_TRY(cudaSetDevice(ctx.device));
  cudaStream_t s = stream_of(ctx);
  const DeviceWeights& w = net.state->weights;
  wait_ready(w, s);  // prepared on another stream, maybe still being filled
  const int nl = int(net.layers()), n = int(net.neurons), nf = int(features.nrows());
  LayerChainStats local;
  LayerChainStats& st = stats ? *stats : local;
  st = LayerChainStats{};
  st.weight_bytes = w.bytes();
  const bool timed = stats != nullptr;
  Events tev(timed ? 4 : 0, true), lev(timed ? std::size_t(nl + 1) : 0, true);
  ctx.trace_line("mxm_layers: sparse_layer, prepared network, " + std::to_string(nl) + " layers, " +
                 std::to_string(n) + " neurons, " + std::to_string(nf) + " sparse features");

  // --- features: the CSR arrays cross the bus, the dense layout is built here ---
  PhaseTrace phase(ctx, "mxm_layers");  // with ctx.trace: per-phase wall times (synchronized)
  if (timed) RINGBLAS_CUDA_TRY(cudaEventRecord(tev[0], s));
  // Zeroed first: the device clears the dense layout while the host packs the features.
  device_array<float> dense(std::size_t(n) * std::size_t(nf), ctx);
  dense.fill_zero(ctx);
  phase("dense features zeroed (" + std::to_string(dense.size() * 4) + " bytes)");
  // Device fp32 features are read where they are; others are staged (stage_features).
  Matrix staged;
  const Matrix* f = &features;
  if (f->location() != Location::device || f->type() != Type::fp32) {
    staged =
        sparse_layer::stage_features(features, opt.upload, ctx, &st.bytes_in, opt.pack_threads);
    f = &staged;
  }
  const void *rp = f->row_ptr().data(), *ci = f->col_idx().data();
  const float* vals = f->values().as<float>();
  phase("features in (" + std::to_string(st.bytes_in) + " bytes sent)");
  if (nf > 0) {
    scatter_features<<<grid_for(std::size_t(nf) * 32, 256), 256, 0, s>>>(
        rp, ci, f->index_type() == IndexType::i64 ? 1 : 0, vals, nf, n, dense.data());
    RINGBLAS_CHECK_LAUNCH("scatter_features", s, ctx.debug_sync);
  }
  if (timed) RINGBLAS_CUDA_TRY(cudaEventRecord(tev[1], s));
  phase("features scattered");

  // --- the layers on the resident weights ---
  Chain c(n, nf, nl, ctx);
  const WeightSource src{w.layout, [&](int k) { return w.blob.as<std::uint32_t>() + w.offset[std::size_t(k)]; }, {},
                         true};
  run_layers(c, src, dense.data(), 1, n, net.bias, net.ymax, opt, st, timed ? &lev : nullptr, ctx);
  phase("layers");

  // --- the ids back (a list), the activations only when asked for ---
  if (timed) RINGBLAS_CUDA_TRY(cudaEventRecord(tev[2], s));
  std::vector<Index> ids;
  std::vector<int> cols;
  sorted_survivors(c, ids, cols, ctx);
  phase("ids back (" + std::to_string(ids.size()) + " survivors)");
  if (timed) {
    RINGBLAS_CUDA_TRY(cudaEventRecord(tev[3], s));
    RINGBLAS_CUDA_TRY(cudaEventSynchronize(tev[3]));
    st.transfer_ms = elapsed(tev[0], tev[1]) + elapsed(tev[2], tev[3]);
  }
  if (survivors)
    *survivors = gather_survivors(c, cols, dense.data(), 1, n,
                                  w.order.as<int>() + std::size_t(std::max(nl - 1, 0)) * std::size_t(n), ctx);
  return ids;
}

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
  const bool timed = stats != nullptr;

  // --- weights: prepared on the device and resident, or (over the budget) prepared on the host
  // and streamed: the next layer is copied on a second stream into a double buffer ---
  const auto t0 = clock::now();
  const bool streamed = opt.force_out_of_core || opt.weight_budget_bytes > 0;
  DeviceWeights resident;
  std::vector<PreparedLayer> prepared;
  device_array<int> last_order;  // the host-prepared chain's last output order
  std::vector<BlobLayout> layout;
  std::vector<std::size_t> offset(static_cast<std::size_t>(nl), 0);
  std::size_t total_words = 0, max_words = 0;
  if (!streamed) {
    resident = prepare_layers_device(weights, ctx);
    wait_ready(resident, s);
    layout = resident.layout;
    offset = resident.offset;
    total_words = resident.words;
  } else {
    std::vector<Matrix> on_host;  // copies only of device-resident weights
    bool all_host = true;
    for (const Matrix& w : weights) all_host = all_host && w.location() == Location::host;
    if (!all_host)
      for (const Matrix& w : weights)
        on_host.push_back(w.location() == Location::host ? w : w.to(Location::host, ctx));
    PreparedChain chain = prepare_chain(all_host ? weights : on_host);
    prepared = std::move(chain.layers);
    if (nl > 0) {
      last_order = device_array<int>(chain.order.back().size(), ctx);
      last_order.from_host(chain.order.back(), ctx);
    }
    for (const PreparedLayer& l : prepared) {
      offset[layout.size()] = total_words;
      layout.push_back(l.layout);
      total_words += l.blob.size();
      max_words = std::max(max_words, l.blob.size());
    }
  }
  st.weight_bytes = total_words * 4;
  // A budget the whole network fits in needs no streaming (unless forced).
  const bool stream_now = streamed && (opt.force_out_of_core || st.weight_bytes > opt.weight_budget_bytes);
  device_array<std::uint32_t> copied_whole(streamed && !stream_now ? total_words : 0, ctx);
  Pinned<std::uint32_t> staged(stream_now ? total_words : 0);
  device_array<std::uint32_t> slot[2] = {device_array<std::uint32_t>(stream_now ? max_words : 0, ctx),
                                         device_array<std::uint32_t>(stream_now ? max_words : 0, ctx)};
  for (std::size_t k = 0; k < prepared.size(); ++k) {
    const auto& b = prepared[k].blob;
    if (stream_now)
      std::copy(b.begin(), b.end(), staged.data() + offset[k]);
    else if (!b.empty())
      RINGBLAS_CUDA_TRY(cudaMemcpyAsync(copied_whole.data() + offset[k], b.data(), b.size() * 4,
                                        cudaMemcpyHostToDevice, s));
  }
  RINGBLAS_CUDA_TRY(cudaStreamSynchronize(s));
  st.out_of_core = stream_now;
  st.prepare_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  ctx.trace_line("mxm_layers: sparse_layer, " + std::to_string(nl) + " layers, " + std::to_string(n) +
                 " neurons, " + std::to_string(nf) + " features, weights " + std::to_string(st.weight_bytes) +
                 " bytes " + (stream_now ? "streamed (prepared on the host)" : streamed ? "resident (prepared on the host)" : "resident (prepared on the device)"));

  // --- features ---
  Events tev(timed ? 4 : 0, true), lev(timed ? std::size_t(nl + 1) : 0, true);
  if (timed) RINGBLAS_CUDA_TRY(cudaEventRecord(tev[0], s));
  const DenseMatrix fd = features.location() == Location::device ? features : features.to(Location::device, ctx);
  if (timed) RINGBLAS_CUDA_TRY(cudaEventRecord(tev[1], s));
  const long long in_rs = fd.layout() == Layout::row_major ? nf : 1;
  const long long in_cs = fd.layout() == Layout::row_major ? 1 : n;

  // --- the layers ---
  Chain c(n, nf, nl, ctx);
  Events copied(stream_now ? std::size_t(nl) : 0, false), done(stream_now ? std::size_t(nl) : 0, false);
  Stream copy_stream;
  auto issue_copy = [&](int k) {
    if (k >= nl) return;
    if (k >= 2) RINGBLAS_CUDA_TRY(cudaStreamWaitEvent(copy_stream.s, done[std::size_t(k - 2)], 0));
    const auto& b = prepared[std::size_t(k)].blob;
    RINGBLAS_CUDA_TRY(cudaMemcpyAsync(slot[k % 2].data(), staged.data() + offset[std::size_t(k)], b.size() * 4,
                                      cudaMemcpyHostToDevice, copy_stream.s));
    RINGBLAS_CUDA_TRY(cudaEventRecord(copied[std::size_t(k)], copy_stream.s));
  };
  if (stream_now) {
    issue_copy(0);
    issue_copy(1);
  }
  const WeightSource src{
      layout,
      [&](int k) -> const std::uint32_t* {
        if (stream_now) {
          RINGBLAS_CUDA_TRY(cudaStreamWaitEvent(s, copied[std::size_t(k)], 0));
          return slot[k % 2].data();
        }
        return (streamed ? copied_whole.data() : resident.blob.as<std::uint32_t>()) + offset[std::size_t(k)];
      },
      [&](int k) {
        if (!stream_now) return;
        RINGBLAS_CUDA_TRY(cudaEventRecord(done[std::size_t(k)], s));
        issue_copy(k + 2);
      },
      !stream_now};
  run_layers(c, src, fd.values().as<float>(), in_rs, in_cs, bias, ymax, opt, st, timed ? &lev : nullptr, ctx);
  if (stream_now) RINGBLAS_CUDA_TRY(cudaStreamSynchronize(copy_stream.s));

  // --- results: the surviving columns in ascending id order ---
  if (timed) RINGBLAS_CUDA_TRY(cudaEventRecord(tev[2], s));
  std::vector<int> cols;
  sorted_survivors(c, ids, cols, ctx);
  const int* order_last = !streamed ? (nl > 0 ? resident.order.as<int>() + std::size_t(nl - 1) * std::size_t(n) : nullptr)
                                    : last_order.data();
  DenseMatrix out = gather_survivors(c, cols, fd.values().as<float>(), in_rs, in_cs, order_last, ctx);
  if (timed) {
    RINGBLAS_CUDA_TRY(cudaEventRecord(tev[3], s));
    RINGBLAS_CUDA_TRY(cudaEventSynchronize(tev[3]));
    st.transfer_ms = elapsed(tev[0], tev[1]) + elapsed(tev[2], tev[3]);
  }
  return out;
}

}  // namespace ringblas::cuda::sparse_layer
