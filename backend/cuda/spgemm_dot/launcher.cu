// spgemm_dot launcher: checks applicability (can_implement.cpp), prepares the operands on the
// device (32-bit indices, casts, op(B)ᵀ through the shared transpose, the mask's structure),
// runs the kernel over the mask's entries, drops the entries whose rows share no column (the
// element-wise family's compaction) and hands T to the shared write-back.
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/common/write_back.hpp"
#include "backend/cuda/elementwise/compact.cuh"
#include "backend/cuda/spgemm_dot/kernels.cuh"
#include "backend/cuda/spgemm_dot/policy.hpp"
#include "backend/cuda/spgemm_dot/semirings.hpp"
#include "backend/cuda/spgemm_dot/spgemm_dot.hpp"
#include "backend/cuda/spmm_subwarp/device_prep.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda::spgemm_dot {

void run(Matrix& C, const Matrix* mask, Accum accum, const Semiring& s, const Matrix& A,
         const Matrix& B, const Descriptor& desc, Context& ctx) {
  if (auto why = can_implement(s, mask, A, B, desc))
    throw NotImplemented("mxm (spgemm_dot): " + *why);
  RINGBLAS_CUDA_TRY(cudaSetDevice(ctx.device));
  const Index m = desc.transpose_a ? A.ncols() : A.nrows();
  const Index n = desc.transpose_b ? B.nrows() : B.ncols();
  DeviceMask dm = make_device_mask(mask, desc.mask_structure, false, IndexType::i32, ctx);
  const bool ra = reads_x(s.mul), rb = reads_y(s.mul);
  Matrix hold_a, hold_b;
  const Matrix& a = prepare_operand(A, desc.transpose_a, IndexType::i32,
                                    ra ? std::optional<Type>(s.type) : std::nullopt, hold_a, ctx);
  // The kernel reads the rows of op(B)ᵀ: B itself when the caller asked for Bᵀ.
  const Matrix& bt = prepare_operand(B, !desc.transpose_b, IndexType::i32,
                                     rb ? std::optional<Type>(s.type) : std::nullopt, hold_b, ctx);
  const std::size_t nnz = std::size_t(dm.nnz);
  const double avg_a = m ? double(a.nnz()) / double(m) : 0.0;
  const double avg_b = n ? double(bt.nnz()) / double(n) : 0.0;
  const int log_sw = log_subwarp(avg_a < avg_b ? avg_a : avg_b);
  cudaStream_t st = stream_of(ctx);

  Matrix T;
  with_dot_semiring(s, [&](auto sr_tag) {
    using S = decltype(sr_tag);
    using V = typename S::value_type;
    device_array<V> vals(nnz > 0 ? nnz : 1, ctx);
    device_array<std::int32_t> keep(nnz + 1, ctx);
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
    // T over the mask's pattern, then only the entries whose intersection was not empty.
    Matrix full = Matrix::from_buffers(m, n, s.type, IndexType::i32, Index(nnz), Buffer(dm.row_ptr),
                                       Buffer(dm.col_idx), vals.release());
    T = elementwise::compact<V, std::int32_t>(full, keep, ctx);
  });
  if (ctx.trace)
    ctx.trace_line("mxm: spgemm_dot, " + s.name() + ", " + std::to_string(nnz) +
                   " mask entries, nnz(T) " + std::to_string(T.nnz()) + ", sub-warp " +
                   std::to_string(1 << log_sw) + (desc.transpose_b ? "" : ", transposes B") +
                   (desc.mask_structure ? ", structural mask" : ", value mask"));
  write_back(C, dm, accum, desc.replace, std::move(T), ctx);
}

}  // namespace ringblas::cuda::spgemm_dot
