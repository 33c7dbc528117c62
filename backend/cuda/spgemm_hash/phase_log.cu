// spgemm_hash's phase log: marks per host thread, events reused across calls (created once).
#include "backend/cuda/spgemm_hash/phase_log.hpp"

#include <chrono>

#include "backend/cuda/common/check.cuh"

namespace ringblas::cuda::spgemm_hash::phase_log {
namespace {

struct state {
  bool on = false;
  std::vector<const char*> what;
  std::vector<std::chrono::steady_clock::time_point> host;
  std::vector<cudaEvent_t> events;  ///< grows; events[i] belongs to mark i
  std::vector<std::string> notes;
};

state& log() {
  thread_local state s;
  return s;
}

}  // namespace

void enable(bool on) {
  state& s = log();
  s.on = on;
  s.what.clear();
  s.host.clear();
  s.notes.clear();
}

bool on() { return log().on; }

void note(const std::string& text) {
  state& s = log();
  if (s.on) s.notes.push_back(text);
}

std::vector<std::string> take_notes() {
  std::vector<std::string> out;
  out.swap(log().notes);
  return out;
}

void mark(const char* what, cudaStream_t stream) {
  state& s = log();
  if (!s.on) return;
  const std::size_t i = s.what.size();
  if (i == s.events.size()) {
    cudaEvent_t e;
    RINGBLAS_CUDA_TRY(cudaEventCreate(&e));
    s.events.push_back(e);
  }
  s.what.push_back(what);
  s.host.push_back(std::chrono::steady_clock::now());
  RINGBLAS_CUDA_TRY(cudaEventRecord(s.events[i], stream));
}

std::vector<mark_time> take() {
  state& s = log();
  std::vector<mark_time> out;
  if (s.what.empty()) return out;
  RINGBLAS_CUDA_TRY(cudaEventSynchronize(s.events[s.what.size() - 1]));
  for (std::size_t i = 0; i < s.what.size(); ++i) {
    float ms = 0;
    RINGBLAS_CUDA_TRY(cudaEventElapsedTime(&ms, s.events[0], s.events[i]));
    out.push_back({s.what[i],
                   std::chrono::duration<double, std::micro>(s.host[i] - s.host[0]).count(),
                   double(ms) * 1000.0});
  }
  s.what.clear();
  s.host.clear();
  return out;
}

}  // namespace ringblas::cuda::spgemm_hash::phase_log
