// Host preprocessing of one sparse layer for the sparse_layer kernel: per block, the input rows
// its weights touch (the shared-memory map, split in stages of Policy::buffer rows) and the
// weights as transposed sliced ELL padded per warp with 16-bit offsets into the stage's buffer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ringblas/matrix.hpp"

namespace ringblas::cuda::sparse_layer {

/// Offsets (in 4-byte words) of each array inside one layer's contiguous blob, so that a layer
/// moves to the device (or streams) in a single copy.
struct BlobLayout {
  std::int32_t outputs = 0, inputs = 0, blocks = 0, stages = 0;
  std::int64_t entries = 0;  ///< padded ELL slots (multiple of 32)
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

/// Prepares A (host CSR, fp32 values after cast; rows = output neurons, columns = inputs): the
/// product computed is out(j, f) = ⊕_i A(j, i) ⊗ in(i, f).
PreparedLayer prepare_layer(const Matrix& a);

/// prepare_layer(transpose_host(w)) of every host matrix in `weights`, the layers spread over the
/// host's cores (they are independent; one thread per layer at a time, `threads` 0 = all cores).
/// An exception in any layer is rethrown here, after every thread has stopped.
std::vector<PreparedLayer> prepare_layers(const std::vector<Matrix>& weights, unsigned threads = 0);

/// Host transpose of a CSR matrix (fp32 values), used to turn W (i -> j) into outputs-by-row.
Matrix transpose_host(const Matrix& w);

}  // namespace ringblas::cuda::sparse_layer
