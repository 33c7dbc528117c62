// Sparse DNN inference benchmark (Graph Challenge): ringblas mxm_layers (fused sparse_layer kernel,
// device-side compaction) against a cuSPARSE baseline (cusparseSpMM + a separate bias/ReLU/clamp
// kernel per layer, no pruning), in the same run. TeraEdges/s = images x Σ nnz(W_k) / time.
// Two ringblas times per network: the layers (CUDA events, first layer to last) and the whole
// inference after reading the files (host wall clock: prepare_network on the device, the sparse
// images in, the layers, the category ids out), as `ringblas spdnn` reports them.
// --upload csr,packed runs every network once per way the weights and images cross the bus
// (SparseUpload; default csr), one row each, so one call compares them. "overlap" is packed with
// the images staged on the device (stage_features) by a second host thread while prepare_network
// runs, as sparse_dnn::infer_categories(..., overlap) and `ringblas spdnn --overlap` do.
// --tail auto,rows,staged runs every (network, upload) once per tail kernel read path
// (LayerChainOptions::tail; default auto: staged up to 1024 neurons, else rows; an explicit
// staged on a wider network is refused, NotImplemented), one row each.
// --fill bank,broadcast runs each of those once per ELL fill (sparse_layer::EllFill, prepare.hpp;
// default bank): broadcast networks are prepared on the host once per row (prepare_chain, then
// device_weights), outside the timed runs, so their whole time is mxm_layers alone and their
// prepare ms is the host preparation; compare their layers columns.
// Usage: bench_spdnn [--json out.json] [--md out.md] [--data DIR] [--quick] [--repeats R]
//        [--no-baseline] [--only 1024x120,4096x120] [--upload csr,packed,overlap]
//        [--tail auto,rows,staged] [--fill bank,broadcast] [--trace]
// Preparation paths (recorded in the markdown header; NetworkPrepareOptions and
// LayerChainOptions::pack_threads): --row-sort insertion, --transpose stack, --pack-threads spawn,
// --prepare-return synced, --block-staging global select the non-default (before session 9)
// paths (prepare.hpp, packed_upload.hpp); warp, per_layer, crew, early, shared are the defaults.
// --trace: the last timed run of each row prints ringblas' trace to stderr (per-phase wall times
// of prepare_network and mxm_layers; synchronized, so that run is slower, and it is not timed).
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <future>
#include <initializer_list>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "algorithms/graph_challenge_io.hpp"
#include "algorithms/sparse_dnn.hpp"
#include "backend/cuda/sparse_layer/packed_upload.hpp"
#include "backend/cuda/sparse_layer/prepare.hpp"
#include "ringblas/ringblas.hpp"
#include "ringblas/sparse_layer.hpp"
#include "tests/bench/bench_args.hpp"
#include "tests/bench/profile_range.hpp"

namespace {

using namespace ringblas;
namespace gc = ringblas::graph_challenge;

#define CK(call)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)
#define CKS(call)                                                                             \
  do {                                                                                        \
    cusparseStatus_t s_ = (call);                                                             \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                      \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cusparseGetErrorString(s_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

struct Result {
  std::string name, upload = "csr", tail = "rows", fill = "bank";
  double weight_mb_in = 0, feature_mb_in = 0;  ///< bytes sent to the device (MB)
  Index neurons = 0, layers = 0, images = 0, edges = 0;
  double whole_ms = 0, whole_teps = 0;
  /// Host wall clock of mxm_layers alone, on the network prepared just before.
  double prepared_ms = 0;
  double per_layer_ms = 0, per_layer_teps = 0;  ///< layers with fused_tail off (network prepared once)
  Index tail_from = 0;  ///< first layer run by the tail kernel in the default run (0: none)
  double ringblas_ms = 0, kernel_ms = 0, compaction_ms = 0, transfer_ms = 0, prepare_ms = 0;
  double ringblas_teps = 0, bandwidth_gbs = 0;
  double cusparse_ms = -1, cusparse_teps = 0;
  Index categories = 0;
  std::string check;
};

__global__ void bias_relu_clamp(float* y, const float* z, long long n, float bias, float ymax) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    float x = z[i] + bias;
    x = x > 0.f ? x : 0.f;
    y[i] = x < ymax ? x : ymax;
  }
}

__global__ void nonzero_columns(const float* y, int rows, int cols, int* flag) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (long long)rows * cols;
       i += (long long)gridDim.x * blockDim.x)
    if (y[i] != 0.f) flag[i / rows] = 1;
}

/// cuSPARSE baseline: per layer Z = Wᵀ Y (cusparseSpMM, CSR x dense column-major), then
/// Y = min(max(Z + b, 0), ymax) by a separate kernel. Returns ms and the surviving features.
double run_cusparse(const sparse_dnn::Network& net, const float* y0_dev, int f, std::vector<int>& alive) {
  const int n = int(net.neurons);
  cusparseHandle_t h;
  CKS(cusparseCreate(&h));
  std::vector<int*> rp(net.weights.size()), ci(net.weights.size());
  std::vector<float*> va(net.weights.size());
  std::vector<cusparseSpMatDescr_t> mats(net.weights.size());
  for (std::size_t k = 0; k < net.weights.size(); ++k) {
    // Wᵀ in CSR = W in CSC: transpose on the host once (setup, not timed).
    const Matrix& w = net.weights[k];
    const auto r = w.row_ptr_vector(), c = w.col_idx_vector();
    const auto v = w.values_vector<float>();
    std::vector<int> tp(std::size_t(n) + 1, 0), tc(c.size());
    std::vector<float> tv(c.size());
    for (Index x : c) ++tp[std::size_t(x) + 1];
    for (int j = 0; j < n; ++j) tp[std::size_t(j) + 1] += tp[std::size_t(j)];
    std::vector<int> next(tp.begin(), tp.end() - 1);
    for (int i = 0; i < n; ++i)
      for (Index p = r[std::size_t(i)]; p < r[std::size_t(i) + 1]; ++p) {
        const int q = next[std::size_t(c[std::size_t(p)])]++;
        tc[std::size_t(q)] = i;
        tv[std::size_t(q)] = v[std::size_t(p)];
      }
    CK(cudaMalloc(&rp[k], tp.size() * 4));
    CK(cudaMalloc(&ci[k], std::max<std::size_t>(tc.size(), 1) * 4));
    CK(cudaMalloc(&va[k], std::max<std::size_t>(tv.size(), 1) * 4));
    CK(cudaMemcpy(rp[k], tp.data(), tp.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ci[k], tc.data(), tc.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(va[k], tv.data(), tv.size() * 4, cudaMemcpyHostToDevice));
    CKS(cusparseCreateCsr(&mats[k], n, n, Index(tc.size()), rp[k], ci[k], va[k], CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  }
  const std::size_t cells = std::size_t(n) * std::size_t(f);
  float *y, *z;
  CK(cudaMalloc(&y, cells * 4));
  CK(cudaMalloc(&z, cells * 4));
  CK(cudaMemcpy(y, y0_dev, cells * 4, cudaMemcpyDeviceToDevice));
  cusparseDnMatDescr_t dy, dz;
  CKS(cusparseCreateDnMat(&dy, n, f, n, y, CUDA_R_32F, CUSPARSE_ORDER_COL));
  CKS(cusparseCreateDnMat(&dz, n, f, n, z, CUDA_R_32F, CUSPARSE_ORDER_COL));
  const float one = 1.f, zero = 0.f;
  std::size_t ws = 0;
  CKS(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                              mats[0], dy, &zero, dz, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &ws));
  void* wsp = nullptr;
  CK(cudaMalloc(&wsp, std::max<std::size_t>(ws, 1)));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a));
  for (std::size_t k = 0; k < net.weights.size(); ++k) {
    CKS(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mats[k], dy,
                     &zero, dz, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, wsp));
    bias_relu_clamp<<<4096, 256>>>(y, z, (long long)cells, net.bias[k], net.ymax);
    CK(cudaGetLastError());
  }
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  int* flag;
  CK(cudaMalloc(&flag, std::size_t(f) * 4));
  CK(cudaMemset(flag, 0, std::size_t(f) * 4));
  nonzero_columns<<<4096, 256>>>(y, n, f, flag);
  CK(cudaGetLastError());
  std::vector<int> h_flag(static_cast<std::size_t>(f));
  CK(cudaMemcpy(h_flag.data(), flag, std::size_t(f) * 4, cudaMemcpyDeviceToHost));
  alive.clear();
  for (int i = 0; i < f; ++i)
    if (h_flag[std::size_t(i)]) alive.push_back(i);
  for (std::size_t k = 0; k < mats.size(); ++k) {
    cusparseDestroySpMat(mats[k]);
    cudaFree(rp[k]);
    cudaFree(ci[k]);
    cudaFree(va[k]);
  }
  cusparseDestroyDnMat(dy);
  cusparseDestroyDnMat(dz);
  cusparseDestroy(h);
  cudaFree(y);
  cudaFree(z);
  cudaFree(wsp);
  cudaFree(flag);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms;
}

/// images (sparse, images x neurons) as the dense neurons x images column-major device matrix.
DenseMatrix dense_features(const Matrix& images, Context& ctx) {
  const Index n = images.ncols(), f = images.nrows();
  DenseMatrix d(n, f, Type::fp32, Layout::col_major);
  const auto rp = images.row_ptr_vector(), ci = images.col_idx_vector();
  float* v = d.values().as<float>();
  for (Index i = 0; i < f; ++i)
    for (Index p = rp[std::size_t(i)]; p < rp[std::size_t(i + 1)]; ++p) v[i * n + ci[std::size_t(p)]] = 1.0f;
  return d.to(Location::device, ctx);
}

/// The preparation paths this run takes (NetworkPrepareOptions, LayerChainOptions::pack_threads;
/// prepare.hpp and packed_upload.hpp say what each does), for the markdown header.
std::string preparation_paths(const NetworkPrepareOptions& o) {
  struct Choice {
    const char* what;
    bool second;  ///< the path named second runs
    const char *first_path, *second_path, *flag;
  };
  const Choice choices[] = {
      {"transposed rows sorted by", o.row_sort == PrepareRowSort::warp,
       "one thread per row (insertion)", "one warp per row", "--row-sort"},
      {"layers transposed", o.transpose == PrepareTranspose::per_layer,
       "as one block-diagonal stack (cuda::transpose)", "per layer (count, scan, scatter)",
       "--transpose"},
      {"packing threads", o.pack_threads == PackThreads::crew, "spawned per upload",
       "a kept crew", "--pack-threads"},
      {"prepare_network returns", o.return_when == PrepareReturn::early, "after the blob fill",
       "with the blob fill queued", "--prepare-return"},
      {"block passes' data", o.block_staging == PrepareStaging::shared, "in global memory",
       "in shared memory", "--block-staging"},
  };
  std::string out;
  for (const Choice& c : choices)
    out += std::string(out.empty() ? "" : "; ") + c.what + ": " +
           (c.second ? c.second_path : c.first_path) + " (" + c.flag + ")";
  return out;
}

/// Sets `out` to the enum value named `value` (`names` in the enum's order); false when no name
/// matches.
template <class E>
bool parse_choice(const std::string& value, std::initializer_list<const char*> names, E& out) {
  int i = 0;
  for (const char* n : names) {
    if (value == n) {
      out = E(i);
      return true;
    }
    ++i;
  }
  return false;
}

/// The network prepared on the host with `fill` (prepare_chain) and put on ctx's device as
/// prepare_network would hold it; ms: the host wall time of both.
SparseNetwork host_prepared(const sparse_dnn::Network& net,
                            ringblas::cuda::sparse_layer::EllFill fill, Context& ctx, double& ms) {
  namespace sl = ringblas::cuda::sparse_layer;
  const auto t0 = std::chrono::steady_clock::now();
  SparseNetwork out =
      sl::network_holding(sl::device_weights(sl::prepare_chain(net.weights, 0, fill), ctx),
                          net.neurons, net.bias, net.ymax, ctx.device);
  ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  namespace sl = ringblas::cuda::sparse_layer;
  std::string json_path, md_path, data = std::string(RINGBLAS_DATA_DIR) + "/graphchallenge_dnn";
  bool quick = false, baseline = true;
  std::string only;  // comma-separated network names, e.g. 1024x120,4096x120
  std::string uploads = "csr";  // comma-separated SparseUpload names
  std::string tails = "auto";   // comma-separated SparseTail names (parse_sparse_tail)
  std::string fills = "bank";   // comma-separated EllFill names
  int repeats = 3;
  bool trace = false;
  NetworkPrepareOptions paths;  // upload: per row (--upload)
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json" && i + 1 < argc) json_path = argv[++i];
    else if (a == "--md" && i + 1 < argc) md_path = argv[++i];
    else if (a == "--data" && i + 1 < argc) data = argv[++i];
    else if (a == "--repeats" && i + 1 < argc) repeats = std::stoi(argv[++i]);
    else if (a == "--quick") quick = true;
    else if (a == "--trace")
      trace = true;
    else if (a == "--no-baseline") baseline = false;
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--upload" && i + 1 < argc)
      uploads = argv[++i];
    else if (a == "--tail" && i + 1 < argc)
      tails = argv[++i];
    else if (a == "--fill" && i + 1 < argc)
      fills = argv[++i];
    else if (a == "--row-sort" && i + 1 < argc &&
             parse_choice(argv[i + 1], {"insertion", "warp"}, paths.row_sort))
      ++i;
    else if (a == "--transpose" && i + 1 < argc &&
             parse_choice(argv[i + 1], {"stack", "per_layer"}, paths.transpose))
      ++i;
    else if (a == "--pack-threads" && i + 1 < argc &&
             parse_choice(argv[i + 1], {"spawn", "crew"}, paths.pack_threads))
      ++i;
    else if (a == "--prepare-return" && i + 1 < argc &&
             parse_choice(argv[i + 1], {"synced", "early"}, paths.return_when))
      ++i;
    else if (a == "--block-staging" && i + 1 < argc &&
             parse_choice(argv[i + 1], {"global", "shared"}, paths.block_staging))
      ++i;
    else {
      std::fprintf(stderr,
                   "usage: bench_spdnn [--json F] [--md F] [--data DIR] [--quick] [--repeats R] "
                   "[--no-baseline] [--only 1024x120,...] [--upload csr,packed,overlap] "
                   "[--tail auto,rows,staged] [--fill bank,broadcast] [--trace] [--row-sort "
                   "insertion|warp] [--transpose stack|per_layer] [--pack-threads spawn|crew] "
                   "[--prepare-return synced|early] [--block-staging global|shared]\n");
      return 2;
    }
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const std::string images_path = data + "/sparse-images-1024_subset1200.mtx.gz";
  if (!std::filesystem::exists(images_path)) {
    std::fprintf(stderr, "images not found: %s\n", images_path.c_str());
    return 1;
  }
  const Matrix real = gc::read_images(images_path, 1024);
  const Index replicas = quick ? 5 : 50;
  const Index f = real.nrows() * replicas;
  const std::string truth_path = data + "/neuron1024-l120-categories.tsv";
  std::vector<Index> truth1200;
  if (std::filesystem::exists(truth_path))
    for (Index c : gc::read_categories(truth_path))
      if (c < real.nrows()) truth1200.push_back(c);

  struct Case { Index n, layers; };
  std::vector<Case> cases = {{1024, 120}, {1024, 480}, {1024, 1920}, {4096, 120}, {16384, 120}};
  if (quick) cases = {{1024, 120}, {4096, 120}};
  std::vector<Result> results;
  Context ctx(Backend::cuda);
  auto write_outputs = [&]() {
    const std::string date = bench::utc_date();
    if (!json_path.empty()) {
      std::ofstream j(json_path);
      j << "{\n  \"gpu\": \"" << prop.name << "\",\n  \"date\": \"" << date << "\",\n  \"results\": [\n";
      for (std::size_t i = 0; i < results.size(); ++i) {
        const Result& r = results[i];
        j << "    {\"network\": \"" << r.name << "\", \"upload\": \"" << r.upload
          << "\", \"tail\": \"" << r.tail << "\", \"fill\": \"" << r.fill
          << "\", \"weights_mb_in\": " << r.weight_mb_in
          << ", \"images_mb_in\": " << r.feature_mb_in << ", \"neurons\": " << r.neurons
          << ", \"layers\": " << r.layers << ", \"images\": " << r.images
          << ", \"edges_per_image\": " << r.edges << ", \"whole_ms\": " << r.whole_ms
          << ", \"inference_on_prepared_network_ms\": " << r.prepared_ms
          << ", \"whole_teraedges\": " << r.whole_teps
          << ", \"per_layer_launches_ms\": " << r.per_layer_ms
          << ", \"per_layer_launches_teraedges\": " << r.per_layer_teps
          << ", \"tail_from\": " << r.tail_from << ", \"ringblas_ms\": " << r.ringblas_ms
          << ", \"kernel_ms\": " << r.kernel_ms << ", \"compaction_ms\": " << r.compaction_ms
          << ", \"transfer_ms\": " << r.transfer_ms << ", \"prepare_ms\": " << r.prepare_ms
          << ", \"ringblas_teraedges\": " << r.ringblas_teps
          << ", \"bandwidth_gbs\": " << r.bandwidth_gbs << ", \"cusparse_ms\": " << r.cusparse_ms
          << ", \"cusparse_teraedges\": " << r.cusparse_teps << ", \"categories\": " << r.categories
          << ", \"check\": \"" << r.check << "\"}" << (i + 1 < results.size() ? "," : "") << "\n";
      }
      j << "  ]\n}\n";
    }
    if (!md_path.empty()) {
      std::ofstream m(md_path);
      m << "# Sparse DNN inference (Graph Challenge), " << prop.name << ", " << date << "\n\n"
        << "Features: the 1200 real 1024-pixel images replicated " << replicas
        << "x (upsampled by pixel replication for 4096/16384 neurons); layers past 120 and all "
           "4096/16384-neuron layers from algorithms/radixnet. Times are medians of "
        << repeats << " runs after a warm-up. Preparation: " << preparation_paths(paths)
        << ". *layers*: CUDA events from the first layer to the last. "
           "*whole*: host wall clock of prepare_network (weights prepared on the device) + "
           "mxm_layers on the host's sparse images (features in, layers, category ids out), "
           "reading the files excluded. *layers* use the default options: once few features remain "
           "the "
           "tail kernel runs every remaining layer in one launch (from the layer given; 0: not "
           "used). "
           "*per-layer launches*: the same with fused_tail off, on one network prepared once and "
           "reused for every run. *upload*: how the weights and the images cross the bus "
           "(SparseUpload: "
           "csr, the arrays as stored; packed, 16-bit indices where they fit and one value for "
           "runs of "
           "equal values, through pinned staging; overlap, packed with the images sent from a "
           "second "
           "host thread while the weights are prepared); *MB in*: what crossed it. *tail*: how the "
           "tail kernel reads the activations (SparseTail: rows, through each layer's map; "
           "staged, a block's rows first copied to a buffer by slot; auto, staged up to 1024 "
           "neurons, else rows). *fill*: the ELL fill "
           "(EllFill: "
           "bank, prepared on the device; broadcast, prepared on the host once outside the timed "
           "runs, so whole = on prepared net). *on prepared "
           "net ms*: "
           "the "
           "same host wall clock without prepare_network (mxm_layers alone on the network prepared "
           "just before: features in, layers, ids out), for a network reused across calls.\n\n"
        << "| network | upload | tail | fill | images | whole ms | whole TeraEdges/s | whole / "
           "layers | "
           "on "
           "prepared net ms (/ layers) | prepare ms | features in + ids out ms | MB in (weights / "
           "images) | layers ms | TeraEdges/s (tail from) | per-layer launches ms | per-layer "
           "TeraEdges/s | kernel ms | GB/s | cuSPARSE ms | "
           "cuSPARSE TeraEdges/s | speedup (layers) | categories | check |\n"
        << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|--"
           "-|"
           "---|\n";
      for (const Result& r : results) {
        char line[640];
        std::snprintf(
            line, sizeof line,
            "| %s | %s | %s | %s | %lld | %.3f | %.2f | %.2fx | %.3f (%.2fx) | %.2f | %.2f | %.1f "
            "/ "
            "%.1f | "
            "%.3f | %.2f (%lld) | %.3f | %.2f | %.3f | %.0f | %.2f | %.2f | %.1fx | %lld | %s |\n",
            r.name.c_str(), r.upload.c_str(), r.tail.c_str(), r.fill.c_str(), (long long)r.images,
            r.whole_ms, r.whole_teps, r.whole_ms / r.ringblas_ms, r.prepared_ms,
            r.prepared_ms / r.ringblas_ms, r.prepare_ms, r.transfer_ms, r.weight_mb_in,
            r.feature_mb_in, r.ringblas_ms, r.ringblas_teps, (long long)r.tail_from, r.per_layer_ms,
            r.per_layer_teps, r.kernel_ms, r.bandwidth_gbs, r.cusparse_ms, r.cusparse_teps,
            r.cusparse_ms > 0 ? r.cusparse_ms / r.ringblas_ms : 0.0, (long long)r.categories,
            r.check.c_str());
        m << line;
      }
    }
  };

  std::vector<std::string> modes;
  for (std::size_t at = 0; at <= uploads.size();) {
    const std::size_t comma = std::min(uploads.find(',', at), uploads.size());
    modes.push_back(uploads.substr(at, comma - at));
    if (modes.back() != "csr" && modes.back() != "packed" && modes.back() != "overlap") {
      std::fprintf(stderr, "bench_spdnn: --upload takes csr, packed and/or overlap, not '%s'\n",
                   modes.back().c_str());
      return 2;
    }
    at = comma + 1;
  }
  // (upload, tail) pairs: one row each per network.
  struct Run {
    std::string mode;
    SparseTail tail;
    sl::EllFill fill;
  };
  std::vector<Run> runs;
  for (std::size_t at = 0; at <= tails.size();) {
    const std::size_t comma = std::min(tails.find(',', at), tails.size());
    const std::string t = tails.substr(at, comma - at);
    SparseTail tail;
    try {
      tail = ringblas::parse_sparse_tail(t);
    } catch (const ringblas::InvalidValue& e) {
      std::fprintf(stderr, "bench_spdnn: --tail: %s\n", e.what());
      return 2;
    }
    for (const std::string& m : modes)
      for (std::size_t fa = 0; fa <= fills.size();) {
        const std::size_t fc = std::min(fills.find(',', fa), fills.size());
        const std::string fl = fills.substr(fa, fc - fa);
        if (fl != "bank" && fl != "broadcast") {
          std::fprintf(stderr, "bench_spdnn: --fill takes bank and/or broadcast, not '%s'\n",
                       fl.c_str());
          return 2;
        }
        runs.push_back({m, tail,
                        fl == "bank" ? sl::EllFill::bank : sl::EllFill::broadcast});
        fa = fc + 1;
      }
    at = comma + 1;
  }
  for (const Case& c : cases) {
    Result base;
    base.neurons = c.n;
    base.layers = c.layers;
    base.images = f;
    base.name = std::to_string(c.n) + "x" + std::to_string(c.layers);
    if (!only.empty() && ("," + only + ",").find("," + base.name + ",") == std::string::npos)
      continue;
    const sparse_dnn::Network net = sparse_dnn::graph_challenge_network(c.n, c.layers, data);
    base.edges = net.edges();
    const Index factor = c.n == 1024 ? 1 : (c.n == 4096 ? 2 : (c.n == 16384 ? 4 : 8));
    const Matrix imgs = gc::take_rows(factor == 1 ? real : gc::upsample_images(real, factor), f);
    std::vector<int> alive;  // the cuSPARSE baseline's survivors, run once per network
    for (const Run& run : runs) {
      const std::string& mode = run.mode;
      const SparseTail tail = run.tail;
      Result r = base;
      r.upload = mode;
      r.fill = run.fill == sl::EllFill::bank ? "bank" : "broadcast";
      // broadcast: prepared on the host once (the device preparation has only the bank fill).
      const bool on_host = run.fill != sl::EllFill::bank;
      double host_prepare_ms = 0;
      const SparseNetwork host_net =
          on_host ? host_prepared(net, run.fill, ctx, host_prepare_ms) : SparseNetwork{};
      r.tail = ringblas::sparse_tail_name(tail);
      const bool overlap = mode == "overlap";
      const SparseUpload how = mode == "csr" ? SparseUpload::csr : SparseUpload::packed;
      LayerChainOptions defaults;  // the tail kernel where it applies
      defaults.upload = how;
      defaults.pack_threads = paths.pack_threads;
      NetworkPrepareOptions prepare_how = paths;
      prepare_how.upload = how;
      defaults.tail = tail;
      std::vector<double> whole, total, kern, comp, trans, prep, on_prepared;
      std::vector<Index> ids;
      LayerChainStats st, ps;
      std::string skipped;  // why this (network, options) row cannot run
      // rep 0 is the warm-up (and pins the staging); with --trace, one more traced run, untimed.
      for (int rep = 0; rep <= repeats + (trace ? 1 : 0); ++rep) {
        ctx.trace = rep > repeats;
        if (ctx.trace)
          std::fprintf(stderr, "--- trace: %s, upload %s, tail %s, fill %s ---\n", r.name.c_str(),
                       mode.c_str(), r.tail.c_str(), r.fill.c_str());
        const auto t0 = std::chrono::steady_clock::now();
        std::future<Matrix> staged;  // overlap: the images go while the weights are prepared
        std::size_t staged_bytes = 0;
        if (overlap)
          staged = std::async(std::launch::async, [&] {
            Context side(Backend::cuda);  // its own context: the trace and counters are not shared
            return stage_features(imgs, how, side, &staged_bytes);
          });
        const SparseNetwork prepared =
            on_host ? host_net
                    : prepare_network(net.weights, net.bias, net.ymax, ctx, &ps, prepare_how);
        if (on_host) {
          ps = LayerChainStats{};
          ps.prepare_ms = host_prepare_ms;
        }
        const auto t1 = std::chrono::steady_clock::now();
        try {
          ids = overlap ? mxm_layers(prepared, staged.get(), defaults, &st, ctx)
                        : mxm_layers(prepared, imgs, defaults, &st, ctx);
        } catch (const NotImplemented& e) {  // --tail staged on a network over 1024 neurons
          skipped = e.what();
          break;
        }
        if (overlap) st.bytes_in = staged_bytes;
        const auto t2 = std::chrono::steady_clock::now();
        const double ms = std::chrono::duration<double, std::milli>(t2 - t0).count();
        st.prepare_ms = ps.prepare_ms;
        if (rep == 0 || ctx.trace) continue;
        whole.push_back(ms);
        on_prepared.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
        total.push_back(st.inference_ms);
        kern.push_back(st.kernel_ms);
        comp.push_back(st.compaction_ms);
        trans.push_back(st.transfer_ms);
        prep.push_back(st.prepare_ms);
      }
      ctx.trace = false;
      if (!skipped.empty()) {
        std::printf("%-10s upload %s, tail %s, fill %s: not run (%s)\n", r.name.c_str(),
                    mode.c_str(), r.tail.c_str(), r.fill.c_str(), skipped.c_str());
        continue;
      }
      // ncu (RINGBLAS_BENCH_PROFILE): one more inference, untimed, on a network prepared outside
      // the profiled range (profile_targets.sh keeps the first layer kernels of it).
      const std::string label = r.name + " upload " + mode + " | mxm_layers";
      if (bench::profile_selected(label)) {
        const SparseNetwork prepared =
            on_host ? host_net
                    : prepare_network(net.weights, net.bias, net.ymax, ctx, nullptr, prepare_how);
        bench::profile_once(label, 0,
                            [&] { (void)mxm_layers(prepared, imgs, defaults, nullptr, ctx); });
      }
      r.whole_ms = median(whole);
      r.prepared_ms = median(on_prepared);
      r.whole_teps = double(f) * double(r.edges) / (r.whole_ms * 1e-3) / 1e12;
      r.ringblas_ms = median(total);
      r.kernel_ms = median(kern);
      r.compaction_ms = median(comp);
      r.transfer_ms = median(trans);
      r.prepare_ms = median(prep);
      r.ringblas_teps = double(f) * double(r.edges) / (r.ringblas_ms * 1e-3) / 1e12;
      r.tail_from = st.tail_from;
      r.weight_mb_in = double(ps.bytes_in) / 1e6;
      r.feature_mb_in = double(st.bytes_in) / 1e6;
      {
        // One launch per layer (no tail kernel), on one prepared network reused by every run.
        const SparseNetwork prepared =
            on_host ? host_net : prepare_network(net.weights, net.bias, net.ymax, ctx, nullptr, paths);
        LayerChainOptions per_layer = defaults;
        per_layer.fused_tail = false;
        LayerChainStats ps2;
        std::vector<double> ms;
        for (int rep = 0; rep <= repeats; ++rep) {
          const std::vector<Index> pids = mxm_layers(prepared, imgs, per_layer, &ps2, ctx);
          if (pids != ids)
            std::printf("%-10s per-layer launches: %zu categories, default run %zu: MISMATCH\n",
                        r.name.c_str(), pids.size(), ids.size());
          if (rep > 0) ms.push_back(ps2.inference_ms);
        }
        r.per_layer_ms = median(ms);
        r.per_layer_teps = double(f) * double(r.edges) / (r.per_layer_ms * 1e-3) / 1e12;
      }
      // Bytes the kernels move: every active feature column read and written per layer, plus
      // weights.
      double bytes = double(st.weight_bytes);
      Index in_active = f;
      for (Index a : st.active) {
        bytes += double(in_active) * double(c.n) * 8.0;
        in_active = a;
      }
      r.bandwidth_gbs = bytes / (r.ringblas_ms * 1e-3) / 1e9;
      r.categories = Index(ids.size());
      double first10 = 0, rest = 0;
      for (std::size_t k = 0; k < st.layer_ms.size(); ++k)
        (k < 10 ? first10 : rest) += st.layer_ms[k];
      // layer_ms holds the tail kernel's layers as one entry (the last): per layer is over the
      // layers, and the tail's own share is printed beside.
      const double tail_ms = st.tail_from > 0 && !st.layer_ms.empty() ? st.layer_ms.back() : 0.0;
      const Index tail_layers = st.tail_from > 0 ? c.layers - st.tail_from + 1 : 0;
      std::printf(
          "%-10s tail %s, fill %s: layers 1-10: %.3f ms, layers 11-%lld: %.3f ms (%.1f us per "
          "layer), "
          "active "
          "after 10: %lld; tail kernel %.3f ms for %lld layers (%.1f us per layer)\n",
          r.name.c_str(), r.tail.c_str(), r.fill.c_str(), first10, (long long)c.layers, rest,
          c.layers > 10 ? 1e3 * rest / double(c.layers - 10) : 0.0,
          st.active.size() > 9 ? (long long)st.active[9] : -1LL, tail_ms, (long long)tail_layers,
          tail_layers > 0 ? 1e3 * tail_ms / double(tail_layers) : 0.0);
      // Checks: the truth (1024 x 120), and the cuSPARSE baseline's survivors.
      std::string check;
      if (c.n == 1024 && c.layers == 120 && !truth1200.empty()) {
        const auto want = gc::replicate_categories(truth1200, real.nrows(), f);
        check = ids == want ? "truth PASS" : "truth FAIL";
      }
      if (baseline) {
        if (&run == &runs.front()) {
          const DenseMatrix y0 = dense_features(imgs, ctx);  // the baseline's input (not timed)
          run_cusparse(net, y0.values().as<float>(), int(f), alive);  // warm-up
          base.cusparse_ms = run_cusparse(net, y0.values().as<float>(), int(f), alive);
        }
        r.cusparse_ms = base.cusparse_ms;
        r.cusparse_teps = double(f) * double(r.edges) / (r.cusparse_ms * 1e-3) / 1e12;
        const bool same = std::vector<Index>(alive.begin(), alive.end()) == ids;
        check +=
            std::string(check.empty() ? "" : ", ") + (same ? "cuSPARSE PASS" : "cuSPARSE FAIL");
      }
      r.check = check;
      std::printf(
          "%-10s upload %s, tail %s, fill %s, images %lld: whole %.3f ms (%.2f TeraEdges/s, %.2fx "
          "the "
          "layers; "
          "prepare %.2f ms, "
          "on the prepared network %.3f ms, features in + ids out %.2f ms; sent %.1f MB weights, "
          "%.1f MB images), layers %.3f ms (%.2f TeraEdges/s; kernel %.3f), "
          "tail from layer %lld, per-layer launches %.3f ms (%.2f TeraEdges/s), %.0f GB/s, "
          "cuSPARSE %.3f ms (%.2f TeraEdges/s), categories %lld, %s\n",
          r.name.c_str(), r.upload.c_str(), r.tail.c_str(), r.fill.c_str(), (long long)f,
          r.whole_ms, r.whole_teps, r.whole_ms / r.ringblas_ms, r.prepare_ms, r.prepared_ms,
          r.transfer_ms, r.weight_mb_in, r.feature_mb_in, r.ringblas_ms, r.ringblas_teps,
          r.kernel_ms, (long long)r.tail_from, r.per_layer_ms, r.per_layer_teps, r.bandwidth_gbs,
          r.cusparse_ms, r.cusparse_teps, (long long)r.categories, r.check.c_str());
      std::fflush(stdout);
      results.push_back(r);
      write_outputs();  // after every case, so a run cut short still leaves its table
    }
  }

  return 0;
}
