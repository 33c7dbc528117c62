// `ringblas bfs FILE --source V [--parents]`: BFS levels (or parents) from one source.
#include <iostream>

#include "algorithms/bfs.hpp"
#include "graph_command.hpp"

namespace ringblas::cli {

namespace {
constexpr const char* kUsage =
    "usage: ringblas bfs FILE --source V [--parents] [--push-only] [options]\n"
    "  breadth-first search of the directed graph FILE (entry (i,j): edge i -> j; a symmetric\n"
    "  Matrix Market file or a SNAP list is undirected as read), direction-optimising push/pull\n"
    "  --source V      0-based start vertex (required)\n"
    "  --parents       write each reached vertex's BFS parent (0-based id; the source is its own\n"
    "                  parent) instead of its level\n"
    "  --push-only     no pull steps\n"
    "  -o values: level (source 0) of every reached vertex; unreached vertices are absent\n";
}  // namespace

int cmd_bfs(Args& args) {
  std::optional<GraphOptions> opened = open_graph_command(args, kUsage);
  if (!opened) return 0;  // --help was printed
  GraphOptions& g = *opened;
  const auto source_text = args.option("--source");
  algorithms::BfsOptions opt;
  opt.parents = args.flag("--parents");
  opt.direction_optimizing = !args.flag("--push-only");
  const std::string path = args.positionals(1, 1)[0];
  if (!source_text) args.usage_error("--source V is required");
  const Matrix a = load_graph(path, /*symmetrize=*/false, g.ctx, &opt.symmetric);
  const Index source = parse_vertex(args, *source_text, a.nrows(), "--source");
  const algorithms::BfsResult r = algorithms::bfs(a, source, opt, g.ctx);
  const Vector levels = r.level.to(Location::host, g.ctx);
  Index depth = 0;
  for (Index l : levels.values_vector<Index>()) depth = std::max(depth, l);
  std::cout << "reached: " << levels.nnz() << "\ndepth: " << depth
            << "\npush_steps: " << r.push_steps << "\npull_steps: " << r.pull_steps << '\n';
  if (g.output) write_vertex_vector(*g.output, opt.parents ? *r.parent : r.level, g.ctx);
  return 0;
}

}  // namespace ringblas::cli
