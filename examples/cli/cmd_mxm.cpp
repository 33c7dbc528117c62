// `ringblas mxm A B [options]`: C<M> = A ⊕.⊗ B through ringblas::mxm, written as Matrix Market.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli.hpp"
#include "ringblas/codes.hpp"
#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/error.hpp"
#include "ringblas/ops.hpp"
#include "ringblas/semiring.hpp"

namespace ringblas::cli {

namespace {
constexpr const char* kUsage =
    "usage: ringblas mxm A B [options]\n"
    "  computes C<M> = A (+).(x) B; A, B, M: Matrix Market, edge-list or abc files, read as\n"
    "  given (see 'input files' below; edge lists share one vertex set); '-' is stdin\n"
    "  --semiring NAME     <monoid>_<multiply>, e.g. plus_times (default), min_plus, plus_pair,\n"
    "                      lor_land, any_secondi\n"
    "  --type T            bool, int32, int64, fp32, fp64; inputs are cast to it (default fp64;\n"
    "                      int64 for positional multiplies; with --type bool the default\n"
    "                      semiring is lor_land)\n"
    "  --mask M            mask file (valued unless --structural)\n"
    "  --complement        use the complement of the mask\n"
    "  --structural        any mask entry admits its position, whatever its value\n"
    "  --replace           GrB_REPLACE (C starts empty here, so this changes nothing visible)\n"
    "  --transpose-a, --transpose-b\n"
    "  --backend B         auto (default), cpu, cuda, verify\n"
    "  --trace             print dispatch decisions to stderr\n"
    "  -o FILE             write C as Matrix Market (pattern if the result type is bool and\n"
    "                      both inputs are pattern); without -o print a one-line summary\n"
    "  exit status: 0 success, 1 error (message on stderr), 2 bad usage\n";
}  // namespace

int cmd_mxm(Args& args) {
  args.set_usage(kUsage);
  if (args.help()) {
    std::cout << kUsage;
    return 0;
  }
  const auto semiring_opt = args.option("--semiring");
  const auto type_opt = args.option("--type");
  const auto mask_path = args.option("--mask");
  const auto backend_opt = args.option("--backend");
  auto out_path = args.option("-o");
  if (!out_path) out_path = args.option("--output");
  Descriptor desc;
  desc.mask_complement = args.flag("--complement");
  desc.mask_structure = args.flag("--structural");
  desc.replace = args.flag("--replace");
  desc.transpose_a = args.flag("--transpose-a");
  desc.transpose_b = args.flag("--transpose-b");
  const bool trace = args.flag("--trace");
  const auto files = args.positionals(2, 2);
  if ((desc.mask_complement || desc.mask_structure) && !mask_path)
    args.usage_error("--complement and --structural need --mask");

  // Unknown backend, type or semiring names are usage errors (exit 2), not run-time errors.
  Context ctx;
  ctx.trace = trace;
  Type type = Type::fp64;
  Semiring s;
  try {
    ctx.backend = parse_backend(backend_opt.value_or("auto"));
    // The semiring's type: --type, else int64 for positional multiplies, else fp64.
    std::string name = semiring_opt.value_or("");
    if (type_opt) {
      type = parse_type(*type_opt);
    } else if (!name.empty()) {
      const auto cut = name.find('_');
      if (cut != std::string::npos && is_positional(parse_binary_op(name.substr(cut + 1))))
        type = Type::int64;
    }
    if (name.empty()) name = type == Type::boolean ? "lor_land" : "plus_times";
    s = semiring(name, type);
  } catch (const ringblas::InvalidValue& e) {
    args.usage_error(e.what());
  }

  std::vector<std::string> paths = {files[0], files[1]};
  if (mask_path) paths.push_back(*mask_path);
  auto inputs = load_inputs(paths);
  const io::MatrixInfo info_a = inputs[0].info, info_b = inputs[1].info;
  const Matrix a = inputs[0].matrix.cast(type);
  const Matrix b = inputs[1].matrix.cast(type);
  std::optional<Matrix> mask;
  if (mask_path) mask = std::move(inputs[2].matrix);

  const Index nrows = desc.transpose_a ? a.ncols() : a.nrows();
  const Index ncols = desc.transpose_b ? b.nrows() : b.ncols();
  if (mask && (mask->nrows() != nrows || mask->ncols() != ncols))
    throw DimensionMismatch("mask " + *mask_path + " is " + std::to_string(mask->nrows()) + " x " +
                            std::to_string(mask->ncols()) + ", but C = A (+).(x) B is " +
                            std::to_string(nrows) + " x " + std::to_string(ncols));
  Matrix c(nrows, ncols, type);
  const auto t0 = std::chrono::steady_clock::now();
  mxm(c, mask ? &*mask : nullptr, no_accum, s, a, b, desc, ctx);
  const auto t1 = std::chrono::steady_clock::now();
  const Matrix host_c = c.location() == Location::host ? c : c.to(Location::host, ctx);
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();

  char timing[64];
  std::snprintf(timing, sizeof(timing), "%.3f ms", ms);
  std::cerr << "mxm: " << s.name() << ", nnz(C) = " << host_c.nnz() << ", " << timing
            << " (backend " << backend_name(ctx.backend) << ")\n";
  if (out_path) {
    const bool pattern = type == Type::boolean && info_a.field == io::Field::pattern &&
                         info_b.field == io::Field::pattern;
    io::write_matrix_market(*out_path, host_c, pattern);
  } else {
    std::cout << "C: " << host_c.nrows() << " x " << host_c.ncols() << ", nnz " << host_c.nnz()
              << ", type " << type_name(host_c.type()) << ", semiring " << s.name() << '\n';
  }
  return 0;
}

}  // namespace ringblas::cli
