// Per-phase wall times of a host function that queues device work (prepare_network, mxm_layers on
// a prepared network), printed with --trace: each phase synchronizes ctx's stream and traces the
// time since the previous one, so the split shows where the whole time goes. Profiling only: the
// syncs serialize work that otherwise overlaps (the sum is an upper bound of the untraced time).
// Without ctx.trace a phase costs nothing (no sync, no clock read).
#pragma once
#include <cuda_runtime.h>

#include <chrono>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "ringblas/context.hpp"

namespace ringblas::cuda::sparse_layer {

class PhaseTrace {
 public:
  PhaseTrace(const Context& ctx, std::string prefix) : ctx_(ctx), prefix_(std::move(prefix)) {
    if (ctx_.trace) since_ = first_ = clock::now();
  }
  /// Ends the phase `name` (what was done since the previous call).
  void operator()(const std::string& name) {
    if (!ctx_.trace) return;
    RINGBLAS_CUDA_TRY(cudaStreamSynchronize(stream_of(ctx_)));
    const auto now = clock::now();
    ctx_.trace_line(prefix_ + ": " + name + " " + ms(since_, now) + " ms (" + ms(first_, now) +
                    " ms in all)");
    since_ = now;
  }

 private:
  using clock = std::chrono::steady_clock;
  static std::string ms(clock::time_point a, clock::time_point b) {
    return std::to_string(std::chrono::duration<double, std::milli>(b - a).count());
  }
  const Context& ctx_;
  std::string prefix_;
  clock::time_point since_{}, first_{};
};

}  // namespace ringblas::cuda::sparse_layer
