// cuda entry points of mxv and vxm: the pull (row per sub-warp) or push (scatter) kernel that the
// dispatch table chose by the cost model of spmv.hpp, operand preparation, launch, and the
// masked, accumulated write-back.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/spmm_subwarp/device_prep.hpp"
#include "backend/cuda/spmm_subwarp/semiring_types.hpp"
#include "backend/cuda/spmv/spmv.hpp"
#include "backend/cuda/spmv/spmv_problem.hpp"
#include "backend/cuda/common/vector_plumbing.hpp"

namespace ringblas::cuda {
namespace detail {
namespace {

constexpr int kPushFillLog = 18, kMaxPushLogGroup = 20;
/// Pull with the `any` monoid stops a row at its first product (BFS: an unvisited vertex at its
/// first parent in the frontier), usually within the first few entries: sub-warps of at most
/// 2^kPullAnyMaxLog lanes read fewer entries past the hit and take more rows per warp.
constexpr int kPullAnyMaxLog = 3;

int log_subwarp(double avg) {
  int l = 0;
  while ((1 << l) < avg && l < 5) ++l;
  return l;
}

/// w<m> = w accum (op(A) ⊕.⊗ u) (a_first, mxv) or (u ⊕.⊗ op(A)) (vxm). `pull_transposes`: the
/// CSR whose rows are outputs is Aᵀ (then push uses A itself, and the reverse).
void run_spmv(Vector& w, const Vector* mask, Accum accum, const Semiring& s, const Matrix& A,
              const Vector& u, bool a_first, bool pull_transposes, const Descriptor& desc,
              Context& ctx, const char* op) {
  // The dispatch table (backend/core/dispatch_tables_*.cpp) has asked spmv::can_implement and
  // chosen pull or push by spmv::pull_cost / push_cost; it always names the variant.
  const Variant v = desc.variant;
  if (v != Variant::spmv_pull && v != Variant::spmv_push)
    throw NotImplemented(std::string(op) + ": variant " + std::string(variant_name(v)) +
                         " is not spmv_pull or spmv_push (the dispatch table names one)");
  if (auto why = spmv::can_implement(s, A)) throw NotImplemented(std::string(op) + ": " + *why);
  const Type T = s.type;
  const Index n_out = w.size(), n_in = u.size();
  const double avg_in = n_in ? double(A.nnz()) / double(n_in) : 0.0;
  const bool push = v == Variant::spmv_push;
  const bool transposed = push ? !pull_transposes : pull_transposes;
  const bool a_values = a_first ? reads_x(s.mul) : reads_y(s.mul);
  const bool u_values = a_first ? reads_y(s.mul) : reads_x(s.mul);

  DevCsr P = device_csr(A, T, a_values, transposed, op, ctx);
  Vector u_hold;
  const Vector& ud = on_device(u, u_hold, ctx);
  Buffer admit = mask_admit(mask, n_out, desc.mask_structure, desc.mask_complement, ctx);
  const std::size_t tsz = type_size(T);
  // w = w accum (A ⊕.⊗ u) into a full device w of the semiring's type, no mask (PageRank's
  // ranks, FastSV's labels): the pull kernel accumulates into w in place, so the call is one
  // launch with no t, no memset and no write-back (issue 9, per-call host cost). Not when w is
  // u (each row would read entries other rows have already replaced).
  const bool accum_into_w = !push && !mask && accum && !is_positional(*accum) &&
                            w.location() == Location::device && n_out > 0 && w.nnz() == n_out &&
                            w.type() == T && w.values().data() != ud.values().data();
  // Padded to whole 4-byte words: the push kernel updates 1-byte values through their word.
  Buffer t_values, t_present;
  if (!accum_into_w) {
    t_values = Buffer((std::max<std::size_t>(static_cast<std::size_t>(n_out), 1) * tsz + 15) / 16 * 16, Location::device, &ctx);
    t_present = Buffer(std::max<std::size_t>(static_cast<std::size_t>(n_out), 1), Location::device, &ctx);
  }
  auto stream = static_cast<cudaStream_t>(ctx.stream);

  SpmvProblem p;
  p.n_out = static_cast<int>(n_out);
  p.n_in = static_cast<int>(n_in);
  p.a_first = a_first;
  p.row_ptr = P.row_ptr;
  p.col_idx = P.col_idx;
  p.a_values = P.values;
  p.allowed = admit.size() ? admit.as<unsigned char>() : nullptr;
  p.t_values = accum_into_w ? w.values().data() : t_values.data();
  p.t_present = accum_into_w ? nullptr : t_present.as<unsigned char>();
  if (accum_into_w) p.accum_into_t = static_cast<int>(*accum);
  Buffer u_dense, u_present, u_idx, u_list;
  int log_sw = 0;
  if (push) {
    u_idx = narrow_indices(ud.indices(), ud.nnz(), ctx);
    if (u_values) u_list = vector_values_as(ud, T, ctx);
    p.u_idx = u_idx.as<std::int32_t>();
    p.u_values = u_values ? u_list.data() : nullptr;
    p.u_nnz = static_cast<int>(ud.nnz());
    log_sw = log_subwarp(avg_in);
    // Few stored u(k): each row gets more threads (up to 2^20; the push kernel has no shuffles,
    // so a group may exceed a warp) until the launch has ~2^18 threads, enough to fill the GPU.
    // Otherwise a single long row (BFS from a hub: its first step is one row of ~10^5 entries)
    // is one sub-warp's serial loop while the rest of the GPU idles.
    while (log_sw < kMaxPushLogGroup &&
           (static_cast<long long>(ud.nnz()) << log_sw) < (1LL << kPushFillLog))
      ++log_sw;
  } else {
    const std::size_t nin1 = std::max<std::size_t>(static_cast<std::size_t>(n_in), 1);
    // A full u (nnz = size, so its sorted indices are 0..n-1) of the semiring's type is read in
    // place: no copy, no scatter (PageRank's and FastSV's steps; issue 9, per-call cost).
    const bool full = ud.nnz() == n_in;
    if (full && (!u_values || ud.type() == T)) {
      p.u_values = u_values ? ud.values().data() : nullptr;
    } else {
      if (u_values) u_dense = Buffer(nin1 * tsz, Location::device, &ctx);
      if (!full) {
        u_present = Buffer(nin1, Location::device, &ctx);
        RINGBLAS_CUDA_TRY(cudaMemsetAsync(u_present.data(), 0, nin1, stream));
      }
      scatter_vector(ud, T, u_values ? u_dense.data() : nullptr,
                     u_present.size() ? u_present.as<unsigned char>() : nullptr, ctx);
      p.u_values = u_values ? u_dense.data() : nullptr;
    }
    p.u_present = u_present.size() ? u_present.as<unsigned char>() : nullptr;
    // The pull kernel writes t_present for every row the mask admits: only rows it excludes
    // need the zeroes.
    if (p.allowed) RINGBLAS_CUDA_TRY(cudaMemsetAsync(t_present.data(), 0, t_present.size(), stream));
    log_sw = log_subwarp(n_out ? double(A.nnz()) / double(n_out) : 0.0);
    if (s.add == MonoidCode::any) log_sw = std::min(log_sw, kPullAnyMaxLog);
  }
  if (ctx.trace)
    ctx.trace_line(std::string(op) + ": " + (push ? "spmv_push" : "spmv_pull") + ", nnz(u) " +
                 std::to_string(u.nnz()) + " of " + std::to_string(n_in) + ", nnz(A) " + std::to_string(A.nnz()) +
                 (transposed ? ", transposes A" : "") + ", sub-warp " + std::to_string(1 << log_sw) +
                 (mask ? (desc.mask_complement ? ", complemented mask" : ", mask") : "") +
                 (accum_into_w ? ", accumulates into w in place" : "") +
                 (!push && !a_values && !u_values && !is_positional(s.mul) && ud.nnz() == n_in
                      ? ", one product value per row: row lengths only"
                      : "") +
                 " (cost pull " + std::to_string(static_cast<long long>(spmv::pull_cost(A, u, pull_transposes))) +
                 " vs push " + std::to_string(static_cast<long long>(spmv::push_cost(A, u, n_out, pull_transposes))) + ")");
  with_spmv_semiring(s, [&](auto sr_tag) {
    using S = decltype(sr_tag);
    if (push) spmv_push_launch<S>(p, log_sw, ctx.stream, ctx.debug_sync);
    else spmv_pull_launch<S>(p, log_sw, ctx.stream, ctx.debug_sync);
  });
  if (accum_into_w) return;
  if (accumulate_in_place(w, t_values.data(), T, t_present.as<unsigned char>(), p.allowed, accum,
                          ctx))
    return;
  Vector out = write_back(w, t_values.data(), T, t_present.as<unsigned char>(), p.allowed, accum, desc.replace, ctx);
  w = w.location() == Location::device ? std::move(out) : out.to(Location::host, ctx);
}

}  // namespace
}  // namespace detail

void mxv(Vector& w, const Vector* mask, Accum accum, const Semiring& s, const Matrix& A,
         const Vector& u, const Descriptor& desc, Context& ctx) {
  detail::run_spmv(w, mask, accum, s, A, u, true, desc.transpose_a, desc, ctx, "mxv");
}

void vxm(Vector& w, const Vector* mask, Accum accum, const Semiring& s, const Vector& u,
         const Matrix& A, const Descriptor& desc, Context& ctx) {
  detail::run_spmv(w, mask, accum, s, A, u, false, !desc.transpose_b, desc, ctx, "vxm");
}

}  // namespace ringblas::cuda
