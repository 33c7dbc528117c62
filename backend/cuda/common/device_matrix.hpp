// Device-side preparation of operands shared by cuda kernel families: residency, index width,
// value casts, transposes and masks reduced to their structure (plain C++ interface).
#pragma once
#include <optional>

#include "ringblas/buffer.hpp"
#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::cuda {

/// `a` (on the device) with row pointers and column indices of width `it`, converted on the
/// device. Throws InvalidValue when 32-bit indices cannot hold the sizes.
Matrix with_index_type(Matrix a, IndexType it, const Context& ctx);

/// `a` (on the device) with values cast to `t` on the device (GraphBLAS typecasting rules).
Matrix cast_values(Matrix a, Type t, const Context& ctx);

/// How cuda::transpose sorts by column. radix8: CUB's own onesweep tuning (8-bit digits: 3
/// passes for 17-24 bit column indices). radix10: the same sort with 10-bit digits (2 passes up
/// to 2^20 columns, 1 up to 1,024), when nnz < 2^32; otherwise as radix8. partition: two
/// counting passes of our own that read the CSR and write the CSC directly, no pack and unpack
/// steps (transpose_partition.cu), for 32-bit indices and up to 2^24 columns; otherwise as
/// radix8. radix8 stays the default until the GPU bench (bench_reduce_transpose's "radix10" and
/// "partition" rows) says otherwise (tests/bench/results/transpose_topk_notes.md).
enum class TransposeMethod { radix8, radix10, partition };

/// aᵀ of a device matrix, computed on the device with a stable CUB radix sort of the column
/// indices (rows stay sorted within each output row). Keeps a's index and value types.
Matrix transpose(const Matrix& a, const Context& ctx,
                 TransposeMethod method = TransposeMethod::radix8);

/// An operand as the kernels want it: on the device, transposed if asked, with index width `it`
/// and, when `values` is set, values of that type. Returns `a` itself when nothing changes, else
/// a converted copy stored in `hold`.
const Matrix& prepare_operand(const Matrix& a, bool transposed, IndexType it,
                              std::optional<Type> values, Matrix& hold, const Context& ctx);

/// A mask reduced to its structure on the device: for a value mask only entries whose value is
/// nonzero remain. `present` false means no mask (everything admitted, or nothing when
/// `complement` is set, as GraphBLAS defines a complemented NULL mask).
struct DeviceMask {
  bool present = false;
  bool complement = false;
  IndexType itype = IndexType::i32;
  Index nrows = 0, ncols = 0, nnz = 0;
  Buffer row_ptr, col_idx;
};

/// Builds the device mask for C<M> with GrB_STRUCTURE = `structure` and GrB_COMP = `complement`.
DeviceMask make_device_mask(const Matrix* M, bool structure, bool complement, IndexType it,
                            const Context& ctx);

/// Does the mask admit nothing (complemented NULL mask)?
inline bool mask_admits_nothing(const DeviceMask& m) { return !m.present && m.complement; }

/// An empty nrows x ncols matrix on the device (row pointers all zero).
Matrix empty_device_matrix(Index nrows, Index ncols, Type t, IndexType it, const Context& ctx);

}  // namespace ringblas::cuda
