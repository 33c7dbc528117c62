// Markov clustering: ringblas (mcl::cluster, automatic backend: cuda kernels) against van Dongen's
// mcl 22-282 (the peer, run as a process with 16 threads) in the same run, on the Krogan core and
// extended and Gavin PPI networks, soc-Epinions1 and a generated planted-cluster graph.
//
// Usage: bench_mcl --mcl PATH_TO_MCL [--out PREFIX] [--data DIR] [--work DIR] [--threads 16]
//                  [--backend auto|cuda|cpu] [--inflation 2.0] [--nodes 1000000] [--degree 100]
//                  [--repeats 3] [--no-generated] [--max-memory BYTES]
//                  [--graphs krogan_core,krogan_extended,gavin,soc-Epinions1,planted]
//                  [--types fp64,fp32] [--no-peer] [--scheme 1..7] [--peer-timeout S]
// --types runs ringblas with each iterand type (a row per type; mcl computes in float, see
// README); --no-peer skips the mcl run (for a generated graph mcl would take minutes on), and
// then builds the planted graph in memory instead of writing and reading its label file (the
// 'read' column is then its generation). --scheme k takes mcl's pruning scheme k (`mcl
// --show-schemes`: -P/-S/-R/-pct; 6 is mcl's default) for both tools.
// --peer-timeout S stops mcl after S seconds (`timeout S mcl ...`): its cells then read "> S" and
// the speed-up is a lower bound (for the generated graph, which mcl takes long on).
// --max-memory is mcl::Options::memory_budget_bytes (default on a GPU: 60% of its free memory).
// Writes PREFIX.md and PREFIX.json (default tests/bench/results/mcl_<gpu>). Times:
// - ringblas: wall time of mcl::cluster from the graph on the device to the clusters on the host
//   (file reading and the host->device copy excluded), median of --repeats after a warm-up
//   (one run over 200k edges; over 5M edges one run without warm-up); peak device memory sampled
//   with cudaMemGetInfo every 5 ms (pool cache included).
// - mcl: wall time of `mcl FILE --abc -I f -te T -o OUT`, its reading of the label file included
//   (ringblas's own read time of the same file is listed for comparison); one run.
// Agreement: split/join distance (van Dongen 2000; `clm dist` d1 + d2) between the two
// clusterings, by labels. The generated graph: nodes in planted clusters of 64..192 nodes, each
// node with about 90% of --degree edges inside its cluster and 10% to uniform random nodes
// (a planted-partition model), fixed seed, written as label triples for both tools.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "algorithms/mcl.hpp"
#include "ringblas/ringblas.hpp"
#if defined(RINGBLAS_HAS_CUDA)
#include <cuda_runtime.h>
#endif

using namespace ringblas;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
using Clustering = std::vector<std::vector<std::string>>;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

Clustering read_clustering(const std::string& path) {
  std::ifstream in(path);
  Clustering out;
  std::string line, field;
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::istringstream f(line);
    while (std::getline(f, field, '\t')) c.push_back(field);
    out.push_back(std::move(c));
  }
  return out;
}

/// Split/join distance d1 + d2 as `clm dist` defines it (labels missing from b count as moved).
long split_join(const Clustering& a, const Clustering& b) {
  std::unordered_map<std::string, std::size_t> in_b;
  for (std::size_t k = 0; k < b.size(); ++k)
    for (const auto& x : b[k]) in_b[x] = k;
  std::map<std::pair<std::size_t, std::size_t>, long> meet;
  long n = 0, nb = 0;
  for (const auto& c : b) nb += long(c.size());
  for (std::size_t k = 0; k < a.size(); ++k)
    for (const auto& x : a[k]) {
      ++n;
      const auto it = in_b.find(x);
      if (it != in_b.end()) ++meet[{k, it->second}];
    }
  std::vector<long> ba(a.size(), 0), bb(b.size(), 0);
  for (const auto& [key, m] : meet) {
    ba[key.first] = std::max(ba[key.first], m);
    bb[key.second] = std::max(bb[key.second], m);
  }
  long sa = 0, sb = 0;
  for (long v : ba) sa += v;
  for (long v : bb) sb += v;
  return (n - sa) + (nb - sb);
}

/// Peak device memory in use while alive (cudaMemGetInfo sampled every 5 ms), in bytes.
class PeakMemory {
 public:
  PeakMemory() {
#if defined(RINGBLAS_HAS_CUDA)
    std::size_t free_b = 0, total = 0;
    cudaMemGetInfo(&free_b, &total);
    peak_ = total - free_b;
    thread_ = std::thread([this] {
      while (!stop_) {
        std::size_t f = 0, t = 0;
        if (cudaMemGetInfo(&f, &t) == cudaSuccess) peak_ = std::max<std::size_t>(peak_, t - f);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    });
#endif
  }
  std::size_t stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return peak_;
  }
  ~PeakMemory() { stop(); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> peak_{0};
  std::thread thread_;
};

std::string gpu_name() {
#if defined(RINGBLAS_HAS_CUDA)
  cudaDeviceProp p{};
  if (cuda_available() && cudaGetDeviceProperties(&p, 0) == cudaSuccess) return p.name;
#endif
  return "no GPU";
}

/// SNAP edge list -> label triples (tab-separated, weight 1), comments dropped.
void snap_to_abc(const std::string& snap, const std::string& abc) {
  std::istringstream in(io::read_file_text(snap));
  std::ofstream out(abc);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line[0] == '%') continue;
    std::istringstream f(line);
    std::string a, b;
    if (f >> a >> b) out << a << '\t' << b << "\t1\n";
  }
}

void gzip_to_text(const std::string& gz, const std::string& text) {
  std::ofstream(text) << io::read_file_text(gz);
}

/// The planted-partition graph described at the top, as label triples: per cluster of size s,
/// s * 0.45 * degree distinct node pairs inside it (at most 90% of its pairs), and per node
/// 0.05 * degree edges to uniform random nodes, so about nodes * degree / 2 edges in all.
/// The planted-partition graph's edges (u, v), each once, in a fixed order for a seed.
template <class Edge>
void planted_edges(long nodes, int degree, unsigned seed, Edge&& edge) {
  std::mt19937_64 gen(seed);
  std::vector<long> start{0};
  std::uniform_int_distribution<long> size(64, 192);
  while (start.back() < nodes) start.push_back(std::min(nodes, start.back() + size(gen)));
  std::uniform_int_distribution<long> any(0, nodes - 1);
  const double inside = 0.45 * degree, outside = 0.05 * degree;
  std::unordered_map<long, char> taken;
  for (std::size_t c = 0; c + 1 < start.size(); ++c) {
    const long lo = start[c], s = start[c + 1] - lo;
    const long pairs = s * (s - 1) / 2;
    const long want = std::min(long(inside * double(s)), pairs * 9 / 10);
    std::uniform_int_distribution<long> member(0, s - 1);
    taken.clear();
    while (long(taken.size()) < want) {
      long a = member(gen), b = member(gen);
      if (a == b) continue;
      if (a > b) std::swap(a, b);
      if (taken.emplace(a * s + b, 1).second) edge(lo + a, lo + b);
    }
    for (long u = lo; u < lo + s; ++u) {
      std::uniform_real_distribution<double> frac(0.0, 1.0);
      long k = long(outside) + (frac(gen) < outside - double(long(outside)) ? 1 : 0);
      while (k-- > 0) {
        const long v = any(gen);
        if (v < lo || v >= lo + s) edge(u, v);
      }
    }
  }
}

void generate_planted(const std::string& abc, long nodes, int degree, unsigned seed) {
  std::ofstream out(abc);
  std::string buf;
  planted_edges(nodes, degree, seed, [&](long u, long v) {
    buf += std::to_string(u);
    buf += '\t';
    buf += std::to_string(v);
    buf += "\t1\n";
    if (buf.size() > (1u << 24)) out << buf, buf.clear();
  });
  out << buf;
}

/// The same graph built in memory (symmetric, weights 1, repeated pairs once), for runs without
/// the peer: no 50M-line text file to write and read back. Node i is labelled "i".
Matrix planted_matrix(long nodes, int degree, unsigned seed) {
  std::vector<std::uint64_t> edges;
  planted_edges(nodes, degree, seed, [&](long u, long v) {
    edges.push_back(std::uint64_t(u) << 32 | std::uint64_t(v));
  });
  std::vector<Index> rp(std::size_t(nodes) + 1, 0);
  for (std::uint64_t e : edges) ++rp[(e >> 32) + 1], ++rp[(e & 0xffffffffu) + 1];
  for (long i = 0; i < nodes; ++i) rp[std::size_t(i) + 1] += rp[std::size_t(i)];
  std::vector<Index> fill(rp.begin(), rp.end() - 1), ci(std::size_t(rp.back()));
  for (std::uint64_t e : edges) {
    const Index u = Index(e >> 32), v = Index(e & 0xffffffffu);
    ci[std::size_t(fill[std::size_t(u)]++)] = v;
    ci[std::size_t(fill[std::size_t(v)]++)] = u;
  }
  edges = {};
  std::vector<Index> orp(std::size_t(nodes) + 1, 0), oci;
  oci.reserve(ci.size());
  for (long i = 0; i < nodes; ++i) {
    auto b = ci.begin() + rp[std::size_t(i)], e = ci.begin() + rp[std::size_t(i) + 1];
    std::sort(b, e);
    oci.insert(oci.end(), b, std::unique(b, e));
    orp[std::size_t(i) + 1] = Index(oci.size());
  }
  return Matrix::from_csr(Index(nodes), Index(nodes), orp, oci,
                          std::vector<double>(oci.size(), 1.0));
}

struct Row {
  std::string name;
  long nodes = 0, edges = 0;
  double read_s = 0, ringblas_s = 0, mcl_s = 0;
  int iterations = 0, mcl_iterations = 0;
  std::size_t peak_bytes = 0;
  long clusters = 0, mcl_clusters = 0, split_join = -1;
  bool mcl_stopped = false;  ///< mcl ran past --peer-timeout: mcl_s is a lower bound
  std::string note;
};

int count_mcl_iterations(const std::string& log) {
  // mcl's progress lines start with the iteration number ("  3  .....  12.41  0.05 ...").
  std::ifstream in(log);
  std::string line, first, next;
  int n = 0;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    if (!(f >> first) || !(f >> next)) continue;
    if (std::all_of(first.begin(), first.end(), [](char c) { return c >= '0' && c <= '9'; }))
      n = std::max(n, std::stoi(first));
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mcl_bin, out_prefix, data = RINGBLAS_DATA_DIR, work = "/tmp/ringblas_bench_mcl";
  std::string backend = "auto";
  int threads = 16, repeats = 3, degree = 100;
  long nodes = 1000000;
  double inflation = 2.0;
  bool generated = true;
  std::size_t max_memory = 0;
  std::string graphs = "krogan_core,krogan_extended,gavin,soc-Epinions1,planted";
  std::string types = "fp64";
  bool peer = true;
  int scheme = 6;  // mcl's default: -P 10000 -S 1100 -R 1400 -pct 90
  double peer_timeout = 0;  // --peer-timeout S: mcl stopped after S s (0: no limit)
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--mcl")
      mcl_bin = next();
    else if (a == "--out")
      out_prefix = next();
    else if (a == "--data")
      data = next();
    else if (a == "--work")
      work = next();
    else if (a == "--threads")
      threads = std::stoi(next());
    else if (a == "--backend")
      backend = next();
    else if (a == "--inflation")
      inflation = std::stod(next());
    else if (a == "--nodes")
      nodes = std::stol(next());
    else if (a == "--degree")
      degree = std::stoi(next());
    else if (a == "--repeats")
      repeats = std::stoi(next());
    else if (a == "--max-memory")
      max_memory = std::stoull(next());
    else if (a == "--no-generated")
      generated = false;
    else if (a == "--graphs")
      graphs = next();
    else if (a == "--types")
      types = next();
    else if (a == "--no-peer")
      peer = false;
    else if (a == "--scheme")
      scheme = std::stoi(next());
    else if (a == "--peer-timeout")
      peer_timeout = std::stod(next());
    else {
      std::cerr << "unknown option " << a
                << "\nusage: bench_mcl --mcl PATH [--out PREFIX] [--data DIR] "
                   "[--work DIR] [--threads T] [--backend cuda|cpu] [--inflation f] [--nodes N] "
                   "[--degree D] [--repeats R] [--no-generated] [--max-memory BYTES] [--graphs "
                   "a,b,...] [--types fp64,fp32] [--no-peer] [--scheme 1..7] [--peer-timeout S]\n";
      return 2;
    }
  }
  // mcl --show-schemes (22-282): pruning, selection, recovery, recover percentage.
  static const int schemes[7][4] = {
      {3000, 400, 500, 90}, {4000, 500, 600, 90},    {5000, 600, 700, 90},   {6000, 700, 800, 90},
      {7000, 800, 900, 90}, {10000, 1100, 1400, 90}, {10000, 1200, 1600, 90}};
  if (scheme < 1 || scheme > 7) {
    std::cerr << "bench_mcl: --scheme takes 1..7 (mcl --show-schemes)\n";
    return 2;
  }
  if (mcl_bin.empty()) {
    std::cerr << "bench_mcl: --mcl PATH_TO_MCL is required (the peer)\n";
    return 2;
  }
  const std::string gpu = gpu_name();
  if (out_prefix.empty()) {
    std::string tag = gpu;
    for (char& c : tag)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    out_prefix = "tests/bench/results/mcl_" + tag;
  }
  fs::create_directories(work);
  struct Input {
    std::string name, abc;  ///< abc empty: the planted graph built in memory (no peer)
  };
  std::vector<Input> inputs;
  const auto wanted = [&](const std::string& name) {
    return ("," + graphs + ",").find("," + name + ",") != std::string::npos;
  };
  const std::string ppi = data + "/mcl/ppi_yeast/";
  const struct {
    const char* name;
    std::string source;
    bool snap;
  } known[] = {{"krogan_core", ppi + "krogan2006_core.txt.gz", false},
               {"krogan_extended", ppi + "krogan2006_extended.txt.gz", false},
               {"gavin", ppi + "gavin2006_socioaffinities_rescaled.txt.gz", false},
               {"soc-Epinions1", data + "/snap/soc-Epinions1_lwcc_undirected.txt.gz", true}};
  for (const auto& k : known) {
    if (!wanted(k.name)) continue;
    const std::string abc = work + "/" + k.name + ".abc";
    if (k.snap)
      snap_to_abc(k.source, abc);
    else
      gzip_to_text(k.source, abc);
    inputs.push_back({k.name, abc});
  }
  if (generated && wanted("planted")) {
    const std::string g =
        work + "/planted_" + std::to_string(nodes) + "_" + std::to_string(degree) + ".abc";
    if (!peer) {
      inputs.push_back({"planted_" + std::to_string(nodes), ""});
    } else {
      if (!fs::exists(g)) {
        std::cerr << "generating " << g << "\n";
        generate_planted(g, nodes, degree, 12345);
      }
      inputs.push_back({"planted_" + std::to_string(nodes), g});
    }
  }

  Context ctx(parse_backend(backend));
#if defined(RINGBLAS_HAS_CUDA)
  // Without --max-memory: 60% of the free device memory, so that expansions that cannot be held
  // whole (soc-Epinions1's second product has about 2e9 entries) run in row phases.
  if (max_memory == 0 && backend != "cpu" && cuda_available()) {
    std::size_t free_b = 0, total = 0;
    if (cudaMemGetInfo(&free_b, &total) == cudaSuccess) max_memory = free_b / 10 * 6;
  }
#endif
  std::vector<Row> rows;
  std::vector<Type> type_list;
  {
    std::stringstream ts(types);
    std::string t;
    while (std::getline(ts, t, ',')) type_list.push_back(parse_type(t));
  }
  for (const Input& in : inputs) {
    std::cerr << "== " << in.name << "\n";
    const auto tr = Clock::now();
    std::vector<std::string> labels;
    const Matrix g =
        in.abc.empty() ? planted_matrix(nodes, degree, 12345) : io::read_abc(in.abc, &labels);
    for (Index i = Index(labels.size()); i < g.nrows(); ++i) labels.push_back(std::to_string(i));
    const double read_s = seconds_since(tr);
    Clustering theirs;
    double mcl_s = 0;
    long mcl_clusters = 0;
    int mcl_iterations = 0;
    std::string mcl_note;
    bool mcl_stopped = false;
    if (peer) {
      const std::string mcl_out = work + "/" + in.name + ".mcl.out",
                        mcl_log = work + "/" + in.name + ".mcl.log";
      const std::string limit =
          peer_timeout > 0 ? "timeout " + std::to_string(peer_timeout) + " " : std::string();
      const std::string cmd = limit + mcl_bin + " " + in.abc + " --abc -I " + std::to_string(inflation) +
                              " -scheme " + std::to_string(scheme) + " -te " +
                              std::to_string(threads) + " -o " + mcl_out + " 2> " + mcl_log;
      const auto tm = Clock::now();
      const int rc = std::system(cmd.c_str());
      mcl_s = seconds_since(tm);
      if (peer_timeout > 0 && WIFEXITED(rc) && WEXITSTATUS(rc) == 124) {
        mcl_stopped = true;  // timeout(1)'s status when it stopped mcl
        mcl_s = peer_timeout;
        mcl_note = " mcl stopped after " + std::to_string(int(peer_timeout)) +
                   " s (--peer-timeout): its time and the speed-up are lower bounds";
      } else if (rc != 0) {
        mcl_note = " mcl exited with " + std::to_string(rc) + " (see " + mcl_log + ")";
      } else {
        theirs = read_clustering(mcl_out);
        mcl_clusters = long(theirs.size());
        mcl_iterations = count_mcl_iterations(mcl_log);
      }
    } else {
      mcl_note = " mcl not run (--no-peer)";
    }
    for (const Type type : type_list) {
      Row r;
      r.name = in.name + (type == Type::fp64 ? "" : " (" + std::string(type_name(type)) + ")");
      r.read_s = read_s;
      r.nodes = g.nrows();
      r.edges = g.nnz() / 2;
      mcl::Options opt;
      opt.inflation = inflation;
      opt.memory_budget_bytes = max_memory;
      opt.type = type;
      opt.prune = schemes[scheme - 1][0];
      opt.select = schemes[scheme - 1][1];
      opt.recover = schemes[scheme - 1][2];
      opt.recover_pct = schemes[scheme - 1][3];
      const bool on_device = ctx.backend != Backend::cpu && cuda_available();
      const Matrix gt = g.cast(type);
      const Matrix gd = on_device ? gt.to(Location::device, ctx) : gt;
      // Graphs over 5M edges run once without a warm-up, over 200k edges once after one.
      const bool big = r.edges > 5000000;
      const int reps = r.edges > 200000 ? 1 : repeats;
      std::vector<double> times;
      mcl::Result res;
      std::size_t peak = 0;
      try {
        if (!big) res = mcl::cluster(gd, opt, ctx);  // warm-up
        for (int k = 0; k < reps; ++k) {
          PeakMemory pm;
          const auto t0 = Clock::now();
          // Progress per iteration on stderr for big graphs (a run cut short still tells).
          const auto progress = [&](const mcl::IterationInfo& it) {
            std::cerr << "  iteration " << it.iteration << ": chaos " << it.chaos << ", expanded "
                      << it.expanded_nnz << ", kept " << it.nnz << ", phases " << it.phases
                      << ", at " << seconds_since(t0) << " s" << std::endl;
          };
          res = big ? mcl::cluster(gd, opt, ctx, progress) : mcl::cluster(gd, opt, ctx);
          times.push_back(seconds_since(t0));
          peak = std::max(peak, pm.stop());
        }
      } catch (const Error& e) {
        r.note = std::string("ringblas failed: ") + e.what();
        std::cerr << r.note << "\n";
      }
      if (!times.empty()) {
        std::sort(times.begin(), times.end());
        r.ringblas_s = times[times.size() / 2];
        r.iterations = res.iterations;
        r.peak_bytes = peak;
        r.clusters = long(res.clusters.size());
      }
      Clustering ours;
      for (const auto& c : res.clusters) {
        std::vector<std::string> l;
        for (Index i : c) l.push_back(labels[std::size_t(i)]);
        ours.push_back(std::move(l));
      }
      r.mcl_s = mcl_s;
      r.mcl_stopped = mcl_stopped;
      r.mcl_clusters = mcl_clusters;
      r.mcl_iterations = mcl_iterations;
      r.note += mcl_note;
      if (!times.empty() && !theirs.empty()) r.split_join = split_join(ours, theirs);
      std::cerr << r.name << ": ringblas " << r.ringblas_s << " s, " << r.iterations
                << " iterations, " << r.clusters << " clusters, peak "
                << double(r.peak_bytes) / (1 << 20) << " MiB; mcl " << r.mcl_s << " s, "
                << r.mcl_clusters << " clusters; split/join " << r.split_join << std::endl;
      rows.push_back(r);
    }
  }

  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof(date), "%Y-%m-%d", std::gmtime(&now));
  std::ofstream md(out_prefix + ".md"), js(out_prefix + ".json");
  md << "# Markov clustering: ringblas vs mcl 22-282 (" << gpu << ", " << date << ")\n\n"
     << "ringblas: `mcl::cluster` on the " << backend << " backend, -I " << inflation
     << " and mcl's pruning scheme " << scheme
     << (scheme == 6 ? " (its default)" : " (not its default: mcl --show-schemes)")
     << "; wall time from the graph on the device to the clusters on the "
        "host (file reading and the copy to the device excluded), median of "
     << repeats
     << " after a warm-up (one run after a warm-up over 200k edges, one without over 5M edges). "
        "mcl: wall time of `mcl FILE "
        "--abc -I "
     << inflation << " -scheme " << scheme << " -te " << threads
     << "`, reading of the label file included (ringblas's read time of the same file in the "
        "'read' column). Peak memory: cudaMemGetInfo sampled every 5 ms, pool cache included. "
        "split/join: van Dongen's distance (clm dist d1 + d2) between the two clusterings. "
        "Expansion "
        "memory budget: "
     << max_memory << " bytes (0: none; row phases when the product does not fit).\n\n"
     << "| graph | nodes | edges | ringblas (s) | mcl (s) | speed-up | iterations (rb/mcl) | peak "
        "device "
        "memory (MiB) | clusters (rb/mcl) | split/join | read (s) | note |\n"
     << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  js << "{\n  \"memory_budget_bytes\": " << max_memory << ",\n  \"gpu\": \"" << gpu
     << "\",\n  \"date\": \"" << date << "\",\n  \"backend\": \"" << backend
     << "\",\n  \"inflation\": " << inflation << ",\n  \"scheme\": " << scheme
     << ",\n  \"mcl_threads\": " << threads << ",\n  \"rows\": [\n";
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Row& r = rows[k];
    // Without the peer (--no-peer) its cells say so, rather than 0 and -1.
    const bool ran = r.mcl_s > 0;
    char mcl_s[32] = "—", speed[32] = "—", mcl_it[32] = "—", mcl_cl[32] = "—", sj[32] = "—";
    if (ran && r.mcl_stopped) {
      std::snprintf(mcl_s, sizeof mcl_s, "> %.0f", r.mcl_s);
      std::snprintf(speed, sizeof speed, "> %.1fx",
                    r.ringblas_s > 0 ? r.mcl_s / r.ringblas_s : 0.0);
    } else if (ran) {
      std::snprintf(mcl_s, sizeof mcl_s, "%.3f", r.mcl_s);
      std::snprintf(speed, sizeof speed, "%.1fx", r.ringblas_s > 0 ? r.mcl_s / r.ringblas_s : 0.0);
      std::snprintf(mcl_it, sizeof mcl_it, "%d", r.mcl_iterations);
      std::snprintf(mcl_cl, sizeof mcl_cl, "%ld", r.mcl_clusters);
      std::snprintf(sj, sizeof sj, "%ld", r.split_join);
    }
    char line[512];
    std::snprintf(line, sizeof(line),
                  "| %s | %ld | %ld | %.3f | %s | %s | %d/%s | %.0f | %ld/%s | %s | %.2f | %s |\n",
                  r.name.c_str(), r.nodes, r.edges, r.ringblas_s, mcl_s, speed, r.iterations,
                  mcl_it, double(r.peak_bytes) / (1 << 20), r.clusters, mcl_cl, sj, r.read_s,
                  r.note.c_str());
    md << line;
    js << "    {\"graph\": \"" << r.name << "\", \"nodes\": " << r.nodes
       << ", \"edges\": " << r.edges << ", \"ringblas_s\": " << r.ringblas_s
       << ", \"mcl_s\": " << r.mcl_s
       << ", \"mcl_stopped\": " << (r.mcl_stopped ? "true" : "false") << ", \"iterations\": " << r.iterations
       << ", \"mcl_iterations\": " << r.mcl_iterations
       << ", \"peak_device_bytes\": " << r.peak_bytes << ", \"clusters\": " << r.clusters
       << ", \"mcl_clusters\": " << r.mcl_clusters << ", \"split_join\": " << r.split_join
       << ", \"read_s\": " << r.read_s << "}" << (k + 1 < rows.size() ? "," : "") << "\n";
  }
  js << "  ]\n}\n";
  std::cerr << "wrote " << out_prefix << ".md and .json\n";
  return 0;
}
