// Pieces shared by the graph-algorithm subcommands (bfs, sssp, pagerank, tc, cc, kcore, bc):
// the common options, loading and placing the graph, and writing a vertex vector.
#pragma once
#include <optional>
#include <string>

#include "cli.hpp"
#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::cli {

/// The options every graph command takes; read them before positionals().
struct GraphOptions {
  Context ctx;
  std::optional<std::string> output;  ///< -o FILE
};
/// Reads --backend, --trace and -o/--output; a bad backend name is a usage error.
GraphOptions graph_options(Args& args);

/// The opening of every graph command: sets the usage (`usage` + the common options' help);
/// with --help prints it and returns nothing, else returns graph_options(args).
std::optional<GraphOptions> open_graph_command(Args& args, const char* usage);

/// Help text for the options above.
inline constexpr const char* kGraphOptionsHelp =
    "  --backend B     auto (default), cpu, cuda, verify\n"
    "  --trace         print dispatch decisions and each operation's wall time to stderr\n"
    "  -o FILE         write the result as a Matrix Market coordinate vector (n x 1; row v+1\n"
    "                  holds vertex v; vertices without a result are absent)\n"
    "  Vertex ids are 0-based: a Matrix Market file's row r is vertex r-1, a SNAP file's ids\n"
    "  are its own (as the reader numbers them).\n";

/// The graph in FILE as fp64 (pattern -> 1.0), symmetrised as A ∪ Aᵀ when `symmetrize`
/// (entries of A win where both exist), then moved to the GPU when the context runs there.
/// `symmetric` (optional) tells whether the result is known to equal its transpose (symmetric
/// storage, a SNAP list, or symmetrised here).
Matrix load_graph(const std::string& path, bool symmetrize, Context& ctx,
                  bool* symmetric = nullptr);

/// A vertex id from an option value, checked against 0..n-1 (usage error otherwise).
Index parse_vertex(Args& args, const std::string& text, Index n, const char* what);

/// Writes v (any location) as an n x 1 Matrix Market coordinate vector to `path`.
void write_vertex_vector(const std::string& path, const Vector& v, Context& ctx);

}  // namespace ringblas::cli
