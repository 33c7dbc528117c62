// `ringblas kcore FILE`: core number of every vertex.
#include <algorithm>
#include <iostream>

#include "algorithms/kcore.hpp"
#include "graph_command.hpp"

namespace ringblas::cli {

namespace {
constexpr const char* kUsage =
    "usage: ringblas kcore FILE [options]\n"
    "  core numbers (k-core decomposition by peeling) of the undirected graph FILE: the graph is\n"
    "  symmetrised first (A or Aᵀ having an entry makes an edge) and self-loops are ignored;\n"
    "  prints 'max_core: K'\n"
    "  -o values: every vertex's core number\n";
}  // namespace

int cmd_kcore(Args& args) {
  std::optional<GraphOptions> opened = open_graph_command(args, kUsage);
  if (!opened) return 0;  // --help was printed
  GraphOptions& g = *opened;
  const std::string path = args.positionals(1, 1)[0];
  const Matrix a = load_graph(path, /*symmetrize=*/true, g.ctx);
  const Vector core = algorithms::core_numbers(a, g.ctx);
  Index max_core = 0;
  for (Index c : core.to(Location::host, g.ctx).values_vector<Index>())
    max_core = std::max(max_core, c);
  std::cout << "max_core: " << max_core << '\n';
  if (g.output) write_vertex_vector(*g.output, core, g.ctx);
  return 0;
}

}  // namespace ringblas::cli
