// `ringblas mcl FILE`: Markov clustering with mcl's options, output and progress lines.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "algorithms/mcl.hpp"
#include "cli.hpp"
#include "ringblas/context.hpp"
#include "ringblas/error.hpp"
#include "ringblas/ops.hpp"
#if defined(RINGBLAS_HAS_CUDA)
#include <cuda_runtime.h>
#endif

namespace ringblas::cli {

namespace {
/// How much of FILE (inflated) is searched for mcl's "(mclheader": its native files open with it,
/// so the sniff reads a little instead of the whole file before it is read again as a graph.
/// A file named .mci (or .mci.gz) is read as mcl's format whatever its first bytes.
constexpr std::size_t kMciSniffBytes = std::size_t{64} << 10;
constexpr const char* kUsage =
    "usage: ringblas mcl FILE [options]\n"
    "  Markov clustering as mcl 22-282 computes it (same options, same clusters, same output)\n"
    "  FILE: mcl's native matrix (.mci, or '(mclheader' in its first 64 KiB), label triples with --abc,\n"
    "        Matrix Market (clustered as written), or a SNAP edge list (plain or gzip; its pairs\n"
    "        are undirected edges, symmetrised as --abc symmetrises label pairs)\n"
    "  --abc          FILE holds 'label<TAB>label[<TAB>weight]' lines; labels are written\n"
    "  -I f           inflation (default 2.0)\n"
    "  -P n           prune entries below 1/n (default 10000)\n"
    "  -S n           keep at most the n largest entries per column (default 1100)\n"
    "  -R n           recover up to n entries when pruning lost too much mass (default 1400)\n"
    "  -pct n, --pct n  ... that is, when less than n percent was kept (default 90)\n"
    "  -c f           multiply the loop weights by f\n"
    "  -L n           at most n iterations (default 10000)\n"
    "  -o FILE        output file, '-' for stdout (default out.<FILE's name>.I<10*I>, as mcl)\n"
    "  --type T       fp64 (default) or fp32 values in the iterands (fp32 is mcl's own cell\n"
    "                 type and faster on a GPU, but there ties between symmetric entries are\n"
    "                 broken by the order of its sums and can take extra iterations: README)\n"
    "  --max-memory B bytes the expansion may use (expands in row phases; default: 60% of\n"
    "                 the free device memory on a GPU, no limit on the cpu)\n"
    "  --backend B    auto (default), cpu, cuda, verify\n"
    "  -q             no progress lines\n"
    "  --trace        every operation's variant and wall time on stderr (a profile)\n"
    "  output: one cluster per line, tab-separated labels (indices without --abc), largest first\n"
    "  exit status: 0 success, 1 error (message on stderr), 2 bad usage\n";

double number(Args& args, const std::optional<std::string>& v, const char* name, double dflt) {
  if (!v) return dflt;
  try {
    std::size_t used = 0;
    const double x = std::stod(*v, &used);
    if (used == v->size()) return x;
  } catch (const std::exception&) {
  }
  args.usage_error(std::string(name) + " takes a number, not '" + *v + "'");
}

/// mcl's output name: out.<name>.I<10 * inflation, without trailing zero digits beyond two>.
std::string default_output(const std::string& path, double inflation) {
  const std::size_t slash = path.find_last_of('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  char tag[32];
  std::snprintf(tag, sizeof(tag), "%d", static_cast<int>(std::lround(inflation * 10)));
  return "out." + base + ".I" + tag;
}
}  // namespace

int cmd_mcl(Args& args) {
  args.set_usage(kUsage);
  if (args.help()) {
    std::cout << kUsage;
    return 0;
  }
  const bool abc = args.flag("--abc");
  const bool quiet = args.flag("-q");
  const bool trace = args.flag("--trace");
  mcl::Options opt;
  opt.inflation = number(args, args.option("-I"), "-I", opt.inflation);
  opt.prune = number(args, args.option("-P"), "-P", opt.prune);
  opt.select = static_cast<Index>(number(args, args.option("-S"), "-S", double(opt.select)));
  opt.recover = static_cast<Index>(number(args, args.option("-R"), "-R", double(opt.recover)));
  auto pct = args.option("-pct");
  if (!pct) pct = args.option("--pct");
  opt.recover_pct = number(args, pct, "-pct", opt.recover_pct);
  opt.loop_factor = number(args, args.option("-c"), "-c", opt.loop_factor);
  opt.max_iterations =
      static_cast<Index>(number(args, args.option("-L"), "-L", double(opt.max_iterations)));
  if (const auto t = args.option("--type")) opt.type = parse_type(*t);
  opt.memory_budget_bytes =
      static_cast<std::size_t>(number(args, args.option("--max-memory"), "--max-memory", 0));
  const auto out_opt = args.option("-o");
  const auto backend_opt = args.option("--backend");
  const std::string path = args.positionals(1, 1)[0];

  Context ctx(parse_backend(backend_opt.value_or("auto")));
  std::vector<std::string> labels;
  Matrix graph;
  if (abc) {
    graph = io::read_abc(path, &labels);
  } else if (path.ends_with(".mci") || path.ends_with(".mci.gz") ||
             io::read_file_head(path, kMciSniffBytes).find("(mclheader") != std::string::npos) {
    graph = io::read_mci(path);
  } else {
    io::MatrixInfo info;
    bool matrix_market = false;
    graph = load_matrix(path, &info, &matrix_market).cast(Type::fp64);
    // A SNAP edge list is a list of undirected pairs, as the same pairs given to mcl --abc:
    // symmetrised the way read_abc symmetrises (A ∪ Aᵀ, the larger weight where both exist).
    // A Matrix Market file is clustered as written, as mcl clusters a native matrix.
    if (!matrix_market) {
      if (graph.nrows() != graph.ncols())
        throw DimensionMismatch(path + ": mcl needs a square matrix, this one is " +
                                std::to_string(graph.nrows()) + " x " +
                                std::to_string(graph.ncols()));
      Matrix t(graph.nrows(), graph.ncols(), Type::fp64), s(graph.nrows(), graph.ncols(), Type::fp64);
      transpose(t, nullptr, no_accum, graph, {}, ctx);
      ewise_add(s, nullptr, no_accum, BinaryOpCode::max, graph, t, {}, ctx);
      graph = std::move(s);
    }
  }
  ctx.trace = ctx.trace_time = trace;
#if defined(RINGBLAS_HAS_CUDA)
  if (opt.memory_budget_bytes == 0 && ctx.backend != Backend::cpu && cuda_available()) {
    std::size_t free_b = 0, total = 0;
    if (cudaMemGetInfo(&free_b, &total) == cudaSuccess) opt.memory_budget_bytes = free_b / 10 * 6;
  }
#endif
  // On a GPU the iterands live on the device from the start.
  // In the iterands' type (--type) before it moves: mcl::cluster casts only host graphs, and a
  // symmetrised SNAP graph may already be on the device (a typecasting identity apply works at
  // either place).
  if (graph.type() != opt.type) {
    Matrix typed(graph.nrows(), graph.ncols(), opt.type);
    apply(typed, nullptr, no_accum, UnaryOpCode::identity, graph, {}, ctx);
    graph = std::move(typed);
  }
  if (ctx.backend != Backend::cpu && cuda_available()) graph = graph.to(Location::device, ctx);
  if (!quiet && opt.memory_budget_bytes)
    std::fprintf(stderr, "[ringblas mcl] expansion budget %zu bytes\n", opt.memory_budget_bytes);
  // Timed from here: the file has been read and the graph copied to where it is clustered.
  const auto t0 = std::chrono::steady_clock::now();
  auto last = t0;
  if (!quiet) std::fprintf(stderr, " ite      chaos   time(s)   expanded     kept  phases\n");
  const mcl::Result res = mcl::cluster(graph, opt, ctx, [&](const mcl::IterationInfo& it) {
    const auto now = std::chrono::steady_clock::now();
    if (!quiet)
      std::fprintf(stderr, "%4d %10.2f %9.3f %10lld %8lld %7d\n", it.iteration, it.chaos,
                   std::chrono::duration<double>(now - last).count(),
                   static_cast<long long>(it.expanded_nnz), static_cast<long long>(it.nnz),
                   it.phases);
    last = now;
  });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const std::string out_path = out_opt.value_or(default_output(path, opt.inflation));
  std::ofstream file;
  if (out_path != "-") {
    file.open(out_path);
    if (!file) throw IoError("cannot write " + out_path);
  }
  std::ostream& out = out_path == "-" ? std::cout : file;
  for (const auto& c : res.clusters) {
    for (std::size_t k = 0; k < c.size(); ++k) {
      if (k) out << '\t';
      if (abc)
        out << labels[static_cast<std::size_t>(c[k])];
      else
        out << c[k];
    }
    out << '\n';
  }
  if (!quiet)
    std::fprintf(stderr,
                 "[ringblas mcl] %zu clusters, %d iterations, %.3f s (reading and copying the "
                 "graph excluded)%s%s\n",
                 res.clusters.size(), res.iterations, seconds,
                 out_path == "-" ? "" : ", output is in ", out_path == "-" ? "" : out_path.c_str());
  return 0;
}

}  // namespace ringblas::cli
