// spgemm_dot and spgemm_dot_hash launcher: checks applicability (can_implement.cpp), prepares the
// operands on the device (32-bit indices, casts, op(B)ᵀ through the shared transpose, the mask's
// structure), runs the per-entry kernel (spgemm_dot) or the row-wise hash kernels
// (spgemm_dot_hash) over the mask's entries, drops the entries whose rows share no column (the
// element-wise family's compaction) and hands T to the shared write-back.
#include <algorithm>
#include <string>
#include <vector>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/common/write_back.hpp"
#include "backend/cuda/elementwise/compact.cuh"
#include "backend/cuda/spgemm_dot/hash_kernels.cuh"
#include "backend/cuda/spgemm_dot/kernels.cuh"
#include "backend/cuda/spgemm_dot/policy.hpp"
#include "backend/cuda/spgemm_dot/semirings.hpp"
#include "backend/cuda/spgemm_dot/spgemm_dot.hpp"
#include "backend/cuda/spmm_subwarp/device_prep.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda::spgemm_dot {

namespace {

/// Sets a kernel's dynamic shared-memory limit (above the 48 KB default) before its launch.
template <class K>
void allow_smem(K kernel, int bytes) {
  if (bytes > 48 * 1024)
    RINGBLAS_CUDA_TRY(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

/// The row-wise hash kernels over every mask entry: rows split into the warp and block lists
/// (one host read of the two list lengths), the lane groups sized to the mean probe count per
/// mask entry (one more host read). Returns that probe count (for the trace).
template <class S>
unsigned long long launch_hash(const HashProblem& hp, Index m, long long nnz, int& log_g,
                               Index& block_rows, Context& ctx) {
  cudaStream_t st = stream_of(ctx);
  // Per-mask-entry probes: one host read, also shown by the trace.
  device_array<unsigned long long> probes(1, ctx);
  probes.fill_zero(ctx);
  const unsigned pgrid = static_cast<unsigned>(std::min<long long>((nnz + 255) / 256, 4096));
  count_probes<<<pgrid, 256, 0, st>>>(nnz, hp.m_ci, hp.b_rp, probes.data());
  RINGBLAS_CHECK_LAUNCH("spgemm_dot::count_probes", st, ctx.debug_sync);
  device_array<std::int32_t> warp_rows(std::size_t(m), ctx), block_list(std::size_t(m), ctx);
  device_array<int> counts(3, ctx);
  counts.fill_zero(ctx);
  classify_rows<<<grid_for(std::size_t(m), 256), 256, 0, st>>>(
      static_cast<int>(m), hp.m_rp, hp.a_rp, warp_rows.data(), block_list.data(), counts.data());
  RINGBLAS_CHECK_LAUNCH("spgemm_dot::classify_rows", st, ctx.debug_sync);
  const std::vector<unsigned long long> total = probes.to_host(ctx);
  const std::vector<int> n = counts.to_host(ctx);
  ctx.transfers.device_to_host += 2;
  ctx.transfers.bytes_device_to_host += sizeof(unsigned long long) + 3 * sizeof(int);
  log_g = log_subwarp(nnz > 0 ? double(total[0]) / double(nnz) : 0.0);
  block_rows = n[1];
  const int mult = S::reads_a ? 2 : 1;
  if (n[0] > 0) {
    const int bytes = HashPolicy::warps * HashPolicy::warp_slots * mult * int(sizeof(int));
    allow_smem(hash_warp_kernel<S>, bytes);
    hash_warp_kernel<S>
        <<<grid_for(std::size_t(n[0]), HashPolicy::warps), HashPolicy::block, bytes, st>>>(
            hp, warp_rows.data(), n[0], log_g);
    RINGBLAS_CHECK_LAUNCH("spgemm_dot::hash_warp_kernel", st, ctx.debug_sync);
  }
  if (n[1] > 0) {
    const int bytes = HashPolicy::block_slots * mult * int(sizeof(int));
    allow_smem(hash_block_kernel<S>, bytes);
    // Blocks per row: the longest row's mask entries over block_entries each.
    const int split = std::clamp((n[2] + HashPolicy::block_entries - 1) / HashPolicy::block_entries,
                                 1, HashPolicy::max_split);
    hash_block_kernel<S><<<dim3(static_cast<unsigned>(n[1]), static_cast<unsigned>(split)),
                           HashPolicy::block, bytes, st>>>(hp, block_list.data(), log_g);
    RINGBLAS_CHECK_LAUNCH("spgemm_dot::hash_block_kernel", st, ctx.debug_sync);
  }
  return total[0];
}

void run_impl(Matrix& C, const Matrix* mask, Accum accum, const Semiring& s, const Matrix& A,
              const Matrix& B, const Descriptor& desc, bool hash, Context& ctx) {
  const char* name = hash ? "mxm (spgemm_dot_hash): " : "mxm (spgemm_dot): ";
  if (auto why = can_implement(s, mask, A, B, desc)) throw NotImplemented(name + *why);
  RINGBLAS_CUDA_TRY(cudaSetDevice(ctx.device));
  const Index m = desc.transpose_a ? A.ncols() : A.nrows();
  const Index n = desc.transpose_b ? B.nrows() : B.ncols();
  DeviceMask dm = make_device_mask(mask, desc.mask_structure, false, IndexType::i32, ctx);
  const bool ra = reads_x(s.mul), rb = reads_y(s.mul);
  Matrix hold_a, hold_b;
  const Matrix& a = prepare_operand(A, desc.transpose_a, IndexType::i32,
                                    ra ? std::optional<Type>(s.type) : std::nullopt, hold_a, ctx);
  // The kernels read the rows of op(B)ᵀ: B itself when the caller asked for Bᵀ.
  const Matrix& bt = prepare_operand(B, !desc.transpose_b, IndexType::i32,
                                     rb ? std::optional<Type>(s.type) : std::nullopt, hold_b, ctx);
  const std::size_t nnz = std::size_t(dm.nnz);
  const double avg_a = m ? double(a.nnz()) / double(m) : 0.0;
  const double avg_b = n ? double(bt.nnz()) / double(n) : 0.0;
  int log_sw = log_subwarp(avg_a < avg_b ? avg_a : avg_b);
  unsigned long long probes = 0;
  Index block_rows = 0;
  cudaStream_t st = stream_of(ctx);

  Matrix T;
  with_dot_semiring(s, [&](auto sr_tag) {
    using S = decltype(sr_tag);
    using V = typename S::value_type;
    device_array<V> vals(nnz > 0 ? nnz : 1, ctx);
    device_array<std::int32_t> keep(nnz + 1, ctx);
    if (hash) {
      HashProblem hp;
      hp.m_rp = dm.row_ptr.as<std::int32_t>();
      hp.m_ci = dm.col_idx.as<std::int32_t>();
      hp.a_rp = a.row_ptr().as<std::int32_t>();
      hp.a_ci = a.col_idx().as<std::int32_t>();
      hp.a_values = ra && a.nnz() ? a.values().data() : nullptr;
      hp.b_rp = bt.row_ptr().as<std::int32_t>();
      hp.b_ci = bt.col_idx().as<std::int32_t>();
      hp.b_values = rb && bt.nnz() ? bt.values().data() : nullptr;
      hp.t_values = vals.data();
      hp.keep = keep.data();
      if (nnz > 0 && m > 0)
        probes = launch_hash<S>(hp, m, static_cast<long long>(nnz), log_sw, block_rows, ctx);
    } else {
      // The row of every mask entry (one pass), so that a sub-warp starts without a search.
      detail::DevCsr mask_csr;
      mask_csr.nrows = m;
      mask_csr.nnz = Index(nnz);
      mask_csr.row_ptr = dm.row_ptr.as<std::int32_t>();
      const Buffer m_rows = detail::expand_rows(mask_csr, ctx);
      DotProblem p;
      p.nrows = static_cast<int>(m);
      p.nnz = static_cast<long long>(nnz);
      p.m_rows = m_rows.as<std::int32_t>();
      p.m_ci = dm.col_idx.as<std::int32_t>();
      p.a_rp = a.row_ptr().as<std::int32_t>();
      p.a_ci = a.col_idx().as<std::int32_t>();
      p.a_values = ra && a.nnz() ? a.values().data() : nullptr;
      p.b_rp = bt.row_ptr().as<std::int32_t>();
      p.b_ci = bt.col_idx().as<std::int32_t>();
      p.b_values = rb && bt.nnz() ? bt.values().data() : nullptr;
      p.t_values = vals.data();
      p.keep = keep.data();
      if (nnz > 0 && m > 0) {
        const long long threads = static_cast<long long>(nnz) << log_sw;
        dot_kernel<S><<<static_cast<unsigned>((threads + Policy::block - 1) / Policy::block),
                        Policy::block, 0, st>>>(p, log_sw);
        RINGBLAS_CHECK_LAUNCH("spgemm_dot::dot_kernel", st, ctx.debug_sync);
      }
    }
    // T over the mask's pattern, then only the entries whose intersection was not empty.
    Matrix full = Matrix::from_buffers(m, n, s.type, IndexType::i32, Index(nnz), Buffer(dm.row_ptr),
                                       Buffer(dm.col_idx), vals.release());
    T = elementwise::compact<V, std::int32_t>(full, keep, ctx);
  });
  if (ctx.trace)
    ctx.trace_line(std::string(hash ? "mxm: spgemm_dot_hash, " : "mxm: spgemm_dot, ") + s.name() +
                   ", " + std::to_string(nnz) + " mask entries, nnz(T) " + std::to_string(T.nnz()) +
                   (hash ? ", " + std::to_string(probes) + " entries in the rows of Bᵀ met, " +
                               std::to_string(block_rows) + " block rows, lane group "
                         : ", sub-warp ") +
                   std::to_string(1 << log_sw) + (desc.transpose_b ? "" : ", transposes B") +
                   (desc.mask_structure ? ", structural mask" : ", value mask"));
  // T lies inside the mask (computed at its entries only): into an empty C without an
  // accumulator it is the result as it stands, and the masked merge of write_back is skipped.
  if (C.nnz() == 0 && !accum)
    C = cast_values(std::move(T), C.type(), ctx);
  else
    write_back(C, dm, accum, desc.replace, std::move(T), ctx);
}

}  // namespace

void run(Matrix& C, const Matrix* mask, Accum accum, const Semiring& s, const Matrix& A,
         const Matrix& B, const Descriptor& desc, Context& ctx) {
  run_impl(C, mask, accum, s, A, B, desc, false, ctx);
}

void run_hash(Matrix& C, const Matrix* mask, Accum accum, const Semiring& s, const Matrix& A,
              const Matrix& B, const Descriptor& desc, Context& ctx) {
  run_impl(C, mask, accum, s, A, B, desc, true, ctx);
}

}  // namespace ringblas::cuda::spgemm_dot
