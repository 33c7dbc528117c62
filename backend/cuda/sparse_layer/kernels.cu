// Instantiations and launches of the sparse_layer kernel: plus_times over fp32, two epilogues.
#include <algorithm>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/sparse_layer/launch.cuh"

namespace ringblas::cuda::sparse_layer {
namespace {

using plus_times_fp32 = sr::semiring<sr::plus_monoid<float>, sr::times_op<float>>;

template <class Epi>
void launch(const LayerView& L, const FeatureArgs& F, const Epi& epi, cudaStream_t s, bool sync) {
  if (L.blocks == 0 || F.bound <= 0) return;
  // Minibatches are grid-strided over blockIdx.y: two waves of resident blocks are enough, and a
  // chain launched with the host's upper bound wastes little when the device count is lower.
  static int sms[64] = {};
  int dev = 0;
  RINGBLAS_CUDA_TRY(cudaGetDevice(&dev));
  if (dev < 64 && sms[dev] == 0)
    RINGBLAS_CUDA_TRY(cudaDeviceGetAttribute(&sms[dev], cudaDevAttrMultiProcessorCount, dev));
  const int resident = (dev < 64 ? sms[dev] : 132) * Policy::blocks_per_sm * 2;
  const int minibatches = (F.bound + Policy::minibatch - 1) / Policy::minibatch;
  const int rows_of_blocks = std::max(1, (resident + L.blocks - 1) / L.blocks);
  const dim3 grid(unsigned(L.blocks), unsigned(std::min({minibatches, rows_of_blocks, 65535})));
  sparse_layer_kernel<plus_times_fp32, Epi><<<grid, Policy::block, shared_bytes(), s>>>(L, F, epi);
  RINGBLAS_CHECK_LAUNCH("sparse_layer_kernel", s, sync);
}

}  // namespace

void launch_layer(const LayerView& L, const FeatureArgs& F, const BiasReluClamp& epi, cudaStream_t s,
                  bool sync) {
  launch(L, F, epi, s, sync);
}
void launch_layer(const LayerView& L, const FeatureArgs& F, const ColumnEpilogue& epi, cudaStream_t s,
                  bool sync) {
  launch(L, F, epi, s, sync);
}

}  // namespace ringblas::cuda::sparse_layer
