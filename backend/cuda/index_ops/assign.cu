// cuda executor entry point of assign (GrB_assign): C<M, replace>(rows, cols) = C(rows, cols)
// accum A, the mask over all of C. As GraphBLAS defines it: Z = C; Z(rows, cols) = C(rows, cols)
// accum A; C<M, replace> = Z. On the device: A lifted into C's coordinates by the index gather,
// C split by the region rows x cols (filter), Z = (C outside) ∪ (C inside accum A) by the shared
// write-back, then the masked write-back of Z. Repeated indices: GraphBLAS leaves the result
// undefined, so they throw NotImplemented (auto falls back to the cpu executor).
#include <string>

#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/common/write_back.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/index_ops/host_maps.hpp"
#include "backend/cuda/index_ops/index_ops.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda {
namespace {

/// One byte per index of 0..n-1: 1 where the inverse list names it.
Buffer region_flags(const std::vector<std::int64_t>& inv, Context& ctx) {
  std::vector<unsigned char> f(inv.size());
  for (std::size_t k = 0; k < inv.size(); ++k) f[k] = inv[k] >= 0;
  return index_ops::upload(f, ctx);
}

}  // namespace

void assign(Matrix& C, const Matrix* mask, Accum accum, const Matrix& A, const Indices& rows,
            const Indices& cols, const Descriptor& desc, Context& ctx) {
  if (index_ops::has_repeats(rows, C.nrows()) || index_ops::has_repeats(cols, C.ncols()))
    throw NotImplemented(
        "cuda assign: repeated row or column indices (GraphBLAS leaves the result undefined)");
  const bool whole = rows.all_ && cols.all_;
  ctx.trace_line(std::string("assign: cuda index gather + region filter + write-back, ") +
                 std::to_string(A.nnz()) + " entries into " + std::to_string(C.nrows()) + "x" +
                 std::to_string(C.ncols()) + (whole ? " (all indices)" : "; index lists uploaded"));
  Matrix hold_a, hold_c;
  const Matrix& a = prepare_operand(A, desc.transpose_a, A.index_type(), std::nullopt, hold_a, ctx);
  const Matrix& c = prepare_operand(C, false, C.index_type(), std::nullopt, hold_c, ctx);
  // A in C's coordinates: row r takes A's row inverse(rows)[r], column j of A goes to cols(j).
  Matrix lifted;
  Buffer rowin, colin;
  if (whole) {
    lifted = &a == &hold_a ? std::move(hold_a) : Matrix(a);
  } else {
    index_ops::device_maps maps;
    if (!rows.all_) {
      const std::vector<std::int64_t> inv = index_ops::inverse(rows, C.nrows());
      maps.src_row = index_ops::upload(inv, ctx);
      rowin = region_flags(inv, ctx);
    }
    if (!cols.all_) {
      std::vector<std::int64_t> ptr(cols.list.size() + 1);
      for (std::size_t j = 0; j < ptr.size(); ++j) ptr[j] = std::int64_t(j);
      maps.col_ptr = index_ops::upload(ptr, ctx);
      maps.col_out =
          index_ops::upload(std::vector<std::int64_t>(cols.list.begin(), cols.list.end()), ctx);
      maps.monotone = index_ops::is_sorted(cols, true);
      colin = region_flags(index_ops::inverse(cols, C.ncols()), ctx);
    }
    lifted = index_ops::gather(a, C.nrows(), C.ncols(), maps, ctx);
  }
  const DeviceMask none;
  // Z inside the region: C(rows, cols) accum A, or A alone without an accumulator.
  Matrix z_in = std::move(lifted);
  if (accum) {
    Matrix c_in = whole ? Matrix(c)
                        : index_ops::filter_region(c, rowin.as<unsigned char>(),
                                                   colin.as<unsigned char>(), true, ctx);
    write_back(c_in, none, accum, false, std::move(z_in), ctx);
    z_in = std::move(c_in);
  }
  // Z = (C outside the region) ∪ Z inside (disjoint: `first` never applies).
  Matrix z;
  if (whole) {
    z = empty_device_matrix(C.nrows(), C.ncols(), C.type(), z_in.index_type(), ctx);
  } else {
    z = index_ops::filter_region(c, rowin.as<unsigned char>(), colin.as<unsigned char>(), false,
                                 ctx);
  }
  write_back(z, none, BinaryOpCode::first, false, std::move(z_in), ctx);
  const DeviceMask m =
      make_device_mask(mask, desc.mask_structure, desc.mask_complement, z.index_type(), ctx);
  write_back(C, m, no_accum, desc.replace, std::move(z), ctx);
}

}  // namespace ringblas::cuda
