// `ringblas pagerank FILE [--damping 0.85] [--tol 1e-10]`: PageRank as networkx defines it.
#include <cstdio>
#include <iostream>

#include "algorithms/pagerank.hpp"
#include "graph_command.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cli {

namespace {
constexpr const char* kUsage =
    "usage: ringblas pagerank FILE [--damping A] [--tol T] [--max-iter K] [options]\n"
    "  PageRank of the directed graph FILE with edge weights from its values (networkx.pagerank:\n"
    "  uniform teleport, dangling vertices spread uniformly); a symmetric Matrix Market file or a\n"
    "  SNAP list is undirected as read (both directions)\n"
    "  --damping A     default 0.85\n"
    "  --tol T         stop when the L1 change < n * T (networkx's test), default 1e-10\n"
    "  --max-iter K    default 100; not converged by then is an error (exit 1)\n"
    "  -o values: the rank of every vertex\n";

}  // namespace

int cmd_pagerank(Args& args) {
  std::optional<GraphOptions> opened = open_graph_command(args, kUsage);
  if (!opened) return 0;  // --help was printed
  GraphOptions& g = *opened;
  algorithms::PageRankOptions opt;
  opt.damping = args.number("--damping", opt.damping);
  opt.tol = args.number("--tol", opt.tol);
  opt.max_iterations = int(args.number("--max-iter", opt.max_iterations));
  const std::string path = args.positionals(1, 1)[0];
  const Matrix a = load_graph(path, /*symmetrize=*/false, g.ctx, &opt.symmetric);
  const algorithms::PageRankResult r = algorithms::pagerank(a, opt, g.ctx);
  std::cout << "iterations: " << r.iterations << '\n';
  if (g.output) write_vertex_vector(*g.output, r.rank, g.ctx);
  if (!r.converged)
    throw InvalidValue("pagerank: not converged after " + std::to_string(r.iterations) +
                       " iterations (raise --max-iter or --tol)");
  return 0;
}

}  // namespace ringblas::cli
