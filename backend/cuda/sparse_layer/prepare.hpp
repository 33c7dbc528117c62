// Host preprocessing of one sparse layer for the sparse_layer kernel: per block, the input rows
// its weights touch (the shared-memory map, split in stages of Policy::buffer rows) and the
// weights as transposed sliced ELL padded per warp with 16-bit offsets into the stage's buffer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ringblas/buffer.hpp"
#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"
#include "ringblas/sparse_layer.hpp"

namespace ringblas::cuda::sparse_layer {

/// Offsets (in 4-byte words) of each array inside one layer's contiguous blob, so that a layer
/// moves to the device (or streams) in a single copy.
struct BlobLayout {
  std::int32_t outputs = 0, inputs = 0, blocks = 0, stages = 0;
  std::int64_t entries = 0;  ///< padded ELL slots (multiple of 32)
  std::int32_t max_stage = 0;   ///< most map rows of any stage (the staged tail's buffer)
  std::size_t stage_displ = 0;  ///< int32[blocks + 1]: first stage of each block
  std::size_t map_displ = 0;    ///< int32[stages + 1]: first map slot of each stage
  std::size_t map = 0;          ///< int32[map total]: input row of each buffer slot
  std::size_t warp_displ = 0;   ///< int32[stages * warps + 1]: first ELL row of (stage, warp)
  std::size_t index = 0;        ///< uint16[entries]: buffer slot read by the entry
  std::size_t value = 0;        ///< float[entries]: weight (0 for padding)
  std::size_t words = 0;        ///< blob size in 4-byte words
  std::size_t bytes() const { return words * 4; }
};

struct PreparedLayer {
  BlobLayout layout;
  std::vector<std::uint32_t> blob;
};

/// How the host orders each lane's entries into a warp's ELL rows (the kernels read row by row;
/// a row's 32 reads cost as many shared-memory wavefronts as the most distinct words of a bank):
/// `bank` (the default, and what prepare_layers_device does): each lane takes a bank no earlier
/// lane of the row took, the one the warp still needs most; `broadcast` (host only, being
/// measured: bench_spdnn --fill): first a slot an earlier lane of the row already reads (free),
/// then as `bank`. On the Graph Challenge 1024 x 120 blobs: 2.38 wavefronts per row (1.79 in
/// layer 1) with bank, 1.015 with broadcast (spdnn_e2e_notes.md, session 10).
enum class EllFill { bank, broadcast };

/// Prepares A (host CSR, fp32 values after cast; rows = output neurons, columns = inputs): the
/// product computed is out(j, f) = ⊕_i A(j, i) ⊗ in(i, f).
PreparedLayer prepare_layer(const Matrix& a, EllFill fill = EllFill::bank);

/// prepare_layer(transpose_host(w)) of every host matrix in `weights`, the layers spread over the
/// host's cores (they are independent; one thread per layer at a time, `threads` 0 = all cores).
/// An exception in any layer is rethrown here, after every thread has stopped.
std::vector<PreparedLayer> prepare_layers(const std::vector<Matrix>& weights, unsigned threads = 0);

/// The order of a chain layer's outputs: sorted by their smallest input, ties by output id, so
/// that outputs reading the same inputs share a block and stage fewer input rows (in a RadiX-Net
/// layer every input set is read by 16 outputs, n/16 apart). `a`: outputs x inputs, rows sorted.
std::vector<std::int32_t> output_order(const Matrix& a);

/// a's rows in `order`, each column c renamed label[c] (empty: kept), rows sorted again.
Matrix permute_layer(const Matrix& a, const std::vector<std::int32_t>& order,
                     const std::vector<std::int32_t>& label);

/// A network's layers as the chain runs them: layer k computes its outputs in order[k] (position
/// t holds neuron order[k][t]) and reads its inputs in the previous layer's order (layer 1 in
/// neuron order), so every activation is written contiguously and no layer permutes data.
struct PreparedChain {
  std::vector<PreparedLayer> layers;  ///< prepare_layer(permute_layer(transpose_host(W_k), order[k], inverse of order[k-1]))
  std::vector<std::vector<std::int32_t>> order;
};

/// The chain on the host (the streamed path; prepare_layers_device gives the same bytes).
PreparedChain prepare_chain(const std::vector<Matrix>& weights, unsigned threads = 0,
                            EllFill fill = EllFill::bank);

/// Every layer of a network prepared on the device (prepare_device.cu): the blobs of
/// prepare_chain, byte for byte, one after another in one device buffer, and the orders.
struct DeviceWeights {
  Buffer blob;                      ///< all layers (device)
  Buffer order;                     ///< int32 [layers][neurons]: PreparedChain::order (device)
  std::vector<BlobLayout> layout;   ///< per layer
  std::vector<std::size_t> offset;  ///< per layer: first word in `blob`
  std::size_t words = 0;
  /// PrepareReturn::early: a cudaEvent_t recorded after the blob fill (it also keeps the host
  /// arrays of the last copies alive); null when the blobs were complete on return. wait_ready.
  std::shared_ptr<void> ready;
  std::size_t bytes() const { return words * 4; }
};

/// How prepare_layers_device puts the transposed rows of layers 2..L back in input order once
/// their inputs are renamed to the previous layer's output positions (the blobs are the same):
/// `insertion`, a renaming pass then one thread per row (insertion sort: session 7's path), or
/// `warp`, one pass of one warp per row (a bitonic sort in registers for rows of up to 32 entries,
/// which Graph Challenge rows have; the insertion sort for longer ones).
/// (The public PrepareRowSort, NetworkPrepareOptions::row_sort.) warp is the default since
/// session 8: on an H100, 1024 x 120 packed, prepare 4.30 against 5.60 ms (`spdnn_s8_warp_h100.md`,
/// `spdnn_s8_h100.md`), the blobs byte-identical (SparseNetworkGpu.WarpRowSortPreparesTheSameBlobs,
/// also under memcheck).
using RowSort = ringblas::PrepareRowSort;

/// How prepare_layers_device turns every layer into outputs-by-row (the blobs are the same):
/// `stack`, the layers as one block-diagonal matrix through the shared cuda::transpose (a stable
/// radix sort: stack, transpose and unstack, three passes over the entries and a host sync;
/// session 7's path), or `per_layer`, each layer in place: one warp per input row counts its
/// entries into their outputs' rows with atomics (keeping each entry's slot there), one block per
/// layer scans the counts, and the entries are scattered to their slots. The slots are in arrival
/// order, so every row is then sorted by input with the RowSort pass that layers 2..L run anyway
/// (layer 1 included): a row's inputs are distinct, so the sort gives the stable order.
/// (The public PrepareTranspose, NetworkPrepareOptions::transpose.) per_layer is the default since
/// s9: on an H100 it cut prepare 4.08 -> 3.30 ms at 1024 x 120, spdnn_s9_h100_*.md, and
/// SparseNetworkGpu.PerLayerTransposePreparesTheSameBlobs passed.
using LayerTranspose = ringblas::PrepareTranspose;

/// Whether prepare_layers_device waits for its last kernel (the blob fill, ~0.85 ms at 1024 x 120)
/// before returning: `synced` (sessions 7-8), or `early`: it returns with the fill queued, so that
/// the host's next work (mxm_layers packing the features) overlaps it. Then the blobs are complete
/// in stream order on ctx's stream and on the legacy stream (so on every blocking stream), and
/// any other stream waits with wait_ready.
/// (The public PrepareReturn, NetworkPrepareOptions::return_when.) early is the default since s9:
/// whole 10.91 -> 9.98 ms alone at 1024 x 120 on an H100; EarlyReturnPreparesTheSameBlobs passed.
using PrepareReturn = ringblas::PrepareReturn;

/// Where the per-block passes keep their working data (the blobs are the same): `global`
/// (sessions 7-8), or `shared`:
///   - analyse_blocks builds each block's bitmap of touched inputs and its word prefixes in shared
///     memory (when they fit: 2 x 4 B per 32 neurons, up to 32 KB) instead of with global atomics
///     (8,192 atomicOr on 32 words per block at 1024 neurons) and L2 reads, then writes both out;
///   - fill_blocks: each lane first copies the banks of its entries of the stage (up to 32; longer
///     lists search in global memory as before) into shared memory, each of the row's 32 serial
///     choices searches there, and every lane writes its index and value once per row, after the
///     row's choices (the loads off the serial chain, the stores coalesced), where `global` has
///     the chosen lane load and store them inside the chain.
/// (The public PrepareStaging, NetworkPrepareOptions::block_staging.) shared is the default since
/// s9, with the other three: whole 7.52 ms with all four against 10.91 with none at 1024 x 120 on
/// an H100; SharedBlockStagingPreparesTheSameBlobs passed, racecheck 0 hazards.
using BlockStaging = ringblas::PrepareStaging;

/// The paths prepare_layers_device takes (the defaults: NetworkPrepareOptions').
struct PrepareOptions {
  RowSort sort = RowSort::warp;
  LayerTranspose transpose = LayerTranspose::per_layer;
  PrepareReturn ret = PrepareReturn::early;
  BlockStaging staging = BlockStaging::shared;
  PackThreads pack = PackThreads::crew;  ///< packing the weights (upload packed)
};

/// The public options as prepare_layers_device takes them.
inline PrepareOptions prepare_options(const NetworkPrepareOptions& o) {
  return {o.row_sort, o.transpose, o.return_when, o.block_staging, o.pack_threads};
}

/// prepare_chain on the device: W_k (neurons x neurons, host or device, any index type; values
/// other than fp32 are cast on the host) uploaded as stored (or packed, when `how` says so and
/// every layer can be: packed_upload.hpp), transposed and laid out there. One host round trip
/// (the sizes of the layout); returns after the blobs are complete, or with their fill queued
/// (opt.ret). bytes_in: bytes sent.
DeviceWeights prepare_layers_device(const std::vector<Matrix>& weights, Context& ctx,
                                    SparseUpload how = SparseUpload::csr,
                                    std::size_t* bytes_in = nullptr,
                                    const PrepareOptions& opt = {});

/// Makes `stream` (a cudaStream_t; null: the legacy stream) wait until w's blobs are complete.
void wait_ready(const DeviceWeights& w, void* stream);

/// A host-prepared chain on ctx's device as prepare_layers_device lays it out (blobs one after
/// another, the orders), complete on return: network_holding makes it a SparseNetwork (bench_spdnn
/// --fill broadcast, and its tests).
DeviceWeights device_weights(const PreparedChain& chain, Context& ctx);

/// The SparseNetwork that holds `w` (prepared on `device`), as prepare_network returns it.
SparseNetwork network_holding(DeviceWeights w, Index neurons, const std::vector<float>& bias,
                              float ymax, int device);

/// Host transpose of a CSR matrix (fp32 values), used to turn W (i -> j) into outputs-by-row.
Matrix transpose_host(const Matrix& w);

}  // namespace ringblas::cuda::sparse_layer

namespace ringblas::detail {
/// What a ringblas::SparseNetwork holds: its layers prepared on its device.
struct SparseNetworkState {
  cuda::sparse_layer::DeviceWeights weights;
};
}  // namespace ringblas::detail
