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

namespace {
int tail_shared_bytes(int neurons) { return 2 * Tail::minibatch * neurons * int(sizeof(float)); }
}  // namespace

int tail_capacity(int neurons) {
  if (neurons > Tail::max_neurons) return 0;
  const int bytes = tail_shared_bytes(neurons);
  RINGBLAS_CUDA_TRY(cudaFuncSetAttribute(sparse_layer_tail_kernel<Tail>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  int dev = 0, sms = 0, per_sm = 0;
  RINGBLAS_CUDA_TRY(cudaGetDevice(&dev));
  RINGBLAS_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  RINGBLAS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sparse_layer_tail_kernel<Tail>, Tail::threads, bytes));
  return sms * per_sm * Tail::minibatch;
}

void launch_tail(const TailArgs& A, cudaStream_t s, bool sync) {
  if (A.count == 0 || A.bound <= 0) return;
  const int bytes = tail_shared_bytes(A.neurons);
  RINGBLAS_CUDA_TRY(cudaFuncSetAttribute(sparse_layer_tail_kernel<Tail>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  const unsigned grid = unsigned((A.bound + Tail::minibatch - 1) / Tail::minibatch);
  sparse_layer_tail_kernel<Tail><<<grid, Tail::threads, bytes, s>>>(A);
  RINGBLAS_CHECK_LAUNCH("sparse_layer_tail_kernel", s, sync);
}

}  // namespace ringblas::cuda::sparse_layer
