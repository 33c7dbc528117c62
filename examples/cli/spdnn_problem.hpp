// `ringblas spdnn`: the options, the loaded problem (network, images, truth) and the truth check,
// shared by the single-process run (cmd_spdnn.cpp) and the MPI run (spdnn_mpi.cpp).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "algorithms/sparse_dnn.hpp"
#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"
#include "ringblas/sparse_layer.hpp"

namespace ringblas::cli {

struct SpdnnOptions {
  Index neurons = 1024, layers = 120;
  std::string dir;
  std::optional<Index> images;  ///< first K images (cyclic); all of the file's when absent
  Index gpus = 1;               ///< MPI ranks, one per GPU
  Backend backend = Backend::automatic;
  std::optional<Index> progress;  ///< progress line every P layers
  bool trace = false;
  Index rebalance_after = 0;         ///< 0: never rebalance
  double rebalance_threshold = 0.1;  ///< rebalance when max/mean - 1 of the active rows exceeds it
  double baseline_ms = 0;            ///< 1-rank time for the scaling efficiency (0: not given)
  /// How weights and images cross the bus (--upload). Packed by default: the whole inference of
  /// 16384 x 120 (60,000 images, H100, session 11) took 4.39x the layer time with csr (weights
  /// 123 ms, images in and ids out 130 ms) and 1.65x packed (bench_spdnn).
  SparseUpload upload = SparseUpload::packed;
  bool overlap = false;  ///< images staged on the device while the weights are prepared (--overlap)
  SparseTail tail = SparseTail::automatic;  ///< the fused chain's tail kernel reads (--tail)
};

struct SpdnnProblem {
  Index count = 0;        ///< images inferred
  Index file_images = 0;  ///< images in the file (the truth covers these)
  Index upsample = 1;     ///< > 1: the 1024 images upsampled, no truth
  Index progress = 0;     ///< progress every P layers, 0: none
  double images_s = 0, network_s = 0;  ///< wall time reading the images / building the network
  std::string images_path;
  Matrix images;  ///< count x neurons
  sparse_dnn::Network net;
};

/// Reads the images (or upsamples the 1024 ones) and builds the network (files in opt.dir where
/// present, generated otherwise). IoError when no image file is found.
SpdnnProblem load_spdnn_problem(const SpdnnOptions& opt);

/// Device memory the fused chain will take for `images` images of `net` (the dense activations,
/// three copies, and the weights' preparation), allocated once and freed into the device pool
/// before the timed inference, so that the pool's one-time growth (and the CUDA context
/// creation) is start-up, not inference, as reading the files is; with --upload packed also the
/// pinned staging (reserve_upload_staging); then the kernels are loaded (they load lazily, on
/// their first launch) by the same inference on the first layers and a few images. Prints what it
/// reserved and the warm-up's time.
void reserve_start_up(const SpdnnOptions& opt, const sparse_dnn::Network& net, Index images,
                      Context& ctx, bool print);

/// The "spdnn: N neurons x L layers, ..." header line.
void print_spdnn_header(const SpdnnOptions& opt, const SpdnnProblem& p, const std::string& extra);

/// Prints the category count and PASS/FAIL against opt.dir's truth (or that there is none);
/// returns the exit status: 0 PASS or no truth, 1 FAIL.
int check_spdnn_truth(const SpdnnOptions& opt, const SpdnnProblem& p,
                      const std::vector<Index>& got);

}  // namespace ringblas::cli
