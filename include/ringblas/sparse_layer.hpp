// Chained fused sparse layers (sparse DNN inference): the sparse_layer kernel family's public API.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas {

namespace detail {
struct SparseNetworkState;  ///< the backend's prepared weights (device memory)
}

/// How host sparse matrices cross the bus to the device: prepare_network's weights, and the
/// sparse features of mxm_layers on a prepared network.
enum class SparseUpload {
  csr,     ///< the CSR arrays as stored (index width and values as they are)
  packed,  ///< the narrowest encoding: 16-bit column indices when there are at most 65536
           ///< columns (else 32-bit), one value for a run of rows whose values are all the same
           ///< (iso, detected), through pinned staging where packing, copy and decoding overlap
};

/// How the tail kernel (LayerChainOptions::fused_tail) reads the activations it keeps in shared
/// memory (backend/cuda/sparse_layer/tail.cuh; the results are the same). Names (--tail of
/// `ringblas spdnn` and bench_spdnn): auto, rows, staged.
enum class SparseTail {
  automatic,  ///< (default) staged where it applies (at most 1024 neurons), else rows; the trace
              ///< names the one that ran
  rows,       ///< each weight reads its input's row through the layer's map (session 9)
  staged,     ///< (1024 x 120 layers 3.77 ms against 4.18 with rows, H100, spdnn_s10_h100.md)
              ///< per layer each block first copies the rows its weights read into a buffer laid
              ///< out as the per-layer kernel stages them (bank-conflict-free reads); networks of
              ///< at most 1024 neurons: asked for on a wider one with fused_tail on, mxm_layers
              ///< throws NotImplemented (before any work) instead of running rows
};
std::string_view sparse_tail_name(SparseTail t);
SparseTail parse_sparse_tail(std::string_view name);  ///< InvalidValue naming the valid ones

/// The threads that pack host matrices for SparseUpload::packed (the bytes sent and the arrays
/// are the same; backend/cuda/sparse_layer/packed_upload.hpp): `crew` (default since session 9:
/// whole 10.91 -> 9.39 ms at 1024 x 120 on an H100), threads with their streams and pinned slots
/// kept per device; `spawn`, created and joined by every upload (sessions 7-8).
enum class PackThreads { spawn, crew };

/// prepare_network's paths (each pair gives the same prepared weights; the defaults are the
/// measured faster ones, session 9, spdnn_s9_h100_*.md; backend/cuda/sparse_layer/prepare.hpp
/// describes them). bench_spdnn's flags set them to compare.
/// Renamed rows sorted by one thread per row (insertion) or one warp per row.
enum class PrepareRowSort { insertion, warp };
/// Layers transposed as one block-diagonal stack or each in place.
enum class PrepareTranspose { stack, per_layer };
/// prepare_network returns after the blob fill or with it queued (other streams: wait_ready).
enum class PrepareReturn { synced, early };
/// The per-block passes keep their data in global or shared memory.
enum class PrepareStaging { global, shared };

struct NetworkPrepareOptions {
  SparseUpload upload = SparseUpload::csr;  ///< how host weights cross the bus
  PrepareRowSort row_sort = PrepareRowSort::warp;
  PrepareTranspose transpose = PrepareTranspose::per_layer;
  PrepareReturn return_when = PrepareReturn::early;
  PrepareStaging block_staging = PrepareStaging::shared;
  PackThreads pack_threads = PackThreads::crew;  ///< with upload packed
};

struct LayerChainOptions {
  /// Device bytes the prepared weights may occupy; when the whole network needs more, the weights
  /// are streamed: the next layer is copied on a second stream into a double buffer while the
  /// current one computes. 0 means no limit (all layers resident).
  std::size_t weight_budget_bytes = 0;
  /// Stream even when everything fits (tests reach the out-of-core path with it).
  bool force_out_of_core = false;
  /// Once few features remain (as many as one wave of blocks holds), run every remaining layer
  /// in one launch (the tail kernel: each block keeps its features' activations in shared memory
  /// from layer to layer), instead of one launch per layer. Needs resident weights and at most
  /// 6400 neurons (shared memory); the host reads the active count (one synchronization)
  /// after layers 4, 6, 8, 12, 16, 24, ... to decide.
  bool fused_tail = true;
  /// The tail kernel's reads (bench_spdnn --tail compares them).
  SparseTail tail = SparseTail::automatic;
  /// Called on the host with (layer, active features) for every layer once the chain has run (the
  /// counts stay on the device until then: the host never stalls the layers to read them).
  std::function<void(Index layer, Index active)> on_layer;
  /// How host sparse features cross the bus (mxm_layers on a prepared network).
  SparseUpload upload = SparseUpload::csr;
  /// Who packs them (upload packed).
  PackThreads pack_threads = PackThreads::crew;
};

/// Where the time went, from CUDA events on the compute stream (milliseconds).
struct LayerChainStats {
  double prepare_ms = 0;     ///< weights to sliced ELL + maps, and their upload
  double inference_ms = 0;   ///< first layer's launch to the last layer's end
  double kernel_ms = 0;      ///< sum of the fused layer kernels
  double compaction_ms = 0;  ///< separate compaction passes (0: fused into the layer kernel)
  double transfer_ms = 0;    ///< features in and results out
  /// Bytes that crossed the bus to the device (features; weights for prepare_network).
  std::size_t bytes_in = 0;
  std::vector<Index> active;  ///< features still active after each layer
  std::vector<double> layer_ms;  ///< per layer (launch to launch on the stream); the tail kernel's layers count as one
  Index tail_from = 0;           ///< first layer (1-based) run by the tail kernel; 0: none
  std::size_t weight_bytes = 0;  ///< prepared weights (all layers)
  bool out_of_core = false;
};

/// Sparse DNN layers fused on the GPU (variant sparse_layer; Hidayetoglu et al., HPEC 2020):
///   Y_k(:, f) = min(max(W_kᵀ ⊕.⊗ Y_{k-1}(:, f) + b_k, 0), ymax),  k = 1..L, plus_times over fp32,
/// for Y_0 = `features` (neurons x F dense fp32, column-major: one column per feature, which is
/// the Graph Challenge's Y·W with images as rows, transposed). Features whose column becomes all
/// zero are dropped after each layer (with b_k <= 0 they stay zero). Returns the final columns of
/// the surviving features (neurons x S, column-major, on the device) and writes their 0-based
/// ids, ascending, to `ids`.
/// Preconditions: every W_k is neurons x neurons; every b_k <= 0 (InvalidValue otherwise: the
/// dense form adds b_k to every element, which equals the sparse form only then).
/// Throws NotCompiled without CUDA, NotImplemented for ctx.backend cpu or verify (there is no cpu
/// chain to verify against) or without a device, DimensionMismatch.
DenseMatrix mxm_layers(const std::vector<Matrix>& weights, const std::vector<float>& bias,
                       float ymax, const DenseMatrix& features, std::vector<Index>& ids,
                       const LayerChainOptions& options, LayerChainStats* stats, Context& ctx);

/// A network prepared once for mxm_layers on the device of the Context it was prepared with
/// (ctx.device): every layer's weights transposed and laid out for the sparse_layer kernel by
/// kernels on that device (no host preprocessing), resident there, reused by every call.
/// Copies share the prepared weights.
struct SparseNetwork {
  Index neurons = 0;
  std::vector<float> bias;  ///< b_k, one per layer
  float ymax = 0;
  int device = 0;                ///< the CUDA device holding the weights
  std::size_t weight_bytes = 0;  ///< prepared weights (all layers)
  std::shared_ptr<const detail::SparseNetworkState> state;  ///< backend-owned; null: not prepared
  Index layers() const { return Index(bias.size()); }
};

/// Prepares W_1..W_L (neurons x neurons each, host or device, fp32 values: other types are cast)
/// and b_k <= 0, ymax > 0 for mxm_layers(SparseNetwork, ...). stats (optional): prepare_ms,
/// weight_bytes and bytes_in are set, the rest reset. `upload`: how host weights cross the bus.
/// Same errors as mxm_layers.
SparseNetwork prepare_network(const std::vector<Matrix>& weights, const std::vector<float>& bias,
                              float ymax, Context& ctx, LayerChainStats* stats = nullptr,
                              SparseUpload upload = SparseUpload::csr);
/// The same with every preparation path chosen (options.upload as `upload` above).
SparseNetwork prepare_network(const std::vector<Matrix>& weights, const std::vector<float>& bias,
                              float ymax, Context& ctx, LayerChainStats* stats,
                              const NetworkPrepareOptions& options);

/// Page-locks the host staging SparseUpload::packed copies through (kept for the process; the
/// first packed upload does it otherwise), so that a timed run does not include this one-time
/// start-up cost, as the device pool's growth. Returns the bytes held (0 without CUDA or device).
std::size_t reserve_upload_staging(Context& ctx);

/// The layers of a prepared network on sparse features: Y_0 = featuresᵀ for `features` images x
/// neurons (CSR, host or device, fp32 values; other types are cast on the host), converted to the
/// kernel's dense layout on the device (the sparse arrays are what crosses the bus). Returns the
/// ids (0-based rows of `features`, ascending) of the images with a nonzero final activation: the
/// Graph Challenge categories. `survivors`, when given, receives their final columns (neurons x
/// count, column-major, on the device, in the order of the ids). stats: transfer_ms covers the
/// features in and the ids out; prepare_ms is 0 (prepare_network reports it).
/// Throws as mxm_layers, and InvalidValue for a network prepared on another device.
std::vector<Index> mxm_layers(const SparseNetwork& net, const Matrix& features,
                              const LayerChainOptions& options, LayerChainStats* stats,
                              Context& ctx, DenseMatrix* survivors = nullptr);

/// Sparse features (images x neurons, CSR) on ctx's device as mxm_layers on a prepared network
/// reads them: fp32 values (other types are cast on the host), sent the way `upload` says (device
/// fp32 features are copied on the device). mxm_layers copies nothing for device features, so a
/// caller can stage them, on another host thread, while prepare_network runs (sparse_dnn's
/// infer_categories does with `overlap`). bytes_in (optional): the bytes that crossed the bus.
/// Throws NotCompiled without CUDA and NotImplemented where mxm_layers cannot run (cpu, verify).
Matrix stage_features(const Matrix& features, SparseUpload upload, Context& ctx,
                      std::size_t* bytes_in = nullptr);

/// Why mxm_layers would not run on `ctx` (its dispatch table's answer: cpu or verify backend, a
/// build without CUDA, no device), or "" when it runs. For algorithms that choose between the
/// fused chain and the generic operations.
std::string mxm_layers_unavailable(const Context& ctx);

}  // namespace ringblas
