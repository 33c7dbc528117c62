// Benchmark (a program, not a test) of the graph algorithms of algorithms/ on the GPU and on the
// cpu executor (SuiteSparse:GraphBLAS, all cores) in the same run: BFS, SSSP, PageRank, triangle
// counting, connected components, k-core and betweenness (SSSP both by Bellman-Ford and by
// delta-stepping) on the shared SNAP graphs (soc-Epinions1 first) and
// R-MAT graphs of scale 20 and 22, edge factor 16 (tests/support/rmat.hpp).
// - GPU: the graph moved to the device once, Backend::automatic (cuda kernels; an operation
//   without one falls back to the cpu and is listed in the "fallbacks" column), CUDA events
//   around each whole algorithm call, warm-up then the median of the repeats.
// - cpu: Backend::cpu on the host graph, steady_clock, warm-up then the median.
// - GTEPS for BFS and SSSP as Graph500 counts them: the input edges (undirected, each once)
//   within the source's component, over the time. The other algorithms report nnz(A) / time.
// - The GPU result is checked against the cpu one ("agree" column).
// - cpu runs: --cpu-reps N, else half the GPU repetitions after a warm-up, and one run without
//   warm-up on graphs over 2^26 entries (R-MAT scale 22), so that scale 22 fits one device call;
//   --cpu-reps 0: none (GPU times and traces only; agreement not checked).
// - The device copy of the graph has 32-bit indices (the kernels' width; --index64 keeps 64).
// - Rows are printed as measured and the Markdown/JSON files rewritten after each row.
// - --trace FILE: the dispatch trace (kernel chosen per operation, its wall time, copies) of one
//   extra GPU run of each algorithm, to see where the time goes; the row shows that run's
//   counted copies.
// - --cache DIR: each generated R-MAT graph is kept in DIR as a binary CSR file (its arrays as
//   stored, a header naming scale, edge factor, seed and sizes) and read from there when present,
//   so that a second invocation skips the generation (about 80 s at scale 22).
// - --cpu-timeout S: each cpu row runs in a process of its own (this program again, with
//   --cpu-only, that graph and that algorithm, and the internal --cpu-row-fd FD through which it
//   sends its time, result and note), given S seconds from the moment its graph is read (warm-up
//   and repeats included) and killed past them; such a row reports S as its cpu time and the
//   speed-up as lower bounds ("> ..."), its result unchecked, and the program goes on with its
//   GPU row and the next ones: one call makes the whole table. The processes read R-MAT graphs
//   from --cache (required with R-MAT graphs), SNAP graphs from --data.
// - --cpu-only: no GPU runs (cpu rows only). --cpu-algorithms a,b: cpu rows for these algorithms
//   only, GPU rows for every selected one.
// Usage: bench_algorithms --json out.json --md out.md [--data DIR] [--reps N] [--cpu-reps N]
//                         [--index64] [--trace FILE] [--quick] [--scales 20,22] [--bc-sources K]
//                         [--cache DIR] [--cpu-timeout S] [--cpu-only] [--cpu-algorithms a,b]
//                         [--algorithms bfs,bfs_edges,bfs_vertex,sssp_bf,sssp_delta,sssp_delta_x4,
//                                       sssp_delta_x16,pagerank,tc,tc_nosort,cc,kcore,bc]
//                         [--graphs soc-Epinions1,rmat20,...]
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#if defined(RINGBLAS_HAS_CUDA)
#include <cuda_runtime.h>
#endif

#include "algorithms/betweenness.hpp"
#include "algorithms/bfs.hpp"
#include "algorithms/connected_components.hpp"
#include "algorithms/kcore.hpp"
#include "algorithms/pagerank.hpp"
#include "algorithms/sssp.hpp"
#include "algorithms/triangle_count.hpp"
#include "ringblas/ringblas.hpp"
#include "tests/bench/timed_child.hpp"
#include "tests/support/rmat.hpp"

namespace {

using namespace ringblas;

int g_reps = 5;
int g_cpu_reps = -1;    ///< --cpu-reps; -1: reps / 2, and 1 without warm-up on the largest graphs
bool g_index32 = true;  ///< --index64 clears it: the device graph keeps 64-bit indices
std::ostream* g_trace_out = nullptr;  ///< --trace FILE: the dispatch trace of one GPU run each
/// --cpu-timeout S: each cpu row in a process of its own, killed S s after its graph is read
double g_cpu_timeout_s = 0;
bool g_gpu_runs = true;  ///< --cpu-only clears it: no GPU runs
/// --cpu-algorithms a,b: cpu rows only for these (the others as with --cpu-reps 0)
std::vector<std::string> g_cpu_algorithms;
/// Graphs with more entries run the cpu executor once, without warm-up (R-MAT scale 22: one
/// cpu run of each algorithm takes from seconds to minutes).
constexpr Index kLargeGraph = Index(1) << 26;

double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// Median milliseconds of f() on the cpu clock, after one warm-up call unless `warm_up` is off.
double time_cpu_ms(const std::function<void()>& f, int reps, bool warm_up) {
  if (warm_up) f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  return median(t);
}

#if defined(RINGBLAS_HAS_CUDA)
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
/// Median milliseconds of f() between two CUDA events, after one warm-up call.
double time_gpu_ms(const std::function<void()>& f, int reps) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  f();
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(a), "cudaEventRecord");
    f();
    check(cudaEventRecord(b), "cudaEventRecord");
    check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return median(t);
}
std::string gpu_name() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "none";
  return p.name;
}
#else
double time_gpu_ms(const std::function<void()>&, int) { return NAN; }
std::string gpu_name() { return "none (built without CUDA)"; }
#endif

struct Graph {
  std::string name;
  Matrix host;
  std::vector<Index> degree;
};

struct Row {
  std::string graph, algorithm, agree, fallbacks, note;
  double gpu_ms = NAN, cpu_ms = NAN, rate = NAN;  // rate: GTEPS (bfs, sssp) or Gedges/s
  bool teps = false;
  int cpu_reps = 0;
  bool cpu_timed_out = false;  ///< cpu_ms is then --cpu-timeout, a lower bound
  std::string syncs;           ///< host<->device copies counted in the traced GPU run
};

std::vector<Index> degrees(const Matrix& a) {
  const std::vector<Index> rp = a.row_ptr_vector();
  std::vector<Index> d(static_cast<std::size_t>(a.nrows()));
  for (Index i = 0; i < a.nrows(); ++i) d[i] = rp[i + 1] - rp[i];
  return d;
}

template <class T>
std::vector<T> dense(const Vector& v, T missing, Context& ctx) {
  const Vector h = v.location() == Location::host ? v : v.to(Location::host, ctx);
  std::vector<T> out(static_cast<std::size_t>(h.size()), missing);
  const auto idx = h.indices_vector();
  const auto val = h.template values_vector<T>();
  for (std::size_t k = 0; k < idx.size(); ++k) out[idx[k]] = val[k];
  return out;
}

/// A cpu row: its median time, its result (dense fp64, ∞ where absent) and the note of its last
/// run (BFS steps, PageRank iterations); `timed_out` when it ran past --cpu-timeout (no time, no
/// result: the speed-up is then a lower bound).
struct CpuRow {
  bool timed_out = false;
  double ms = NAN;
  std::vector<double> result;
  std::string note;
};

/// --cpu-row-fd FD (given by the parent, not by hand): this process measures one cpu row (the
/// only graph and algorithm selected) and reports it through the pipe FD (timed_child.hpp).
std::unique_ptr<bench::TimedChildChannel> g_row_channel;
/// The options that a cpu row's process repeats (data, cache, scales, repetitions, sources) and
/// the program's argv[0], set by main.
std::vector<std::string> g_child_args;
std::string g_argv0;

/// A cpu row through the pipe: ms, the note's and the result's lengths, then their bytes.
std::string encode(const CpuRow& c) {
  const std::uint64_t sizes[2] = {c.note.size(), c.result.size()};
  std::string s(reinterpret_cast<const char*>(&c.ms), sizeof(c.ms));
  s.append(reinterpret_cast<const char*>(sizes), sizeof(sizes));
  s += c.note;
  s.append(reinterpret_cast<const char*>(c.result.data()), c.result.size() * sizeof(double));
  return s;
}
CpuRow decode(const std::string& s) {
  CpuRow c;
  std::uint64_t sizes[2];
  if (s.size() < sizeof(c.ms) + sizeof(sizes)) throw std::runtime_error("cpu row: short report");
  std::memcpy(&c.ms, s.data(), sizeof(c.ms));
  std::memcpy(sizes, s.data() + sizeof(c.ms), sizeof(sizes));
  const std::size_t at = sizeof(c.ms) + sizeof(sizes);
  if (s.size() != at + sizes[0] + sizes[1] * sizeof(double))
    throw std::runtime_error("cpu row: report of the wrong size");
  c.note = s.substr(at, sizes[0]);
  c.result.resize(sizes[1]);
  std::memcpy(c.result.data(), s.data() + at + sizes[0], sizes[1] * sizeof(double));
  return c;
}

/// Times `run` on the cpu (time_cpu_ms) in this process and returns its result and `note` as it
/// stands after the runs. A cpu row's process tells its parent that the timed runs begin.
CpuRow cpu_row(const std::function<Vector()>& run, const std::string& note, int reps, bool warm_up,
               Context& cpu) {
  if (g_row_channel) g_row_channel->start();
  Vector res;
  CpuRow out;
  out.ms = time_cpu_ms([&] { res = run(); }, reps, warm_up);
  out.result = dense<double>(res.cast(Type::fp64), INFINITY, cpu);
  out.note = note;
  return out;
}

/// --cpu-timeout: the cpu row of `algorithm` on `graph` in a process of its own (this program
/// with --cpu-only --graphs graph --algorithms algorithm), killed --cpu-timeout seconds after
/// its graph is read. The graph comes from --data (SNAP) or --cache (R-MAT), not generated again.
CpuRow cpu_row_in_child(const std::string& graph, const std::string& algorithm) {
  std::vector<std::string> args = g_child_args;
  for (const std::string& a :
       {std::string("--graphs"), graph, std::string("--algorithms"), algorithm})
    args.push_back(a);
  const bench::TimedChild c = bench::run_self_timed(g_argv0, args, "--cpu-row-fd", g_cpu_timeout_s);
  if (!c.timed_out) return decode(c.payload);
  CpuRow late;
  late.timed_out = true;
  return late;
}

double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isinf(a[i]) && std::isinf(b[i])) continue;
    m = std::max(m, std::fabs(a[i] - b[i]) / (1 + std::fabs(b[i])));
  }
  return m;
}

/// Graph500's traversed edges: the input edges (each undirected edge once, self-loops none)
/// touching the reached vertices.
double traversed_edges(const Graph& g, const std::vector<double>& reached_marker) {
  double sum = 0;
  for (std::size_t v = 0; v < reached_marker.size(); ++v)
    if (!std::isinf(reached_marker[v])) sum += double(g.degree[v]);
  return sum / 2;
}

/// One algorithm: runs it on `ctx` and returns its result vector (left where it was computed;
/// triangle counting returns its count as a one-entry vector).
using Algorithm = std::function<Vector(Context&, const Matrix&)>;

struct Spec {
  std::string name;
  Algorithm run;
  double tol;  ///< largest relative difference accepted between the GPU and cpu results
  bool named_only = false;  ///< runs only when --algorithms names it (a tuning row)
};

bool selected(const std::vector<std::string>& list, const std::string& name) {
  return list.empty() || std::find(list.begin(), list.end(), name) != list.end();
}

std::string fmt(double v, int digits = 3);
std::string sig(double v);

/// Runs the selected algorithms on g; `flush` is called after each row (the report files are
/// rewritten, so that a call cut short by its time limit still leaves its rows).
void run_graph(const Graph& g, bool have_gpu, int bc_sources, const std::vector<std::string>& only,
               std::vector<Row>& rows, const std::function<void()>& flush) {
  Context cpu(Backend::cpu);
  Context gpu(Backend::automatic);
  std::ostringstream trace;
  gpu.trace_out = &trace;
  // The device copy in the kernels' index width (32-bit where the sizes fit), made once like
  // the copy itself: otherwise every SpMV narrows A's indices again.
  const bool narrow =
      g_index32 && g.host.nnz() < (Index(1) << 31) - 1 && g.host.nrows() < (Index(1) << 31) - 1;
  const Matrix dev =
      have_gpu
          ? (narrow ? g.host.with_index_type(IndexType::i32) : g.host).to(Location::device, gpu)
          : Matrix();
  const bool large = g.host.nnz() > kLargeGraph;
  const int cpu_reps = g_cpu_reps >= 0 ? g_cpu_reps : large ? 1 : std::max(1, g_reps / 2);
  const bool cpu_warm_up = !(g_cpu_reps < 0 && large);
  std::string run_note;  ///< the last run's BFS steps or PageRank iterations, for the note
  // The source: the highest-degree vertex (deterministic, in the giant component).
  const Index source = Index(std::max_element(g.degree.begin(), g.degree.end()) - g.degree.begin());
  algorithms::BfsOptions bopt;
  bopt.symmetric = true;
  auto bfs_levels = [&](Context& c, const Matrix& a, const algorithms::BfsOptions& o) {
    algorithms::BfsResult b = algorithms::bfs(a, source, o, c);
    run_note =
        std::to_string(b.push_steps) + " push + " + std::to_string(b.pull_steps) + " pull steps";
    return b.level;
  };
  algorithms::PageRankOptions popt;
  popt.tol = 1e-10;
  popt.symmetric = true;  // the graphs are undirected: y = A +.× (x .* w), a row per output
  // Out-degrees as a graph property (LAGraph's G->out_degree), made once per graph outside the
  // timed calls like the device copy: Beamer's edge-count switch reads them.
  const Vector degree_host = Vector::dense<Index>(g.degree);
  const Vector degree_dev = have_gpu ? degree_host.to(Location::device, gpu) : Vector();
  // Meyer and Sanders' bucket width, the largest weight over the mean degree (sssp_delta_stepping
  // picks 16 times it): the tuning rows are multiples of it.
  double auto_delta = 1.0;
  if (g.host.nnz() > 0) {
    const std::vector<double> w = g.host.values_vector<double>();
    auto_delta = std::max(*std::max_element(w.begin(), w.end()), 1e-300) /
                 std::max(1.0, double(g.host.nnz()) / double(g.host.nrows()));
  }
  std::vector<Index> sources(static_cast<std::size_t>(std::min<Index>(bc_sources, g.host.nrows())));
  std::iota(sources.begin(), sources.end(), Index{0});
  const std::vector<Spec> specs = {
      {"bfs",  // the default switch (Beamer's edge counts), the out-degrees given
       [&](Context& c, const Matrix& a) {
         algorithms::BfsOptions o = bopt;
         o.out_degree = &a == &dev ? &degree_dev : &degree_host;
         return bfs_levels(c, a, o);
       },
       0},
      {"bfs_edges",  // the default switch with the out-degrees computed inside the call
       [&](Context& c, const Matrix& a) { return bfs_levels(c, a, bopt); }, 0},
      {"bfs_vertex",  // the vertex-count switch
       [&](Context& c, const Matrix& a) {
         algorithms::BfsOptions o = bopt;
         o.edge_counts = false;
         return bfs_levels(c, a, o);
       },
       0},
      {"sssp_bf",
       [&](Context& c, const Matrix& a) {
         return algorithms::sssp_bellman_ford(a, source, c).distance;
       },
       1e-12},
      {"sssp_delta",
       [&](Context& c, const Matrix& a) {
         return algorithms::sssp_delta_stepping(a, source, 0, c).distance;
       },
       1e-12},
      // The same with 4 and 16 times Meyer and Sanders' bucket width (sssp_delta: 16 times,
      // chosen from these rows on R-MAT 22): which width suits the GPU is measured. Named only.
      {"sssp_delta_x4",
       [&](Context& c, const Matrix& a) {
         return algorithms::sssp_delta_stepping(a, source, 4 * auto_delta, c).distance;
       },
       1e-12, true},
      {"sssp_delta_x16",
       [&](Context& c, const Matrix& a) {
         return algorithms::sssp_delta_stepping(a, source, 16 * auto_delta, c).distance;
       },
       1e-12, true},
      {"pagerank",
       [&](Context& c, const Matrix& a) {
         algorithms::PageRankResult pr = algorithms::pagerank(a, popt, c);
         run_note = std::to_string(pr.iterations) + " iterations";
         return pr.rank;
       },
       1e-9},
      {"tc",
       [&](Context& c, const Matrix& a) {
         return Vector::dense<std::int64_t>({algorithms::triangle_count(a, {}, c)});
       },
       0},
      {"tc_nosort",  // the vertex order kept: no degree sort, no permuted copy of the graph
       [&](Context& c, const Matrix& a) {
         algorithms::TriangleOptions o;
         o.presort = false;
         return Vector::dense<std::int64_t>({algorithms::triangle_count(a, o, c)});
       },
       0},
      {"cc",
       [&](Context& c, const Matrix& a) { return algorithms::connected_components(a, c).label; },
       0},
      {"kcore", [&](Context& c, const Matrix& a) { return algorithms::core_numbers(a, c); }, 0},
      {"bc",
       [&](Context& c, const Matrix& a) { return algorithms::betweenness(a, sources, 64, c); },
       1e-9},
  };
  for (const Spec& spec : specs) {
    if (!selected(only, spec.name) || (spec.named_only && only.empty())) continue;
    Row r;
    r.graph = g.name;
    r.algorithm = spec.name;
    run_note.clear();
    if (!g_row_channel) std::cerr << g.name << " " << spec.name << "...\n";
    // A failing algorithm is reported in its row; the others still run.
    try {
      std::vector<double> want;  // the reference result: the cpu's, else an untimed GPU run's
      bool checked = false;
      const bool cpu_row_here =
          g_cpu_algorithms.empty() || std::find(g_cpu_algorithms.begin(), g_cpu_algorithms.end(),
                                                spec.name) != g_cpu_algorithms.end();
      if (cpu_reps > 0 && cpu_row_here) {
        const CpuRow c = g_cpu_timeout_s > 0 ? cpu_row_in_child(g.name, spec.name)
                                             : cpu_row([&] { return spec.run(cpu, g.host); },
                                                       run_note, cpu_reps, cpu_warm_up, cpu);
        if (g_row_channel) {  // this process is that child: its row goes to the parent
          g_row_channel->finish(encode(c));
          return;
        }
        r.cpu_reps = cpu_reps;
        r.cpu_timed_out = c.timed_out;
        r.cpu_ms = c.ms;
        run_note = c.note;
        want = c.result;
        checked = !c.timed_out;
      }
      // No cpu result: the reference (rates, notes) from an untimed run, on the GPU (a cpu row
      // that ran out of time is not run again on the cpu).
      if (!checked && (have_gpu || !r.cpu_timed_out)) {
        Vector ref = have_gpu ? spec.run(gpu, dev) : spec.run(cpu, g.host);
        if (ref.location() != Location::host) ref = ref.to(Location::host, gpu);
        want = dense<double>(ref.cast(Type::fp64), INFINITY, cpu);
      }
      r.teps = spec.name.rfind("bfs", 0) == 0 || spec.name.rfind("sssp", 0) == 0;
      if (want.empty())
        r.rate = NAN;
      else  // edges for now; divided by the time below
        r.rate = r.teps ? traversed_edges(g, want) : double(g.host.nnz());
      if (have_gpu) {
        Vector gpu_result;
        r.gpu_ms = time_gpu_ms([&] { gpu_result = spec.run(gpu, dev); }, g_reps);
        // One more run with the trace on, to list the operations that fell back to the cpu;
        // with --trace also each operation's wall time (ctx.trace_time: a device sync after
        // each, so this run is not the timed one).
        trace.str("");
        gpu.trace = true;
        gpu.trace_time = g_trace_out != nullptr;
        const TransferCounters before = gpu.transfers;
        // Its wall time (device synchronised at the end) against the sum of the traced
        // operations' times shows the time spent between operations.
        const auto traced_start = std::chrono::steady_clock::now();
        spec.run(gpu, dev);
#if defined(RINGBLAS_HAS_CUDA)
        check(cudaDeviceSynchronize(), "traced run");
#endif
        const double traced_ms = std::chrono::duration<double, std::milli>(
                                     std::chrono::steady_clock::now() - traced_start)
                                     .count();
        gpu.trace = gpu.trace_time = false;
        const TransferCounters& after = gpu.transfers;
        r.syncs = "h2d " + std::to_string(after.host_to_device - before.host_to_device) + ", d2h " +
                  std::to_string(after.device_to_host - before.device_to_host);
        if (g_trace_out)
          *g_trace_out << "=== " << g.name << " " << spec.name << " (" << r.syncs
                       << " copies counted; traced run " << fmt(traced_ms)
                       << " ms wall, timed runs " << fmt(r.gpu_ms) << " ms)\n"
                       << trace.str() << std::flush;
        std::string fb;
        std::istringstream lines(trace.str());
        for (std::string line; std::getline(lines, line);)
          if (line.find("suitesparse (cpu)") != std::string::npos) {  // dispatch chose the cpu
            const std::string op = line.substr(0, line.find(':'));
            if (fb.find(op) == std::string::npos) fb += (fb.empty() ? "" : " ") + op;
          }
        r.fallbacks = fb.empty() ? "none" : fb;
        const Vector h = gpu_result.location() == Location::host
                             ? gpu_result
                             : gpu_result.to(Location::host, gpu);
        const double d = max_rel_diff(dense<double>(h.cast(Type::fp64), INFINITY, gpu), want);
        r.agree = d <= spec.tol ? std::string("yes") : "NO (" + std::to_string(d) + ")";
        if (cpu_reps == 0 || !cpu_row_here) r.agree = "not checked (no cpu row)";
        if (r.cpu_timed_out) r.agree = "not checked (cpu timed out)";
      }
      r.note = run_note;  // of the GPU run when there is one, else of the cpu row
      if (spec.name.rfind("tc", 0) == 0 && !want.empty())
        r.note = std::to_string(std::int64_t(want[0])) + " triangles";
      if (spec.name == "bc") r.note = std::to_string(sources.size()) + " sources";
      if (r.cpu_timed_out)
        r.note += std::string(r.note.empty() ? "" : "; ") + "cpu stopped after " +
                  sig(g_cpu_timeout_s) + " s: cpu ms and speed-up are lower bounds";
      r.rate /= (have_gpu ? r.gpu_ms : r.cpu_ms) * 1e6;       // per ms -> G per s
      if (r.cpu_timed_out) r.cpu_ms = g_cpu_timeout_s * 1e3;  // a lower bound, marked as such
      // Each row as soon as it is measured, so that a run cut short still reports what it did.
      std::cerr << "  " << g.name << " " << spec.name << ": gpu " << r.gpu_ms << " ms, cpu "
                << r.cpu_ms << " ms, " << r.cpu_ms / r.gpu_ms << "x, " << r.rate
                << (r.teps ? " GTEPS" : " G/s") << ", agree " << r.agree << ", cpu fallbacks "
                << r.fallbacks << ", copies " << r.syncs << " " << r.note << '\n';
    } catch (const std::exception& e) {
      if (g_row_channel) throw;  // a cpu row's process: main reports it to the parent
      r.agree = std::string("ERROR: ") + e.what();
      std::cerr << "  " << g.name << " " << spec.name << ": " << r.agree << '\n';
    }
    rows.push_back(r);
    flush();
  }
}

/// The R-MAT graph of `scale` (edge factor 16, rmat()'s seed), read from `cache_dir` when a file
/// of it is there, otherwise generated and written there (when `cache_dir` is not empty). The
/// file: a header of eight int64 (magic, scale, edge factor, seed, n, nnz, type, index type) and
/// the raw row pointer, column index and value arrays.
Matrix rmat_graph(int scale, const std::string& cache_dir) {
  constexpr std::int64_t kMagic = 0x52424c4153524d54;  // "RBLASRMT"
  constexpr int kEdgeFactor = 16;
  constexpr std::uint64_t kSeed = 20261123;  // rmat()'s default
  const std::string path = cache_dir + "/rmat" + std::to_string(scale) + "_ef" +
                           std::to_string(kEdgeFactor) + "_" + std::to_string(kSeed) + ".csr";
  // The arrays' sizes from the header's fields (a buffer may be larger than its array).
  auto arrays_bytes = [](Index n, Index nnz, Type type, IndexType itype) {
    const std::size_t ib = itype == IndexType::i32 ? 4 : 8;
    return std::array<std::size_t, 3>{std::size_t(n + 1) * ib, std::size_t(nnz) * ib,
                                      std::size_t(nnz) * type_size(type)};
  };
  if (!cache_dir.empty() && std::filesystem::exists(path)) {
    std::ifstream in(path, std::ios::binary);
    std::int64_t h[8] = {};
    in.read(reinterpret_cast<char*>(h), sizeof(h));
    if (in && h[0] == kMagic && h[1] == scale && h[2] == kEdgeFactor &&
        h[3] == std::int64_t(kSeed)) {
      const Index n = h[4], nnz = h[5];
      const auto type = static_cast<Type>(h[6]);
      const auto itype = static_cast<IndexType>(h[7]);
      const auto bytes = arrays_bytes(n, nnz, type, itype);
      Buffer rp(bytes[0], Location::host), ci(bytes[1], Location::host),
          va(bytes[2], Location::host);
      for (Buffer* b : {&rp, &ci, &va})
        in.read(static_cast<char*>(b->data()), static_cast<std::streamsize>(b->size()));
      if (in) {
        std::cerr << "read R-MAT scale " << scale << " from " << path << "\n";
        Matrix a = Matrix::from_buffers(n, n, type, itype, nnz, std::move(rp), std::move(ci),
                                        std::move(va));
        a.check_invariants();
        return a;
      }
    }
    std::cerr << "bench_algorithms: " << path << " is not a cached R-MAT " << scale
              << " graph; generating it again\n";
  }
  std::cerr << "generating R-MAT scale " << scale << "...\n";
  Matrix a = test::rmat(scale, kEdgeFactor, kSeed).adjacency;
  if (!cache_dir.empty()) {
    std::filesystem::create_directories(cache_dir);
    const std::string tmp = path + ".tmp";
    std::ofstream out(tmp, std::ios::binary);
    const std::int64_t h[8] = {kMagic,
                               scale,
                               kEdgeFactor,
                               std::int64_t(kSeed),
                               a.nrows(),
                               a.nnz(),
                               std::int64_t(a.type()),
                               std::int64_t(a.index_type())};
    out.write(reinterpret_cast<const char*>(h), sizeof(h));
    const auto bytes = arrays_bytes(a.nrows(), a.nnz(), a.type(), a.index_type());
    out.write(static_cast<const char*>(a.row_ptr().data()), std::streamsize(bytes[0]));
    out.write(static_cast<const char*>(a.col_idx().data()), std::streamsize(bytes[1]));
    out.write(static_cast<const char*>(a.values().data()), std::streamsize(bytes[2]));
    out.close();
    if (out)
      std::filesystem::rename(tmp, path);
    else
      std::cerr << "bench_algorithms: could not write " << path << " (not cached)\n";
  }
  return a;
}

std::string fmt(double v, int digits) {
  if (std::isnan(v)) return "-";
  char b[64];
  std::snprintf(b, sizeof(b), "%.*f", digits, v);
  return b;
}
/// Four significant digits (rates span 1e-4 .. 1e2).
std::string sig(double v) {
  if (std::isnan(v)) return "-";
  char b[64];
  std::snprintf(b, sizeof(b), "%.4g", v);
  return b;
}

int bench_main(int argc, char** argv) {
  std::string json_path, md_path, trace_path, cache_dir, data = RINGBLAS_DATA_DIR;
  std::vector<int> scales = {20, 22};
  bool quick = false;
  int bc_sources = 64;
  std::vector<std::string> only, graphs_only;  // --algorithms, --graphs filters
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--json")
      json_path = next();
    else if (a == "--md")
      md_path = next();
    else if (a == "--data")
      data = next();
    else if (a == "--reps")
      g_reps = std::stoi(next());
    else if (a == "--cpu-reps")
      g_cpu_reps = std::stoi(next());
    else if (a == "--index64")
      g_index32 = false;
    else if (a == "--trace")
      trace_path = next();
    else if (a == "--cpu-timeout")
      g_cpu_timeout_s = std::stod(next());
    else if (a == "--cpu-only")
      g_gpu_runs = false;
    else if (a == "--cpu-row-fd")
      g_row_channel = std::make_unique<bench::TimedChildChannel>(std::stoi(next()));
    else if (a == "--cache")
      cache_dir = next();
    else if (a == "--bc-sources")
      bc_sources = std::stoi(next());
    else if (a == "--quick")
      quick = true;
    else if (a == "--algorithms" || a == "--graphs" || a == "--cpu-algorithms") {
      std::stringstream ss(next());
      for (std::string x; std::getline(ss, x, ',');)
        (a == "--graphs"           ? graphs_only
         : a == "--cpu-algorithms" ? g_cpu_algorithms
                                   : only)
            .push_back(x);
    } else if (a == "--scales") {
      scales.clear();
      std::stringstream ss(next());
      for (std::string s; std::getline(ss, s, ',');) scales.push_back(std::stoi(s));
    } else {
      std::cerr << "usage: bench_algorithms --json out.json --md out.md [--data DIR] [--reps N]"
                   " [--cpu-reps N] [--index64] [--trace FILE] [--quick] [--scales 20,22] "
                   "[--bc-sources K] [--cache DIR] [--cpu-timeout S] [--cpu-only] "
                   "[--cpu-algorithms a,b]"
                   " [--algorithms bfs,tc,...] [--graphs soc-Epinions1,rmat22]\n";
      return 2;
    }
  }
  if ((json_path.empty() || md_path.empty()) && !g_row_channel) {
    std::cerr << "bench_algorithms: --json and --md are required\n";
    return 2;
  }
  if (quick) {
    g_reps = 2;
    scales = {16};
    bc_sources = 16;
  }
  if (g_cpu_timeout_s > 0 && cache_dir.empty() &&
      std::any_of(scales.begin(), scales.end(),
                  [&](int s) { return selected(graphs_only, "rmat" + std::to_string(s)); })) {
    std::cerr << "bench_algorithms: --cpu-timeout with R-MAT graphs needs --cache DIR (each cpu "
                 "row's process reads the graph from there)\n";
    return 2;
  }
  g_argv0 = argv[0];
  std::string scale_list;
  for (int s : scales) scale_list += (scale_list.empty() ? "" : ",") + std::to_string(s);
  g_child_args = {"--cpu-only", "--data", data, "--scales", scale_list};
  using Option = std::pair<const char*, int>;
  for (const Option& o : {Option{"--reps", g_reps}, Option{"--cpu-reps", g_cpu_reps},
                          Option{"--bc-sources", bc_sources}})
    g_child_args.insert(g_child_args.end(), {o.first, std::to_string(o.second)});
  if (!cache_dir.empty()) g_child_args.insert(g_child_args.end(), {"--cache", cache_dir});
  std::ofstream trace_file;
  if (!trace_path.empty()) {
    trace_file.open(trace_path);
    g_trace_out = &trace_file;
  }
  const bool have_gpu = g_gpu_runs && cuda_available();
  const std::string gpu = have_gpu ? gpu_name() : "none";
  std::vector<Graph> graphs;
  // The shared SNAP graphs (read as the CLI reads them: symmetrised, ids compacted); --quick
  // keeps soc-Epinions1 only.
  const std::vector<std::pair<std::string, std::string>> snap = {
      {"soc-Epinions1", "soc-Epinions1_lwcc_undirected.txt.gz"},
      {"p2p-Gnutella31", "p2p-Gnutella31.txt.gz"},
      {"wiki-Vote", "wiki-Vote.txt.gz"},
      {"CA-HepTh", "CA-HepTh.txt.gz"},
      {"facebook_combined", "facebook_combined.txt.gz"}};
  for (const auto& [name, file] : snap) {
    if (!selected(graphs_only, name) || (quick && name != "soc-Epinions1")) continue;
    const std::string path = data + "/snap/" + file;
    if (!std::filesystem::exists(path)) {
      std::cerr << "bench_algorithms: " << path << " absent, skipped\n";
      continue;
    }
    Matrix a = io::read_graph(path).cast(Type::fp64);
    graphs.push_back({name, a, degrees(a)});
  }
  for (int s : scales) {
    if (!selected(graphs_only, "rmat" + std::to_string(s))) continue;
    Matrix a = rmat_graph(s, cache_dir);
    graphs.push_back({"rmat" + std::to_string(s), a, degrees(a)});
  }
  std::vector<Row> rows;
  if (g_row_channel) {  // a cpu row's process: one graph, one algorithm, no reports
    if (graphs.size() != 1 || only.size() != 1)
      throw std::runtime_error("a cpu row's process needs one graph and one algorithm");
    run_graph(graphs[0], false, bc_sources, only, rows, [] {});
    return 0;
  }
  auto write_reports = [&] {
    std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof(date), "%Y-%m-%d", std::gmtime(&now));
    std::ofstream md(md_path);
    md << "# Graph algorithms: GPU vs cpu executor (" << gpu << ", " << date << ")\n\n"
       << "Median of " << g_reps
       << " GPU runs (CUDA events, after warm-up; the graph on the device "
       << (g_index32 ? "with 32-bit indices" : "as read") << ") and the cpu runs of the 'cpu runs' "
       << "column (SuiteSparse:GraphBLAS, all cores; after a warm-up except on graphs over "
       << kLargeGraph
       << " entries). BFS/SSSP rate: Graph500 GTEPS (input edges "
          "in the source's component / time); others: nnz(A) / time in G/s. 'fallbacks': "
          "operations "
          "that ran on the cpu inside the GPU run. BFS and SSSP start at the highest-degree vertex "
          "(one root, not Graph500's 64).\n\n"
       << "| graph | n | nnz | algorithm | GPU ms | cpu ms | cpu runs | speed-up | rate | agree | "
          "fallbacks | note |\n"
       << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    std::ofstream js(json_path);
    js << "{\n  \"gpu\": \"" << gpu << "\",\n  \"date\": \"" << date << "\",\n  \"results\": [\n";
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const Row& r = rows[k];
      const Graph& g = *std::find_if(graphs.begin(), graphs.end(),
                                     [&](const Graph& x) { return x.name == r.graph; });
      md << "| " << r.graph << " | " << g.host.nrows() << " | " << g.host.nnz() << " | "
         << r.algorithm << " | " << fmt(r.gpu_ms) << " | " << (r.cpu_timed_out ? "> " : "")
         << fmt(r.cpu_ms) << " | " << r.cpu_reps << " | "
         << (r.cpu_timed_out && !std::isnan(r.gpu_ms) ? "> " : "") << fmt(r.cpu_ms / r.gpu_ms, 1)
         << " | " << sig(r.rate) << (r.teps ? " GTEPS" : "") << " | "
         << (r.agree.empty() ? "-" : r.agree) << " | " << (r.fallbacks.empty() ? "-" : r.fallbacks)
         << " | " << r.note << " |\n";
      js << "    {\"graph\": \"" << r.graph << "\", \"n\": " << g.host.nrows()
         << ", \"nnz\": " << g.host.nnz() << ", \"algorithm\": \"" << r.algorithm
         << "\", \"gpu_ms\": " << (std::isnan(r.gpu_ms) ? "null" : fmt(r.gpu_ms, 4))
         << ", \"cpu_ms\": " << (std::isnan(r.cpu_ms) ? "null" : fmt(r.cpu_ms, 4))
         << ", \"cpu_timed_out\": " << (r.cpu_timed_out ? "true" : "false")
         << ", \"cpu_runs\": " << r.cpu_reps
         << ", \"rate\": " << (std::isnan(r.rate) ? "null" : sig(r.rate)) << ", \"rate_unit\": \""
         << (r.teps ? "GTEPS" : "Gedges/s") << "\", \"agree\": \"" << r.agree
         << "\", \"fallbacks\": \"" << r.fallbacks << "\", \"note\": \"" << r.note << "\"}"
         << (k + 1 < rows.size() ? "," : "") << "\n";
    }
    js << "  ]\n}\n";
  };
  for (const Graph& g : graphs) run_graph(g, have_gpu, bc_sources, only, rows, write_reports);
  write_reports();
  std::cout << "wrote " << md_path << " and " << json_path << '\n';
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return bench_main(argc, argv);
  } catch (const std::exception& e) {
    if (g_row_channel) g_row_channel->fail(e.what());  // the parent reports it in the row
    std::cerr << "bench_algorithms: " << e.what() << '\n';
    return 1;
  }
}
