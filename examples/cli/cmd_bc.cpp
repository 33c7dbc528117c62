// `ringblas bc FILE [--sources K]`: betweenness centrality (batched Brandes).
#include <iostream>
#include <numeric>

#include "algorithms/betweenness.hpp"
#include "graph_command.hpp"

namespace ringblas::cli {

namespace {
constexpr const char* kUsage =
    "usage: ringblas bc FILE [--sources K] [--batch B] [options]\n"
    "  betweenness centrality of the directed graph FILE (values ignored; a symmetric Matrix\n"
    "  Market file or a SNAP list is undirected as read) by batched Brandes: the sum over the\n"
    "  sources s of the dependencies delta_s(v). With every vertex a source on an undirected\n"
    "  graph this is twice networkx.betweenness_centrality(G, normalized=False).\n"
    "  --sources K     the sources are vertices 0..K-1 (default: every vertex)\n"
    "  --batch B       sources per batch (rows of the frontier matrix), default 64\n"
    "  -o values: every vertex's centrality\n";
}  // namespace

int cmd_bc(Args& args) {
  std::optional<GraphOptions> opened = open_graph_command(args, kUsage);
  if (!opened) return 0;  // --help was printed
  GraphOptions& g = *opened;
  const auto sources_text = args.option("--sources");
  const auto batch_text = args.option("--batch");
  const std::string path = args.positionals(1, 1)[0];
  const Matrix a = load_graph(path, /*symmetrize=*/false, g.ctx);
  const Index k =
      sources_text ? parse_vertex(args, *sources_text, a.nrows() + 1, "--sources") : a.nrows();
  const Index batch = batch_text ? parse_vertex(args, *batch_text, Index{1} << 40, "--batch") : 64;
  if (batch < 1) args.usage_error("--batch must be at least 1");
  std::vector<Index> sources(static_cast<std::size_t>(k));
  std::iota(sources.begin(), sources.end(), Index{0});
  const Vector c = algorithms::betweenness(a, sources, batch, g.ctx);
  std::cout << "sources: " << k << '\n';
  if (g.output) write_vertex_vector(*g.output, c, g.ctx);
  return 0;
}

}  // namespace ringblas::cli
