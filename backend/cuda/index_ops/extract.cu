// cuda executor entry point of extract: C<M, replace> = C accum A(rows, cols) (op(A) with
// desc.transpose_a). T = A(rows, cols) by the index gather (repeated indices allowed, as
// GraphBLAS allows them in extract), then the shared write-back.
#include <string>

#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/common/write_back.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/index_ops/host_maps.hpp"
#include "backend/cuda/index_ops/index_ops.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda {

void extract(Matrix& C, const Matrix* mask, Accum accum, const Matrix& A, const Indices& rows,
             const Indices& cols, const Descriptor& desc, Context& ctx) {
  Matrix hold;
  const Matrix& a = prepare_operand(A, desc.transpose_a, A.index_type(), std::nullopt, hold, ctx);
  const Index nr = rows.count(a.nrows()), nc = cols.count(a.ncols());
  ctx.trace_line("extract: cuda index gather, " + std::to_string(nr) + "x" + std::to_string(nc) +
                 " from " + std::to_string(a.nnz()) + " entries" +
                 (rows.all_ && cols.all_ ? " (all: a copy)" : "; index lists uploaded") +
                 (cols.all_ || index_ops::is_sorted(cols, false) ? "" : ", rows sorted"));
  Matrix T;
  if (rows.all_ && cols.all_) {
    T = &a == &hold ? std::move(hold) : Matrix(a);
  } else {
    index_ops::device_maps maps;
    if (!rows.all_)
      maps.src_row =
          index_ops::upload(std::vector<std::int64_t>(rows.list.begin(), rows.list.end()), ctx);
    if (!cols.all_) {
      const index_ops::host_csr cm = index_ops::positions_of(cols, a.ncols());
      maps.col_ptr = index_ops::upload(cm.ptr, ctx);
      maps.col_out = index_ops::upload(cm.out, ctx);
      maps.monotone = index_ops::is_sorted(cols, false);
    }
    T = index_ops::gather(a, nr, nc, maps, ctx);
  }
  const DeviceMask m =
      make_device_mask(mask, desc.mask_structure, desc.mask_complement, T.index_type(), ctx);
  write_back(C, m, accum, desc.replace, std::move(T), ctx);
}

}  // namespace ringblas::cuda
