// cuda entry points of the dense-output mxm (SpMM): variant choice, operand preparation, launch
// of spmm_subwarp (CSR) or spmm_subwarp_coo, and the batched kernels for a batch of one.
#include <cuda_runtime.h>

#include <string>

#include "backend/core/containers/host_access.hpp"
#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_props.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/sparse_layer/sparse_layer.hpp"
#include "backend/cuda/spmm_batched/spmm_batched_run.hpp"
#include "backend/cuda/spmm_subwarp/device_prep.hpp"
#include "backend/cuda/spmm_subwarp/semiring_types.hpp"
#include "backend/cuda/spmm_subwarp/spmm_coo_entry.hpp"
#include "backend/cuda/spmm_subwarp/spmm_problem.hpp"

namespace ringblas::cuda {
namespace detail {
namespace {

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

/// The product's output on the device in the semiring's type: C itself, or a temporary that
/// finish() casts / downloads into C.
struct DeviceOut {
  DenseMatrix& c;
  Type type;
  Buffer temp;
  void* ptr = nullptr;
  /// `word_atomics`: the kernel updates 1-byte values through their 4-byte word, so the output
  /// is a temporary padded to whole words.
  DeviceOut(DenseMatrix& c_, Type t, Context& ctx, bool word_atomics = false) : c(c_), type(t) {
    const std::size_t cells = static_cast<std::size_t>(c.nrows() * c.ncols());
    if (c.location() == Location::device && c.type() == t && !(word_atomics && type_size(t) < 4)) {
      ptr = c.values().data();
    } else {
      temp = Buffer((std::max<std::size_t>(cells, 1) * type_size(t) + 15) / 16 * 16, Location::device, &ctx);
      ptr = temp.data();
    }
  }
  void finish(Context& ctx) {
    if (ptr == c.values().data()) return;
    const std::size_t cells = static_cast<std::size_t>(c.nrows() * c.ncols());
    if (c.location() == Location::device) {
      cast_into(c.values().data(), c.type(), ptr, type, cells, ctx);
      return;
    }
    Buffer host = temp.to(Location::host, ctx);
    DenseMatrix out(c.nrows(), c.ncols(), c.type(), c.layout());
    visit_type(type, [&](auto z) {
      using V = decltype(z);
      const V* src = host.as<V>();
      for (std::size_t x = 0; x < cells; ++x) ringblas::detail::set_value(out.values(), out.type(), Index(x), src[x]);
    });
    c = std::move(out);
  }
};

EpilogueArgs epilogue_args(const Epilogue& ep, const DevDense& bias) {
  EpilogueArgs e;
  e.bias = ep.has_bias();
  e.relu = ep.has_relu();
  e.clamp = ep.clamp.has_value();
  e.clamp_value = ep.clamp.value_or(0);
  e.bias_values = bias.values;
  return e;
}

void check_supported(const Semiring& s, const Epilogue& ep, const char* op) {
  if (!manifest::compiled<manifest::spmm_subwarp>(s))
    throw NotImplemented(std::string(op) + ": " + manifest::not_compiled(s, "spmm_subwarp"));
  if (s.type == Type::boolean && !ep.is_identity())
    throw NotImplemented(std::string(op) + ": bias/ReLU/clamp epilogues need a numeric type");
}

}  // namespace

void run_spmm(DenseMatrix& C, const Semiring& s, const Matrix& A, const DenseMatrix& B,
              const Epilogue& ep, const Descriptor& desc, Context& ctx, const char* op) {
  Variant v = desc.variant;
  if (v == Variant::sparse_layer) {  // fused sparse W x dense Y (issue 5), forced by the variant
    sparse_layer::run_mxm(C, s, A, B, ep, desc, ctx);
    return;
  }
  if (desc.transpose_b || desc.replace || desc.mask_complement || desc.mask_structure)
    throw NotImplemented(std::string(op) + ": the cuda SpMM kernels take B untransposed and no mask flags");
  if (v == Variant::spmm_batched || v == Variant::spmm_batched_coo) {
    run_batched_spmm({&C}, {&A}, {&B}, s, ep, desc.transpose_a, v, op, ctx);
    return;
  }
  if (v != Variant::automatic && v != Variant::spmm_subwarp && v != Variant::spmm_subwarp_coo &&
      v != Variant::spmm_rowsplit)
    throw NotImplemented(std::string(op) + ": variant " + std::string(variant_name(v)) +
                         " does not compute a dense-output SpMM");
  check_supported(s, ep, op);
  const Type T = s.type;
  const std::size_t tsz = type_size(T);
  const bool coo = v == Variant::spmm_subwarp_coo;
  const bool rowsplit = v == Variant::spmm_rowsplit;
  DevCsr a = device_csr(A, T, reads_x(s.mul), desc.transpose_a, op, ctx);
  DevDense b;
  if (reads_y(s.mul)) b = device_dense(B, T, ctx);
  else b.rs = row_stride(B), b.cs = col_stride(B);
  DevDense bias;
  if (ep.has_bias()) bias = device_dense_vector(*ep.bias, T, ctx);
  // Row mapping for even row lengths; nnz-split mapping when rows are long on average (power-law
  // graphs put most of the work in a few rows): runs of L nonzeros per sub-warp
  // (nnzsplit_run_length).
  const double mean_row = double(a.nnz) / double(std::max<Index>(a.nrows, 1));
  const bool split = !coo && !rowsplit && mean_row >= SpmmPolicy::split_mean_row;
  DeviceOut out(C, T, ctx, coo || split);

  SpmmProblem p;
  p.m = static_cast<int>(a.nrows);
  p.k = static_cast<int>(a.ncols);
  p.n = static_cast<int>(B.ncols());
  p.nnz = a.nnz;
  p.row_ptr = a.row_ptr;
  p.col_idx = a.col_idx;
  p.a_values = a.values;
  p.b = b.values;
  p.b_rs = b.rs;
  p.b_cs = b.cs;
  p.c = out.ptr;
  p.c_rs = row_stride(C);
  p.c_cs = col_stride(C);
  p.epilogue = epilogue_args(ep, bias);
  if (static_cast<long long>(p.m) * p.n > (1ll << 40))
    throw NotImplemented(std::string(op) + ": C is too large for the SpMM kernels");

  const int vw = tsz >= 4 ? int(16 / tsz) : 1;
  const bool vec_ok = !coo && vw > 1 && p.n % vw == 0 && p.c_cs == 1 && aligned16(p.c) &&
                      (p.c_rs * tsz) % 16 == 0 &&
                      (!p.b || (p.b_cs == 1 && aligned16(p.b) && (p.b_rs * tsz) % 16 == 0));
  // spmm_rowsplit on a narrow B: one column per lane (more lanes per row, fewer rows in step per
  // warp) where the bench found it ahead of 16-byte vectors.
  const bool vectors = vec_ok && !(rowsplit && p.n <= SpmmPolicy::rowsplit_scalar_max_cols);
  const SubwarpShape shape =
      split ? nnzsplit_shape(p.n, vectors ? vw : 1) : subwarp_shape(p.n, vectors ? vw : 1);
  const int L = split ? nnzsplit_run_length(p.nnz, shape, device_props(ctx.device).sm_count) : 0;
  const int rowsplit_threads =
      rowsplit ? rowsplit_block_threads(p.m, shape.log_sw, device_props(ctx.device).sm_count) : 0;
  // C larger than L2: its lines are written once and never reread by this kernel.
  const bool stream_c = double(p.m) * double(p.n) * double(tsz) > double(device_props(ctx.device).l2_bytes);
  // The nnz-split kernel's meeting with its row pass (SpmmPolicy::nnzsplit_overlap / _run_rows).
  NnzsplitOptions nnzsplit_opt;
  nnzsplit_opt.overlap = SpmmPolicy::nnzsplit_overlap;
  Buffer run_rows;
  if (split && SpmmPolicy::nnzsplit_run_rows && p.nnz > 0) {
    run_rows = Buffer(static_cast<std::size_t>((p.nnz + L - 1) / L) * 4, Location::device, &ctx);
    nnzsplit_opt.run_rows = run_rows.as<std::int32_t>();
  }
  Buffer rows;
  if (coo) {
    rows = expand_rows(a, ctx);
    p.row_idx = rows.as<std::int32_t>();
  }
  if (ctx.trace)
    ctx.trace_line(std::string(op) + ": " +
                   (coo        ? "spmm_subwarp_coo"
                    : rowsplit ? "spmm_rowsplit"
                               : "spmm_subwarp") +
                   (rowsplit ? " (rows over " + std::to_string(SpmmPolicy::long_row) +
                                   " nonzeros shared by a block of " +
                                   std::to_string(rowsplit_threads) + " threads)"
                             : "") +
                   (split ? " (nnz-split, " + std::to_string(L) + " nonzeros per sub-warp" +
                                (nnzsplit_opt.overlap ? ", dependent launch" : "") +
                                (nnzsplit_opt.run_rows ? ", run rows from the row pass" : "") + ")"
                          : "") +
                   ", " + std::to_string(p.m) + " rows, " + std::to_string(p.nnz) + " nnz, n_B " +
                   std::to_string(p.n) + ", sub-warp " + std::to_string(1 << shape.log_sw) +
                   ", vector " + std::to_string(shape.vec) +
                   (shape.nv > 1 ? " x " + std::to_string(shape.nv) : "") + ", " +
                   std::to_string(shape.chunks) + " column chunks");
  with_spmm_semiring(s, [&](auto sr_tag) {
    using S = decltype(sr_tag);
    if (coo) spmm_coo_launch<S>(p, shape, ctx.stream, ctx.debug_sync);
    else if (rowsplit)
      spmm_rowsplit_launch<S>(p, shape, SpmmPolicy::long_row, rowsplit_threads, stream_c, ctx.stream,
                              ctx.debug_sync);
    // The nnz-split kernel stores evict-first at any size: s4 round 3 (H100) 2-4% faster even
    // where C fits in L2 (PubMed n_B = 256: 33.1 vs 33.8 us, soc-Epinions1 n_B = 128: 92.3 vs
    // 93.5), 6-10% where it does not (soc-Epinions1 n_B = 256: 159 vs 169 us).
    else if (split)
      spmm_nnzsplit_launch<S>(p, shape, L, true, ctx.stream, ctx.debug_sync, nnzsplit_opt);
    else spmm_csr_launch<S>(p, shape, ctx.stream, ctx.debug_sync);
  });
  out.finish(ctx);
}

}  // namespace detail

void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const DenseMatrix& B,
         const Descriptor& desc, Context& ctx) {
  detail::run_spmm(C, s, A, B, Epilogue::none(), desc, ctx, "mxm (dense)");
}

void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const DenseMatrix& B,
         const Epilogue& ep, const Descriptor& desc, Context& ctx) {
  detail::run_spmm(C, s, A, B, ep, desc, ctx, "mxm (dense, epilogue)");
}

void mxm_coo(DenseMatrix& C, const Semiring& s, const CooMatrix& A, const DenseMatrix& B,
             Context& ctx) {
  const char* op = "mxm_coo";
  if (A.nrows() != C.nrows() || A.ncols() != B.nrows() || B.ncols() != C.ncols())
    throw DimensionMismatch(std::string(op) + ": A is " + std::to_string(A.nrows()) + "x" +
                            std::to_string(A.ncols()) + ", B " + std::to_string(B.nrows()) + "x" +
                            std::to_string(B.ncols()) + ", C " + std::to_string(C.nrows()) + "x" +
                            std::to_string(C.ncols()));
  detail::check_supported(s, Epilogue::none(), op);
  const Type T = s.type;
  CooMatrix dev = A.location() == Location::device ? A : A.to(Location::device, ctx);
  const std::size_t nnz = static_cast<std::size_t>(A.nnz());
  // CooMatrix indices are 64-bit: narrow them (and cast values) through device_csr's helpers by
  // viewing the arrays as a one-row CSR matrix's column indices.
  auto narrow = [&](const Buffer& idx) {
    Matrix view = Matrix::from_buffers(1, std::max<Index>(A.nrows(), A.ncols()), A.type(), IndexType::i64, A.nnz(),
                                       Buffer(2 * sizeof(std::int64_t), Location::device, &ctx), idx, dev.values());
    return view;
  };
  std::vector<std::int64_t> rp_host{0, static_cast<std::int64_t>(nnz)};
  Matrix rows_view = narrow(dev.rows()), cols_view = narrow(dev.cols());
  ringblas::detail::copy_bytes(rows_view.row_ptr().data(), Location::device, rp_host.data(), Location::host,
                               2 * sizeof(std::int64_t), &ctx);
  ringblas::detail::copy_bytes(cols_view.row_ptr().data(), Location::device, rp_host.data(), Location::host,
                               2 * sizeof(std::int64_t), &ctx);
  detail::DevCsr r = detail::device_csr(rows_view, T, false, false, op, ctx);
  detail::DevCsr c = detail::device_csr(cols_view, T, reads_x(s.mul), false, op, ctx);
  detail::DevDense b;
  if (reads_y(s.mul)) b = detail::device_dense(B, T, ctx);
  else b.rs = detail::row_stride(B), b.cs = detail::col_stride(B);
  detail::DeviceOut out(C, T, ctx, true);
  detail::SpmmProblem p;
  p.m = static_cast<int>(A.nrows());
  p.k = static_cast<int>(A.ncols());
  p.n = static_cast<int>(B.ncols());
  p.nnz = A.nnz();
  p.row_idx = r.col_idx;
  p.col_idx = c.col_idx;
  p.a_values = c.values;
  p.b = b.values;
  p.b_rs = b.rs;
  p.b_cs = b.cs;
  p.c = out.ptr;
  p.c_rs = detail::row_stride(C);
  p.c_cs = detail::col_stride(C);
  const detail::SubwarpShape shape = detail::subwarp_shape(p.n, 1);
  ctx.trace_line(std::string(op) + ": spmm_subwarp_coo, " + std::to_string(p.m) + " rows, " +
                 std::to_string(p.nnz) + " entries (unsorted), n_B " + std::to_string(p.n));
  detail::with_spmm_semiring(s, [&](auto sr_tag) {
    using S = decltype(sr_tag);
    detail::spmm_coo_launch<S>(p, shape, ctx.stream, ctx.debug_sync);
  });
  out.finish(ctx);
}

}  // namespace ringblas::cuda
