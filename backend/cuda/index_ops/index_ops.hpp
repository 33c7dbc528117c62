// Launchers of the index operations (plain C++): a row/column gather that builds A(rows, cols)
// or lifts A into C's coordinates, and a region filter, both on device CSR matrices. Index maps
// come from the host (the index lists are host data): one counted upload per list.
#pragma once
#include <vector>

#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::cuda::index_ops {

/// Index maps on the device; an empty buffer means the identity.
struct device_maps {
  Buffer src_row;           ///< int64 per output row: its source row, or -1
  Buffer col_ptr, col_out;  ///< per source column, the output columns it goes to (CSR, int64)
  bool monotone = true;     ///< output rows come out sorted without a sort
};

/// The output matrix (out_rows x out_cols, A's value type and index width) whose row i is source
/// row src_row[i] with columns mapped through (col_ptr, col_out). A on the device. One host sync
/// (the output size).
Matrix gather(const Matrix& A, Index out_rows, Index out_cols, const device_maps& maps,
              Context& ctx);

/// The entries of C inside (`inside`) or outside the region rowin x colin (device byte flags,
/// null: every index). C on the device. One host sync (the output size).
Matrix filter_region(const Matrix& C, const unsigned char* rowin, const unsigned char* colin,
                     bool inside, Context& ctx);

/// A host vector copied to a new device buffer (counted in ctx.transfers).
template <class T>
Buffer upload(const std::vector<T>& v, const Context& ctx) {
  Buffer h(v.size() * sizeof(T), Location::host);
  if (!v.empty()) std::copy(v.begin(), v.end(), h.as<T>());
  return h.to(Location::device, ctx);
}

}  // namespace ringblas::cuda::index_ops
