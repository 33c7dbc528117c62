// `ringblas cc FILE`: connected components (FastSV), label = smallest vertex id.
#include <iostream>

#include "algorithms/connected_components.hpp"
#include "graph_command.hpp"

namespace ringblas::cli {

namespace {
constexpr const char* kUsage =
    "usage: ringblas cc FILE [options]\n"
    "  connected components of the undirected graph FILE by FastSV: the graph is symmetrised\n"
    "  first (A or Aᵀ having an entry makes an edge: weakly connected components of a directed\n"
    "  graph); prints 'components: N'\n"
    "  -o values: every vertex's label, the smallest vertex id of its component (0-based)\n";
}  // namespace

int cmd_cc(Args& args) {
  std::optional<GraphOptions> opened = open_graph_command(args, kUsage);
  if (!opened) return 0;  // --help was printed
  GraphOptions& g = *opened;
  const std::string path = args.positionals(1, 1)[0];
  const Matrix a = load_graph(path, /*symmetrize=*/true, g.ctx);
  const algorithms::ComponentsResult r = algorithms::connected_components(a, g.ctx);
  const Vector labels = r.label.to(Location::host, g.ctx);
  Index components = 0;
  const std::vector<Index> idx = labels.indices_vector(), val = labels.values_vector<Index>();
  for (std::size_t k = 0; k < idx.size(); ++k) components += idx[k] == val[k];
  std::cout << "components: " << components << "\niterations: " << r.iterations << '\n';
  if (g.output) write_vertex_vector(*g.output, r.label, g.ctx);
  return 0;
}

}  // namespace ringblas::cli
