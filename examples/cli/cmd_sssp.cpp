// `ringblas sssp FILE --source V [--method M]`: shortest path lengths (delta-stepping or
// Bellman-Ford in min.+).
#include <iostream>

#include "algorithms/sssp.hpp"
#include "graph_command.hpp"
#include "ringblas/ops.hpp"

namespace ringblas::cli {

namespace {
constexpr const char* kUsage =
    "usage: ringblas sssp FILE --source V [options]\n"
    "  single-source shortest paths in the directed graph FILE with edge weights from its\n"
    "  values (pattern files: 1; a symmetric Matrix Market file or a SNAP list is undirected as\n"
    "  read), in min.+ by Bellman-Ford or delta-stepping; negative weights are allowed (with\n"
    "  Bellman-Ford) and a negative cycle reachable\n"
    "  from the source is an error (exit 1)\n"
    "  --source V      0-based start vertex (required)\n"
    "  --method M      auto (default: delta-stepping when no weight is negative, else\n"
    "                  bellman-ford), bellman-ford, delta-stepping\n"
    "  --delta D       delta-stepping bucket width (default max weight / mean degree)\n"
    "  -o values: the distance of every reached vertex; unreached vertices are absent\n";
}  // namespace

int cmd_sssp(Args& args) {
  std::optional<GraphOptions> opened = open_graph_command(args, kUsage);
  if (!opened) return 0;  // --help was printed
  GraphOptions& g = *opened;
  const auto source_text = args.option("--source");
  const std::string method = args.option("--method").value_or("auto");
  const auto delta_text = args.option("--delta");
  if (method != "auto" && method != "bellman-ford" && method != "delta-stepping")
    args.usage_error("unknown --method '" + method + "' (auto, bellman-ford, delta-stepping)");
  double delta = 0;
  if (delta_text) {
    std::size_t used = 0;
    try {
      delta = std::stod(*delta_text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != delta_text->size() || !(delta > 0))
      args.usage_error("--delta '" + *delta_text + "' is not a positive number");
  }
  const std::string path = args.positionals(1, 1)[0];
  if (!source_text) args.usage_error("--source V is required");
  const Matrix a = load_graph(path, /*symmetrize=*/false, g.ctx);
  const Index source = parse_vertex(args, *source_text, a.nrows(), "--source");
  const bool negative = a.nnz() > 0 && reduce(MonoidCode::min, a, g.ctx).as<double>() < 0;
  const bool stepping = method == "delta-stepping" || (method == "auto" && !negative);
  const algorithms::SsspResult r = stepping
                                       ? algorithms::sssp_delta_stepping(a, source, delta, g.ctx)
                                       : algorithms::sssp_bellman_ford(a, source, g.ctx);
  std::cout << "method: " << (stepping ? "delta-stepping" : "bellman-ford")
            << "\nreached: " << r.distance.nnz() << "\nrounds: " << r.rounds << '\n';
  if (g.output) write_vertex_vector(*g.output, r.distance, g.ctx);
  return 0;
}

}  // namespace ringblas::cli
