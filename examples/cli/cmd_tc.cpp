// `ringblas tc FILE [--method M] [--no-presort]`: triangle count.
#include <iostream>

#include "algorithms/triangle_count.hpp"
#include "graph_command.hpp"

namespace ringblas::cli {

namespace {
constexpr const char* kUsage =
    "usage: ringblas tc FILE [--method M] [--no-presort] [options]\n"
    "  counts the triangles of the undirected graph FILE: the graph is symmetrised first\n"
    "  (A or Aᵀ having an entry makes an edge) and self-loops are ignored; prints 'triangles: N'\n"
    "  --method M      automatic (default: forward with the presort, else sandia_llt),\n"
    "                  forward (C<U> = L +.pair Lᵀ), sandia_llt (C<L> = L +.pair Lᵀ),\n"
    "                  sandia_lut (C<L> = L +.pair Uᵀ), sandia_ll (C<L> = L +.pair L),\n"
    "                  cohen (C<A> = L +.pair U, halved)\n"
    "  --no-presort    keep the vertex order (default: relabel by decreasing degree)\n";
}  // namespace

int cmd_tc(Args& args) {
  std::optional<GraphOptions> opened = open_graph_command(args, kUsage);
  if (!opened) return 0;  // --help was printed
  GraphOptions& g = *opened;
  algorithms::TriangleOptions opt;
  const std::string method = args.option("--method").value_or("automatic");
  if (method == "automatic")
    opt.method = algorithms::TriangleMethod::automatic;
  else if (method == "forward")
    opt.method = algorithms::TriangleMethod::forward;
  else if (method == "sandia_llt")
    opt.method = algorithms::TriangleMethod::sandia_llt;
  else if (method == "sandia_ll")
    opt.method = algorithms::TriangleMethod::sandia_ll;
  else if (method == "sandia_lut")
    opt.method = algorithms::TriangleMethod::sandia_lut;
  else if (method == "cohen")
    opt.method = algorithms::TriangleMethod::cohen;
  else
    args.usage_error("unknown --method '" + method +
                     "' (automatic, forward, sandia_llt, sandia_ll, sandia_lut, cohen)");
  opt.presort = !args.flag("--no-presort");
  const std::string path = args.positionals(1, 1)[0];
  if (g.output) args.usage_error("tc prints one number; -o is not taken");
  const Matrix a = load_graph(path, /*symmetrize=*/true, g.ctx);
  std::cout << "triangles: " << algorithms::triangle_count(a, opt, g.ctx) << '\n';
  return 0;
}

}  // namespace ringblas::cli
