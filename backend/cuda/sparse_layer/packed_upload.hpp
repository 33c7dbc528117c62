// Host CSR matrices to the device in packed form (SparseUpload::packed): what crosses the bus is
// the narrowest honest encoding of the rows, and the device rebuilds plain CSR arrays from it.
//   - column indices in 16 bits when every matrix has at most 65536 columns, else 32 bits;
//   - values: per segment of rows, one value when every value there is the same (an "iso"
//     segment: the pattern plus one value, as SuiteSparse's iso matrices; detected while packing,
//     never assumed), else every value as fp32;
//   - row offsets segment-local, 32 bits.
// Packing runs on several host threads, each filling its own pinned staging slots (process-wide,
// kept between calls) and copying them on its own stream, where one decode kernel per slot writes
// the CSR arrays: packing, copying and decoding of different slots overlap (the threads and their
// streams are created per call, or kept between calls: PackThreads below). The caller's stream
// is made to wait for the copies; the host does not wait for the device. The host half (segments,
// slots cut so that every thread gets several, the packing itself) is packed_pack.hpp.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "ringblas/buffer.hpp"
#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"
#include "ringblas/sparse_layer.hpp"

namespace ringblas::cuda::sparse_layer {

/// Matrices stacked in one set of device CSR arrays: matrix k's row offsets are
/// row_ptr[row_base[k] .. row_base[k] + nrows_k] (matrix-local: the first is 0), its entries
/// col_idx / values from entry_base[k]. Index arrays are int32 when every matrix has fewer than
/// 2^31 entries, else int64 (index_type).
struct PackedDevice {
  Buffer row_ptr, col_idx, values;  ///< device
  IndexType index_type = IndexType::i32;
  std::vector<std::size_t> row_base, entry_base;
  std::size_t bytes_sent = 0;  ///< bytes that crossed the bus
  bool iso = true;             ///< every segment was sent as iso
};

/// Why `mats` cannot go packed ("" when they can): a matrix on the device, a row whose entries do
/// not fit a staging slot, 2^32 or more columns.
std::string packed_unavailable(const std::vector<const Matrix*>& mats);

/// How upload_packed runs its packing threads (the bytes sent and the arrays are the same):
/// `spawn`, threads, streams and events created and destroyed by every call, which waits for its
/// last copies before returning its pinned slots (sessions 7-8), or `crew`, a crew of threads kept
/// per device (crew.hpp) with their streams, events and pinned slots, leased by a call and
/// returned: no creation per call, and no wait for the last copies (the crew's next call waits
/// for a slot's copy before packing into it again).
/// (The public ringblas::PackThreads, NetworkPrepareOptions::pack_threads and
/// LayerChainOptions::pack_threads: crew is the default since s9, whole 10.91 -> 9.39 ms alone at
/// 1024 x 120 on an H100; SparseUploadGpu.CrewUploadsTheSameArrays passed.)
using ringblas::PackThreads;

/// Uploads host CSR matrices (any index type; values cast to fp32 on the host when they are not
/// fp32) as described above; the arrays are ready in stream order on ctx's stream when this
/// returns. Throws NotImplemented with packed_unavailable's reason.
PackedDevice upload_packed(const std::vector<const Matrix*>& mats, Context& ctx,
                           PackThreads threads = PackThreads::crew);

/// The device Matrix of a one-matrix PackedDevice (adopts its arrays).
Matrix packed_matrix(PackedDevice&& p, Index nrows, Index ncols, Index nnz);

/// Pins the process's staging slots now (the first upload_packed otherwise does): returns the
/// bytes held. Page-locking is a one-time start-up cost of the process, like the device pool.
std::size_t reserve_packed_staging();

}  // namespace ringblas::cuda::sparse_layer
