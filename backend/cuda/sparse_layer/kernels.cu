// Instantiations and launches of the sparse_layer kernel: plus_times over fp32, two epilogues.
#include <algorithm>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/sparse_layer/launch.cuh"
#include "backend/cuda/sparse_layer/sparse_layer.hpp"
#include "ringblas/error.hpp"

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

template <class TP>
int tail_shared_bytes(int neurons, int stage_rows) {
  const int floats = TP::staged ? TP::minibatch * (neurons + TP::groups * stage_rows)
                                : 2 * TP::minibatch * neurons;
  return floats * int(sizeof(float));
}

/// Calls f(TailPolicy) for the policy that fits `neurons` (false: none does): StagedTail when
/// stage_rows > 0 (LayerChainOptions::tail staged) and it fits, else the rows kernels.
template <class F>
bool with_tail_policy(int neurons, int stage_rows, F&& f) {
  if (stage_rows > 0 && neurons <= StagedTail::max_neurons) return f(StagedTail{}), true;
  if (neurons <= Tail::max_neurons) return f(Tail{}), true;
  if (neurons <= WideTail::max_neurons) return f(WideTail{}), true;
  return false;
}

}  // namespace

int tail_capacity(int neurons, int stage_rows) {
  int capacity = 0;
  with_tail_policy(neurons, stage_rows, [&](auto tp) {
    using TP = decltype(tp);
    const int bytes = tail_shared_bytes<TP>(neurons, stage_rows);
    RINGBLAS_CUDA_TRY(cudaFuncSetAttribute(sparse_layer_tail_kernel<TP>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    int dev = 0, sms = 0, per_sm = 0;
    RINGBLAS_CUDA_TRY(cudaGetDevice(&dev));
    RINGBLAS_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    RINGBLAS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sparse_layer_tail_kernel<TP>, TP::threads, bytes));
    capacity = sms * per_sm * TP::minibatch;
  });
  return capacity;
}

bool tail_stages(int neurons) { return neurons <= StagedTail::max_neurons; }

std::optional<std::string> can_implement_chain(const LayerChainOptions& options, Index neurons) {
  if (options.fused_tail && options.tail == SparseTail::staged &&
      neurons > Index(StagedTail::max_neurons))
    return "the staged tail (SparseTail::staged) reads networks of at most " +
           std::to_string(StagedTail::max_neurons) + " neurons, this one has " +
           std::to_string(neurons) + " (SparseTail::automatic or rows run the rows tail)";
  return std::nullopt;
}

void launch_tail(const TailArgs& A, cudaStream_t s, bool sync) {
  if (A.count == 0 || A.bound <= 0) return;
  const bool fits = with_tail_policy(A.neurons, A.stage_rows, [&](auto tp) {
    using TP = decltype(tp);
    const int bytes = tail_shared_bytes<TP>(A.neurons, A.stage_rows);
    RINGBLAS_CUDA_TRY(cudaFuncSetAttribute(sparse_layer_tail_kernel<TP>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    const unsigned grid = unsigned((A.bound + TP::minibatch - 1) / TP::minibatch);
    sparse_layer_tail_kernel<TP><<<grid, TP::threads, bytes, s>>>(A);
    RINGBLAS_CHECK_LAUNCH("sparse_layer_tail_kernel", s, sync);
  });
  if (!fits) throw NotImplemented("sparse_layer tail kernel: " + std::to_string(A.neurons) + " neurons do not fit");
}

}  // namespace ringblas::cuda::sparse_layer
