// Benchmark (a program, not a test) of the per-call host cost of the products on small
// device-resident operands (issue 9: a call costs at most 2 us above its kernels' time):
// mxm into a dense C (SpMM), mxm into a sparse C (SpGEMM), mxv, mxm_batched (per-item and
// stacked forms, and the stacked form over a MatrixBatch), and the Tox21 batch of 10,000 graphs
// through the stacked mxm_batched and through a MatrixBatch (its build timed too) against the
// device's copy bandwidth (target >= 50% at n_B >= 64).
//
// How each call is measured (no profiler needed): a one-thread spin kernel occupies the stream
// first, so everything the call enqueues waits behind it; then
// - host us: the wall time from entering the call to its return (pure host work, as long as
//   the call does not wait for the device);
// - kernel us: CUDA events recorded after the spin and after the call: the device time of the
//   call's own work with every launch already queued (no host gaps), i.e. the kernel-only time;
// - waited: the call returned only after the spin had finished, i.e. it waited for the device
//   (a synchronisation or a size readback; SpGEMM must read C's size back) -- its host us then
//   includes the spin and is not host work; the row says so;
// - sync us: wall time of call + cudaStreamSynchronize on an idle device (what a synchronous
//   caller pays), and back-to-back us: wall per call of 200 calls without waiting (a loop's
//   throughput).
// excess us = host us - kernel us (the issue's figure: <= 2); for a call that waited (most
// repetitions), host us holds the spin, so excess = sync us - kernel us instead. Medians over
// --reps calls after warm-up; each row printed (flushed) when measured; Markdown + JSON with the
// GPU name.
//
// Usage: bench_host_overhead --out PREFIX [--data DIR] [--reps N] [--ops
// pieces,spmm,spgemm,mxv,batched,tox21] (about 20 s on an H100 with the defaults; --ops selects rows by
// substring).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/tu_dataset_io.hpp"
#include "backend/cuda/common/dependent_launch.cuh"
#include "ringblas/ringblas.hpp"
#include "tests/bench/bench_args.hpp"

using namespace ringblas;

#define BENCH_CUDA(call)                                                                          \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

namespace {

__global__ void empty_kernel(int) {}

__global__ void spin_kernel(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

struct Row {
  std::string op, config;
  double host_us = 0, kernel_us = 0, sync_us = 0, b2b_us = 0;
  int waited = 0, reps = 0;
  double bytes = 0;  ///< bytes the kernels must move (0: not reported)
  std::string note;
  /// The cost above the kernels: host - kernel, or sync - kernel for a call that waits.
  double excess() const { return (2 * waited > reps ? sync_us : host_us) - kernel_us; }
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class Harness {
 public:
  Harness(int reps) : reps_(reps) {
    BENCH_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    BENCH_CUDA(cudaEventCreate(&e0_));
    BENCH_CUDA(cudaEventCreate(&e1_));
    int khz = 0;
    BENCH_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    cycles_per_us_ = khz / 1000.0;
    ctx_.stream = stream_;
  }
  Context& ctx() { return ctx_; }

  /// Measures f (one API call on ctx()) as the header says.
  Row measure(const std::string& op, const std::string& config, const std::function<void()>& f) {
    Row r{op, config};
    r.reps = reps_;
    for (int w = 0; w < 3; ++w) f();
    BENCH_CUDA(cudaStreamSynchronize(stream_));
    // Synchronous wall on an idle device; it also sizes the spin (5x the call, at least 200 us).
    std::vector<double> sync;
    for (int i = 0; i < reps_; ++i) {
      const double t0 = now_us();
      f();
      BENCH_CUDA(cudaStreamSynchronize(stream_));
      sync.push_back(now_us() - t0);
    }
    r.sync_us = median(sync);
    const double spin_us = std::max(200.0, 5.0 * r.sync_us);
    std::vector<double> host, kern;
    for (int i = 0; i < reps_; ++i) {
      spin_kernel<<<1, 1, 0, stream_>>>(static_cast<long long>(spin_us * cycles_per_us_));
      BENCH_CUDA(cudaGetLastError());
      BENCH_CUDA(cudaEventRecord(e0_, stream_));
      const double t0 = now_us();
      f();
      const double t1 = now_us();
      // The spin still running at return: the call did not wait for the device.
      if (cudaEventQuery(e0_) == cudaSuccess) ++r.waited;
      BENCH_CUDA(cudaEventRecord(e1_, stream_));
      BENCH_CUDA(cudaStreamSynchronize(stream_));
      float ms = 0;
      BENCH_CUDA(cudaEventElapsedTime(&ms, e0_, e1_));
      host.push_back(t1 - t0);
      kern.push_back(ms * 1000.0);
    }
    r.host_us = median(host);
    r.kernel_us = median(kern);
    const int calls = 200;
    const double t0 = now_us();
    for (int i = 0; i < calls; ++i) f();
    const double t1 = now_us();
    BENCH_CUDA(cudaStreamSynchronize(stream_));
    r.b2b_us = (t1 - t0) / calls;
    return r;
  }

  /// Device-to-device copy bandwidth (read + write) in GB/s, 1 GiB.
  double copy_bandwidth_gbs() {
    const std::size_t bytes = std::size_t(1) << 30;
    void *x, *y;
    BENCH_CUDA(cudaMalloc(&x, bytes));
    BENCH_CUDA(cudaMalloc(&y, bytes));
    std::vector<double> t;
    for (int i = 0; i < 7; ++i) {
      BENCH_CUDA(cudaEventRecord(e0_, stream_));
      BENCH_CUDA(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, stream_));
      BENCH_CUDA(cudaEventRecord(e1_, stream_));
      BENCH_CUDA(cudaEventSynchronize(e1_));
      float ms = 0;
      BENCH_CUDA(cudaEventElapsedTime(&ms, e0_, e1_));
      if (i > 1) t.push_back(ms * 1000.0);
    }
    cudaFree(x);
    cudaFree(y);
    return 2.0 * double(bytes) / (median(t) * 1e3);
  }

 private:
  int reps_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t e0_ = nullptr, e1_ = nullptr;
  double cycles_per_us_ = 1000;
  Context ctx_{Backend::automatic};  // the default a user gets
};

std::uint64_t g_state = 2026;
std::uint64_t next_rand() {
  g_state ^= g_state << 13;
  g_state ^= g_state >> 7;
  g_state ^= g_state << 17;
  return g_state;
}

/// n x n fp32 with `deg` distinct random columns per row (32-bit indices), on the host.
Matrix random_graph(Index n, int deg) {
  std::vector<std::int32_t> rp(std::size_t(n) + 1, 0), ci;
  std::vector<float> v;
  for (Index i = 0; i < n; ++i) {
    std::vector<std::int32_t> cols;
    while (cols.size() < std::size_t(std::min<Index>(deg, n))) {
      const auto c = std::int32_t(next_rand() % std::uint64_t(n));
      if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
    }
    std::sort(cols.begin(), cols.end());
    for (auto c : cols) ci.push_back(c), v.push_back(float(next_rand() % 1000) / 1000.0f + 0.5f);
    rp[std::size_t(i) + 1] = std::int32_t(ci.size());
  }
  return Matrix::from_csr(n, n, rp, ci, v);
}

DenseMatrix random_dense(Index m, Index n) {
  std::vector<float> v(std::size_t(m * n));
  for (auto& x : v) x = float(next_rand() % 1000) / 1000.0f;
  return DenseMatrix::from_values(m, n, v);
}

/// Molecule-like graphs (10..40 nodes, ring plus a few chords, symmetric), for when the Tox21
/// files are absent.
std::vector<Matrix> molecule_like(std::size_t count) {
  std::vector<Matrix> out;
  for (std::size_t g = 0; g < count; ++g) {
    const Index n = 10 + Index(next_rand() % 31);
    std::vector<Index> r, c;
    for (Index i = 0; i < n; ++i) {
      const Index j = (i + 1) % n;
      r.push_back(i), c.push_back(j), r.push_back(j), c.push_back(i);
    }
    for (int k = 0; k < 3; ++k) {
      const Index i = Index(next_rand() % n), j = Index(next_rand() % n);
      if (i != j && (i + 1) % n != j && (j + 1) % n != i)
        r.push_back(i), c.push_back(j), r.push_back(j), c.push_back(i);
    }
    out.push_back(Matrix::from_triplets(n, n, r, c, std::vector<float>(r.size(), 1.0f), Dup::first,
                                        IndexType::i32));
  }
  return out;
}

/// The first `count` Tox21 graphs (repeated cyclically past 7,831), or molecule_like when the
/// files are absent (note says which).
std::vector<Matrix> tox21_batch(const std::string& data, std::size_t count, std::string& note) {
  const std::string dir = data + "/molecules/tox21_graphs";
  if (!std::filesystem::exists(dir)) {
    note = "Tox21 files absent: molecule-like random graphs of 10-40 nodes";
    return molecule_like(count);
  }
  const tu::Dataset ds = tu::read_dataset(dir);
  const std::vector<Matrix> blocks = tu::graph_blocks(ds.adjacency, ds.graph_ptr);
  std::vector<Matrix> out;
  for (std::size_t k = 0; k < count; ++k) out.push_back(blocks[k % blocks.size()]);
  note = "Tox21 (" + std::to_string(blocks.size()) + " graphs, repeated cyclically)";
  return out;
}

std::string fmt(double x, int digits = 1) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << x;
  return s.str();
}

std::string json_escape(const std::string& x) {
  std::string o;
  for (char c : x) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_prefix, data = RINGBLAS_DATA_DIR, ops_arg;
  int reps = 30;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc)
      out_prefix = argv[++i];
    else if (a == "--data" && i + 1 < argc)
      data = argv[++i];
    else if (a == "--reps" && i + 1 < argc)
      reps = std::max(3, std::atoi(argv[++i]));
    else if (a == "--ops" && i + 1 < argc)
      ops_arg = argv[++i];
    else {
      std::cerr << "usage: bench_host_overhead --out PREFIX [--data DIR] [--reps N] "
                   "[--ops pieces,spmm,spgemm,mxv,batched,tox21]\n";
      return 2;
    }
  }
  if (out_prefix.empty()) {
    std::cerr << "bench_host_overhead: --out PREFIX is required\n";
    return 2;
  }
  const std::vector<std::string> ops = bench::split_list(ops_arg);
  cudaDeviceProp prop;
  BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
  Harness h(reps);
  Context& ctx = h.ctx();
  const double copy_bw = h.copy_bandwidth_gbs();
  std::printf("%s, device copy bandwidth %.0f GB/s\n", prop.name, copy_bw);
  std::printf("%-10s %-34s %9s %9s %9s %9s %9s %7s %s\n", "op", "config", "host us", "kernel us",
              "excess", "sync us", "b2b us", "waited", "note");
  std::fflush(stdout);
  std::vector<Row> rows;
  auto emit = [&](Row r) {
    std::printf("%-10s %-34s %9.2f %9.2f %9.2f %9.2f %9.2f %4d/%-3d %s\n", r.op.c_str(),
                r.config.c_str(), r.host_us, r.kernel_us, r.excess(), r.sync_us, r.b2b_us, r.waited,
                r.reps, r.note.c_str());
    std::fflush(stdout);
    rows.push_back(std::move(r));
  };
  auto run = [&](const std::string& op, const std::string& config, const std::function<void()>& f,
                 double bytes = 0, std::string note = "") {
    if (!bench::selected(ops, op)) return;
    try {
      Row r = h.measure(op, config, f);
      r.bytes = bytes;
      r.note = note;
      emit(std::move(r));
    } catch (const std::exception& e) {
      Row r{op, config};
      r.note = std::string("failed: ") + e.what();
      emit(std::move(r));
    }
  };
  const Semiring pt = semiring("plus_times", Type::fp32);

  // SpMM: C = A B, A 4096 x 4096 with 8 per row, B 4096 x 64, all fp32 on the device.
  if (bench::selected(ops, "spmm")) {
    const Matrix A = random_graph(4096, 8).to(Location::device, ctx);
    const DenseMatrix B = random_dense(4096, 64).to(Location::device, ctx);
    DenseMatrix C = DenseMatrix(4096, 64, Type::fp32).to(Location::device, ctx);
    run("spmm", "n=4096 deg=8 n_B=64", [&] { mxm(C, pt, A, B, {}, ctx); });
    const Matrix As = random_graph(256, 4).to(Location::device, ctx);
    const DenseMatrix Bs = random_dense(256, 16).to(Location::device, ctx);
    DenseMatrix Cs = DenseMatrix(256, 16, Type::fp32).to(Location::device, ctx);
    run("spmm", "n=256 deg=4 n_B=16", [&] { mxm(Cs, pt, As, Bs, {}, ctx); });
  }
  // The pieces an SpMM call is made of, each alone on the same held stream: what a launch, a
  // dependent (PDL) launch and a pool allocation cost the host, and the SpMM call on its paths:
  // mean row >= 3 takes the nnz-split kernel (row pass + dependent launch + a run-rows buffer),
  // mean row 2 one row-mapped launch; the cuda context skips the automatic backend's choice.
  if (bench::selected(ops, "pieces")) {
    cudaStream_t s = static_cast<cudaStream_t>(ctx.stream);
    run("pieces", "empty launch <<<>>>", [&] { empty_kernel<<<1, 32, 0, s>>>(0); });
    run("pieces", "empty launch cudaLaunchKernelEx PDL", [&] {
      cuda::detail::launch_maybe_dependent(true, empty_kernel, dim3(1), dim3(32), 0, s, 0);
    });
    run("pieces", "cudaMallocAsync + cudaFreeAsync 4 KiB", [&] {
      void* p = nullptr;
      BENCH_CUDA(cudaMallocAsync(&p, 4096, s));
      BENCH_CUDA(cudaFreeAsync(p, s));
    });
    run("pieces", "Buffer 4 KiB on the device", [&] { Buffer b(4096, Location::device, &ctx); });
    const Matrix A = random_graph(4096, 8).to(Location::device, ctx);
    const Matrix A2 = random_graph(4096, 2).to(Location::device, ctx);
    const DenseMatrix B = random_dense(4096, 64).to(Location::device, ctx);
    DenseMatrix C = DenseMatrix(4096, 64, Type::fp32).to(Location::device, ctx);
    Context cuda_ctx(Backend::cuda);
    cuda_ctx.stream = ctx.stream;
    run("pieces", "spmm deg=8 (nnz-split) automatic ctx", [&] { mxm(C, pt, A, B, {}, ctx); });
    run("pieces", "spmm deg=8 (nnz-split) cuda ctx", [&] { mxm(C, pt, A, B, {}, cuda_ctx); });
    Descriptor rs;
    rs.variant = Variant::spmm_rowsplit;
    run("pieces", "spmm deg=8 spmm_rowsplit forced", [&] { mxm(C, pt, A, B, rs, ctx); });
    run("pieces", "spmm deg=2 (row-mapped) automatic", [&] { mxm(C, pt, A2, B, {}, ctx); });
  }
  // SpGEMM: C = A A, A 2048 x 2048 with 4 per row (C's size is read back: it waits).
  if (bench::selected(ops, "spgemm")) {
    const Matrix A = random_graph(2048, 4).to(Location::device, ctx);
    Matrix C = Matrix(2048, 2048, Type::fp32, IndexType::i32).to(Location::device, ctx);
    run(
        "spgemm", "n=2048 deg=4 C=A*A", [&] { mxm(C, nullptr, no_accum, pt, A, A, {}, ctx); }, 0,
        "C's size is read back");
  }
  // mxv: w = A u, A 16384 x 16384 with 8 per row, u dense.
  if (bench::selected(ops, "mxv")) {
    const Matrix A = random_graph(16384, 8).to(Location::device, ctx);
    std::vector<float> uv(16384);
    for (auto& x : uv) x = float(next_rand() % 100) / 100.0f;
    const Vector u = Vector::dense(uv).to(Location::device, ctx);
    Vector w = Vector(16384, Type::fp32).to(Location::device, ctx);
    run(
        "mxv", "n=16384 deg=8 dense u", [&] { mxv(w, nullptr, no_accum, pt, A, u, {}, ctx); }, 0,
        "w sparse: its nnz is read back");
    // A full w with an accumulator stays full (PageRank's, FastSV's update): no read-back.
    Vector wf = Vector::dense(std::vector<float>(16384, 0.0f)).to(Location::device, ctx);
    run("mxv", "n=16384 deg=8 w+=A*u, w full",
        [&] { mxv(wf, nullptr, BinaryOpCode::plus, pt, A, u, {}, ctx); });
  }
  // mxm_batched: 64 molecule-like graphs, n_B = 64, per-item and stacked forms.
  if (bench::selected(ops, "batched")) {
    std::vector<Matrix> A;
    for (Matrix& a : molecule_like(64)) A.push_back(a.to(Location::device, ctx));
    std::vector<DenseMatrix> B, C;
    Index rows_total = 0;
    for (const Matrix& a : A) {
      B.push_back(random_dense(a.nrows(), 64).to(Location::device, ctx));
      C.push_back(DenseMatrix(a.nrows(), 64, Type::fp32).to(Location::device, ctx));
      rows_total += a.nrows();
    }
    run("batched", "64 graphs n_B=64 per-item", [&] { mxm_batched(C, pt, A, B, {}, ctx); });
    const DenseMatrix Bs = random_dense(rows_total, 64).to(Location::device, ctx);
    DenseMatrix Cs = DenseMatrix(rows_total, 64, Type::fp32).to(Location::device, ctx);
    run("batched", "64 graphs n_B=64 stacked",
        [&] { mxm_batched(Cs, pt, A, Bs, Epilogue::none(), {}, ctx); });
    const MatrixBatch batch(A, ctx);
    run("batched", "64 graphs n_B=64 batch object",
        [&] { mxm_batched(Cs, pt, batch, Bs, Epilogue::none(), {}, ctx); });
  }
  // Tox21: 10,000 graphs stacked, n_B = 64 and 128; bytes = A (row pointers, columns, values)
  // + B read + C written.
  if (bench::selected(ops, "tox21")) {
    std::string note;
    std::vector<Matrix> A;
    for (Matrix& a : tox21_batch(data, 10000, note)) A.push_back(a.to(Location::device, ctx));
    Index rows_total = 0, nnz = 0;
    for (const Matrix& a : A) rows_total += a.nrows(), nnz += a.nnz();
    // The batch object: its build (once per batch; it synchronises on its metadata upload),
    // then the same products through it, under automatic and each single-SpMM kernel forced.
    run(
        "tox21", "10000 graphs MatrixBatch build", [&] { const MatrixBatch b(A, ctx); }, 0,
        note + "; once per batch");
    const MatrixBatch batch(A, ctx);
    for (Index n : {Index(64), Index(128)}) {
      const DenseMatrix Bs = random_dense(rows_total, n).to(Location::device, ctx);
      DenseMatrix Cs = DenseMatrix(rows_total, n, Type::fp32).to(Location::device, ctx);
      const double dense = 2.0 * double(rows_total) * double(n) * 4;
      const double bytes = double(nnz) * 8 + double(rows_total + Index(A.size())) * 4 + dense;
      const std::string config = "10000 graphs n_B=" + std::to_string(n);
      run(
          "tox21", config + " stacked",
          [&] { mxm_batched(Cs, pt, A, Bs, Epilogue::none(), {}, ctx); }, bytes, note);
      const double bytes_bd = double(nnz) * 8 + double(rows_total + 1) * 4 + dense;
      for (Variant v : {Variant::automatic, Variant::spmm_rowsplit, Variant::spmm_subwarp,
                        Variant::spmm_batched}) {
        Descriptor d;
        d.variant = v;
        const std::string kernel =
            v == Variant::automatic ? "" : " " + std::string(variant_name(v));
        run(
            "tox21", config + " batch object" + kernel,
            [&] { mxm_batched(Cs, pt, batch, Bs, Epilogue::none(), d, ctx); }, bytes_bd, note);
      }
    }
  }

  // Markdown + JSON.
  const std::string date = bench::utc_date();
  std::ofstream md(out_prefix + ".md"), js(out_prefix + ".json");
  md << "# Per-call host cost of the products (bench_host_overhead)\n\nGPU: " << prop.name << ", "
     << date << ", device copy bandwidth " << fmt(copy_bw, 0) << " GB/s. Medians of " << reps
     << " calls. host = wall time inside the call with the stream held by a spin kernel; "
        "kernel = device time of the call's work, all launches queued (CUDA events); excess = "
        "host - kernel (target <= 2 us), or sync - kernel for calls that wait; sync = call + "
        "stream sync on an idle device; b2b = wall "
        "per call, 200 calls back to back; waited = calls that returned only after the device "
        "had passed the spin (a synchronisation inside the call).\n\n"
        "| op | config | host us | kernel us | excess us | sync us | b2b us | waited | GB/s "
        "(sync) | % of copy (sync) | % of copy (kernel) | note |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  js << "{\"gpu\": \"" << prop.name << "\", \"date\": \"" << date
     << "\", \"copy_bandwidth_gbs\": " << copy_bw << ", \"rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const double gbs_sync = r.bytes > 0 && r.sync_us > 0 ? r.bytes / (r.sync_us * 1e3) : 0;
    const double gbs_kernel = r.bytes > 0 && r.kernel_us > 0 ? r.bytes / (r.kernel_us * 1e3) : 0;
    md << "| " << r.op << " | " << r.config << " | " << fmt(r.host_us, 2) << " | "
       << fmt(r.kernel_us, 2) << " | " << fmt(r.excess(), 2) << " | " << fmt(r.sync_us, 2) << " | "
       << fmt(r.b2b_us, 2) << " | " << r.waited << "/" << r.reps << " | "
       << (r.bytes > 0 ? fmt(gbs_sync, 0) : "") << " | "
       << (r.bytes > 0 ? fmt(100 * gbs_sync / copy_bw, 1) + "%" : "") << " | "
       << (r.bytes > 0 ? fmt(100 * gbs_kernel / copy_bw, 1) + "%" : "") << " | " << r.note
       << " |\n";
    js << (i ? ", " : "") << "{\"op\": \"" << r.op << "\", \"config\": \"" << r.config
       << "\", \"host_us\": " << r.host_us << ", \"kernel_us\": " << r.kernel_us
       << ", \"sync_us\": " << r.sync_us << ", \"b2b_us\": " << r.b2b_us
       << ", \"waited\": " << r.waited << ", \"reps\": " << r.reps << ", \"bytes\": " << r.bytes
       << ", \"note\": \"" << json_escape(r.note) << "\"}";
  }
  js << "]}\n";
  std::printf("wrote %s.md and %s.json\n", out_prefix.c_str(), out_prefix.c_str());
  return 0;
}
