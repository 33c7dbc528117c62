// `ringblas sssp FILE --source V`: shortest path lengths (min.+ Bellman-Ford).
#include <iostream>

#include "algorithms/sssp.hpp"
#include "graph_command.hpp"

namespace ringblas::cli {

namespace {
constexpr const char* kUsage =
    "usage: ringblas sssp FILE --source V [options]\n"
    "  single-source shortest paths in the directed graph FILE with edge weights from its\n"
    "  values (pattern files: 1; a symmetric Matrix Market file or a SNAP list is undirected as\n"
    "  read), by min.+ Bellman-Ford; negative weights are allowed and a negative cycle reachable\n"
    "  from the source is an error (exit 1)\n"
    "  --source V      0-based start vertex (required)\n"
    "  -o values: the distance of every reached vertex; unreached vertices are absent\n";
}  // namespace

int cmd_sssp(Args& args) {
  args.set_usage(std::string(kUsage) + kGraphOptionsHelp);
  if (args.help()) {
    std::cout << args.usage();
    return 0;
  }
  GraphOptions g = graph_options(args);
  const auto source_text = args.option("--source");
  const std::string path = args.positionals(1, 1)[0];
  if (!source_text) args.usage_error("--source V is required");
  const Matrix a = load_graph(path, /*symmetrize=*/false, g.ctx);
  const Index source = parse_vertex(args, *source_text, a.nrows(), "--source");
  const algorithms::SsspResult r = algorithms::sssp_bellman_ford(a, source, g.ctx);
  std::cout << "reached: " << r.distance.nnz() << "\nrounds: " << r.rounds << '\n';
  if (g.output) write_vertex_vector(*g.output, r.distance, g.ctx);
  return 0;
}

}  // namespace ringblas::cli
