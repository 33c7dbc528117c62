// Per-phase timeline of spgemm_hash calls (bench_spgemm --trace): at each mark the host time and
// a CUDA event on the caller's stream, so that one call shows where the host waits, where the GPU
// idles and what each phase costs. Off by default; a mark then costs one thread_local test.
#pragma once
#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace ringblas::cuda::spgemm_hash::phase_log {

/// One mark: its label, the host time and the time the stream reached it, both in microseconds
/// since the first mark of the log.
struct mark_time {
  std::string what;
  double host_us = 0, gpu_us = 0;
};

/// Starts (clears) or stops the log of this host thread.
void enable(bool on);
/// Records a mark when the log is on (host time now, an event on stream s).
void mark(const char* what, cudaStream_t s);
/// Whether the log of this host thread is on (to skip building notes).
bool on();
/// Adds a line of text (e.g. rows per bin) to the log when it is on.
void note(const std::string& text);
/// Waits for the last mark and returns the log's marks (the log stays on and is cleared).
std::vector<mark_time> take();
/// The notes since the last call (cleared).
std::vector<std::string> take_notes();

}  // namespace ringblas::cuda::spgemm_hash::phase_log
