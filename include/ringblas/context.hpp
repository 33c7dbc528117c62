// Execution context: backend choice, device, stream, workspace and trace (Ginkgo executor / RAFT handle).
#pragma once
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>

namespace ringblas {

/// Which executor runs an operation. `automatic` picks cuda where a GPU and a kernel exist, else
/// cpu; `verify` runs both and throws VerificationFailed on the first differing entry.
enum class Backend : std::uint8_t { automatic, cpu, cuda, verify };
Backend parse_backend(const std::string& name);  // "auto", "cpu", "cuda", "verify"
const char* backend_name(Backend b);

/// Counters of explicit host<->device traffic, so that tests and the trace can see every copy.
struct TransferCounters {
  std::uint64_t host_to_device = 0, device_to_host = 0;
  std::uint64_t bytes_host_to_device = 0, bytes_device_to_host = 0;
};

/// Device memory resource: a pool owned by the cuda backend; opaque here so that this header stays
/// plain C++.
class MemoryResource;

class Context {
 public:
  Context();
  explicit Context(Backend backend);

  Backend backend = Backend::automatic;
  int device = 0;
  /// cudaStream_t; nullptr means the legacy default stream. Not owned: the caller creates and
  /// destroys it. Device memory allocated through this context is freed on this stream (in its
  /// order, buffer.hpp), so the stream must outlive the objects allocated with it (destroy them,
  /// or hand their buffers to another stream with Buffer::set_stream, before the stream).
  void* stream = nullptr;
  bool trace = false;      ///< print one line per dispatch decision to trace_out
  std::ostream* trace_out;
  bool debug_sync = false;  ///< synchronize and check after every kernel launch
  /// With trace: also each operation's wall time, the device synchronised at its end (a
  /// profile where no profiler runs; costs a synchronisation per operation).
  bool trace_time = false;
  mutable TransferCounters transfers;  ///< counted by every explicit copy (Matrix::to, ...)
  std::shared_ptr<MemoryResource> workspace;  ///< created lazily by the cuda backend

  /// Writes one trace line ("mxm: spgemm_hash, ...") if tracing is on.
  void trace_line(const std::string& line) const;
};

/// True when this build has the cuda backend and a device is visible.
bool cuda_available();

}  // namespace ringblas
