// The reduce family's launchers (plain C++): monoid reductions of a device CSR matrix to a dense
// vector (rows or columns, with presence flags) and of a device array to one value.
#pragma once
#include "backend/cuda/reduce/policy.hpp"
#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::cuda::reduction {

/// t(i) = ⊕_j A(i, j) over the entries of row i (the identity where the row is empty), with
/// present(i) = row i has an entry. A group of lanes per row: 8, or a warp when rows average
/// over policy::long_row entries. A on the device with values of the monoid's type `A.type()`;
/// t holds A.nrows() values of that type, present A.nrows() bytes (both device memory). `tally`:
/// the empty-row count and row indices the kernel adds (policy.hpp); `kernel`: its schedule
/// (row_kernel::vec falls back to subwarp when A's values are not 16-byte aligned).
void rows(const Matrix& A, MonoidCode monoid, void* t, unsigned char* present, Context& ctx,
          row_tally tally = {}, row_kernel kernel = row_kernel::subwarp);

/// w = t as rows() makes it, a sparse vector of A.nrows() on the device, by the fused output path
/// (rows_output::fused): the row kernel also counts empty rows and writes each row's index, one
/// 8-byte read of the count (the host wait) follows; none empty -> t and the indices are w as
/// they stand, else a compaction with the count known (detail::compact_flagged). Only where
/// write_back would copy t (detail::write_back_copies_t).
Vector rows_to_vector(const Matrix& A, MonoidCode monoid, row_kernel kernel, Context& ctx);

/// The paths reduce takes: policy.hpp's defaults. Benchmarks and tests compare the others by
/// setting paths_now() (an internal switch of this family, like spgemm_hash's tuning; the
/// library reads no environment).
struct paths {
  row_kernel rows = path_defaults::rows_kernel;
  rows_output output = path_defaults::rows_output_path;
  column_method cols = path_defaults::cols_method;
};
paths& paths_now();

/// Whether folding from the monoid's identity gives what GraphBLAS's unseeded fold gives for
/// every entry count: not for `any` (it would keep the identity), nor for lor / land / lxor on
/// non-bool values (a lone 5.0 would become 1.0; two or more entries give 0/1 either way).
/// cols() sends the other monoids through the transpose whatever its `method`.
bool identity_seed_is_neutral(MonoidCode m, Type t);

/// t(j) = ⊕_i A(i, j) over the entries of column j, as rows() but for columns, by `method`
/// (the transpose and the row kernel where the identity seed is not neutral).
void cols(const Matrix& A, MonoidCode monoid, void* t, unsigned char* present, column_method method,
          Context& ctx);

/// ⊕ of n values of type `type` on the device (the identity when n = 0). The one result is
/// copied to the host (one counted device-to-host transfer).
Scalar all(MonoidCode monoid, Type type, const void* values, Index n, Context& ctx);

}  // namespace ringblas::cuda::reduction
