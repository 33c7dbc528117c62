// ncu hook shared by the benchmark programs (tests/bench/profile_targets.sh). With the environment
// variable RINGBLAS_BENCH_PROFILE set, a measured call whose label it selects runs once more,
// untimed, after its warm-ups: between cudaProfilerStart and cudaProfilerStop, inside an NVTX
// range named by the label, so that `ncu --profile-from-start off --nvtx` profiles exactly one
// call of each selected operation and ncu_summary.py can group the kernels by operation. Unset
// (the default), nothing runs and the timings are those of the plain program.
#pragma once
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "tests/bench/bench_args.hpp"
#include "tests/bench/bench_cuda.hpp"

namespace ringblas::bench {

/// Does RINGBLAS_BENCH_PROFILE select `label`? "all" selects every label, otherwise those that
/// contain one of its comma-separated words; unset or empty selects none.
inline bool profile_selected(const std::string& label) {
  const char* env = std::getenv("RINGBLAS_BENCH_PROFILE");
  if (env == nullptr || *env == '\0' || label.empty()) return false;
  const std::string words = env;
  return words == "all" || selected(split_list(words), label);
}

/// When `label` is selected: fn() once, alone on the device, profiled, in the NVTX range
/// "label | bytes=B" where B is the compulsory traffic the bench divides by the time for its GB/s
/// (0: the bench counts none). ':' and '"' in the label become spaces: ncu's NVTX column uses
/// them as separators.
inline void profile_once(const std::string& label, double bytes, const std::function<void()>& fn) {
  if (!profile_selected(label)) return;
  char tail[48];
  std::snprintf(tail, sizeof tail, " | bytes=%.0f", bytes);
  std::string name = label + tail;
  for (char& c : name)
    if (c == ':' || c == '"') c = ' ';
  BENCH_CUDA(cudaDeviceSynchronize());
  nvtxRangePushA(name.c_str());
  BENCH_CUDA(cudaProfilerStart());
  fn();
  BENCH_CUDA(cudaDeviceSynchronize());
  BENCH_CUDA(cudaProfilerStop());
  nvtxRangePop();
  std::fprintf(stderr, "profiled: %s\n", name.c_str());
}

}  // namespace ringblas::bench
