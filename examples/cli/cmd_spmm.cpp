// `ringblas spmm A.mtx --cols N`: C = A ⊕.⊗ B with B dense (generated from a seed or read from a
// dense .mtx) through ringblas::mxm (dense output), printing a summary or writing C.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>

#include "cli.hpp"
#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/ops.hpp"
#include "ringblas/semiring.hpp"

namespace ringblas::cli {

namespace {
constexpr const char* kUsage =
    "usage: ringblas spmm A [options]\n"
    "  computes C = A (+).(x) B with B dense; A: any input file (see 'input files' below)\n"
    "  --cols N            columns of a generated B (uniform in [0, 1) from --seed; default 64)\n"
    "  --b FILE            read B from a Matrix Market file instead (array or coordinate)\n"
    "  --seed S            seed of the generated B (default 1)\n"
    "  --semiring NAME     plus_times (default), min_plus, max_times, plus_pair, ...\n"
    "  --type T            fp32 (default), fp64, int32, int64, bool\n"
    "  --variant V         force a kernel: spmm_rowsplit, spmm_subwarp, spmm_subwarp_coo,\n"
    "                      spmm_batched, spmm_batched_coo (default: automatic)\n"
    "  --transpose-a       use A transposed\n"
    "  --backend B         auto (default), cpu, cuda, verify\n"
    "  --trace             print dispatch decisions to stderr\n"
    "  -o FILE             write C as Matrix Market (array); without -o print a summary\n"
    "  exit status: 0 success, 1 error (message on stderr), 2 bad usage\n";
}  // namespace

int cmd_spmm(Args& args) {
  args.set_usage(kUsage);
  if (args.help()) {
    std::cout << kUsage;
    return 0;
  }
  const auto cols_opt = args.option("--cols");
  const auto b_path = args.option("--b");
  const auto seed_opt = args.option("--seed");
  const auto semiring_opt = args.option("--semiring");
  const auto type_opt = args.option("--type");
  const auto variant_opt = args.option("--variant");
  const auto backend_opt = args.option("--backend");
  auto out_path = args.option("-o");
  if (!out_path) out_path = args.option("--output");
  Descriptor desc;
  desc.transpose_a = args.flag("--transpose-a");
  const bool trace = args.flag("--trace");
  const auto files = args.positionals(1, 1);
  if (cols_opt && b_path) args.usage_error("--cols and --b are exclusive");
  if (variant_opt) desc.variant = parse_variant(*variant_opt);

  Index cols = 64;
  std::uint64_t seed = 1;
  try {
    if (cols_opt) cols = std::stoll(*cols_opt);
    if (seed_opt) seed = std::stoull(*seed_opt);
  } catch (const std::exception&) {
    args.usage_error("--cols and --seed take non-negative integers");
  }
  if (cols < 0) args.usage_error("--cols must be >= 0");

  Context ctx(parse_backend(backend_opt.value_or("auto")));
  ctx.trace = trace;
  const Type type = type_opt ? parse_type(*type_opt) : Type::fp32;
  const Semiring s = semiring(semiring_opt.value_or(type == Type::boolean ? "lor_land" : "plus_times"), type);

  io::MatrixInfo info;
  const Matrix a = load_matrix(files[0], &info).cast(type);
  const Index inner = desc.transpose_a ? a.nrows() : a.ncols();
  const Index rows = desc.transpose_a ? a.ncols() : a.nrows();
  DenseMatrix b;
  if (b_path) {
    b = io::read_dense_matrix_market(*b_path);
  } else {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> dist(0.0, 1.0);
    std::vector<double> v(static_cast<std::size_t>(inner * cols));
    for (auto& x : v) x = dist(gen);
    b = DenseMatrix::from_values(inner, cols, v);
  }
  DenseMatrix c(rows, b.ncols(), type);
  const auto t0 = std::chrono::steady_clock::now();
  mxm(c, s, a, b, desc, ctx);
  const auto t1 = std::chrono::steady_clock::now();
  const DenseMatrix host_c = c.location() == Location::host ? c : c.to(Location::host, ctx);
  char timing[64];
  std::snprintf(timing, sizeof(timing), "%.3f ms", std::chrono::duration<double, std::milli>(t1 - t0).count());
  std::cerr << "spmm: " << s.name() << ", nnz(A) = " << a.nnz() << ", n_B = " << b.ncols() << ", " << timing
            << " (backend " << backend_name(ctx.backend) << ")\n";
  if (out_path) {
    io::write_dense_matrix_market(*out_path, host_c);
  } else {
    double sum = 0;
    for (Index i = 0; i < host_c.nrows(); ++i)
      for (Index j = 0; j < host_c.ncols(); ++j) sum += host_c.at<double>(i, j);
    std::cout << "C: " << host_c.nrows() << " x " << host_c.ncols() << ", type " << type_name(host_c.type())
              << ", semiring " << s.name() << ", sum of elements " << sum << '\n';
  }
  return 0;
}

}  // namespace ringblas::cli
