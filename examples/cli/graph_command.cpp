// Graph loading, placement and vertex-vector output for the graph-algorithm subcommands.
#include "graph_command.hpp"

#include <iostream>
#include <vector>

#include "ringblas/error.hpp"
#include "ringblas/io.hpp"
#include "ringblas/ops.hpp"

namespace ringblas::cli {

GraphOptions graph_options(Args& args) {
  GraphOptions g;
  const auto backend = args.option("--backend");
  g.output = args.option("-o");
  if (!g.output) g.output = args.option("--output");
  g.ctx.trace = g.ctx.trace_time = args.flag("--trace");
  try {
    g.ctx.backend = parse_backend(backend.value_or("auto"));
  } catch (const InvalidValue& e) {
    args.usage_error(e.what());
  }
  return g;
}

std::optional<GraphOptions> open_graph_command(Args& args, const char* usage) {
  args.set_usage(std::string(usage) + kGraphOptionsHelp);
  if (args.help()) {
    std::cout << args.usage();
    return std::nullopt;
  }
  return graph_options(args);
}

Matrix load_graph(const std::string& path, bool symmetrize, Context& ctx, bool* symmetric) {
  io::MatrixInfo info;
  Matrix a = load_matrix(path, &info).cast(Type::fp64);
  if (symmetric) *symmetric = symmetrize || info.symmetry == io::Symmetry::symmetric;
  if (a.nrows() != a.ncols())
    throw DimensionMismatch(path + ": a graph needs a square matrix, this one is " +
                            std::to_string(a.nrows()) + " x " + std::to_string(a.ncols()));
  const bool on_gpu =
      ctx.backend == Backend::cuda || (ctx.backend == Backend::automatic && cuda_available());
  if (on_gpu) a = a.to(Location::device, ctx);
  if (symmetrize) {
    Matrix s(a.nrows(), a.ncols(), Type::fp64);
    Matrix at(a.nrows(), a.ncols(), Type::fp64);
    transpose(at, nullptr, no_accum, a, {}, ctx);
    ewise_add(s, nullptr, no_accum, BinaryOpCode::first, a, at, {}, ctx);
    a = std::move(s);
  }
  return a;
}

Index parse_vertex(Args& args, const std::string& text, Index n, const char* what) {
  std::size_t used = 0;
  long long v = -1;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || v < 0 || v >= n)
    args.usage_error(std::string(what) + " '" + text + "' is not a vertex id in 0.." +
                     std::to_string(n - 1));
  return Index(v);
}

void write_vertex_vector(const std::string& path, const Vector& v, Context& ctx) {
  const Vector h = v.location() == Location::host ? v : v.to(Location::host, ctx);
  const std::vector<Index> rows = h.indices_vector();
  const std::vector<Index> cols(rows.size(), 0);
  visit_type(h.type(), [&](auto t) {
    using T = decltype(t);
    io::write_matrix_market(
        path, Matrix::from_triplets<T>(h.size(), 1, rows, cols, h.template values_vector<T>()));
  });
}

}  // namespace ringblas::cli
