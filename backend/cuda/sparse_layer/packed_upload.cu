// Packed host-to-device upload of CSR matrices (see packed_upload.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/sparse_layer/crew.hpp"
#include "backend/cuda/sparse_layer/packed_pack.hpp"
#include "backend/cuda/sparse_layer/packed_upload.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda::sparse_layer {
namespace {

using namespace packing;

/// Host threads packing (each with two slots): enough to keep up with the bus on a 16-core host.
constexpr unsigned kMaxWorkers = 8;

template <class W, class I>
__global__ void decode_slot(const unsigned char* slot, I* rp, I* ci, float* v) {
  const Segment* seg = reinterpret_cast<const Segment*>(slot + 16);
  const unsigned count = *reinterpret_cast<const unsigned*>(slot);
  const long long stride = (long long)gridDim.x * blockDim.x,
                  first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  for (unsigned s = blockIdx.y; s < count; s += gridDim.y) {
    const Segment g = seg[s];
    const unsigned* off = reinterpret_cast<const unsigned*>(slot + g.offsets);
    for (long long r = first; r <= (long long)g.rows; r += stride)
      rp[g.out_row + r] = I(g.rp_base + off[r]);
    const W* idx = reinterpret_cast<const W*>(slot + g.indices);
    const float* val = reinterpret_cast<const float*>(slot + g.values);
    for (long long p = first; p < (long long)g.entries; p += stride) {
      ci[g.out_entry + p] = I(idx[p]);
      v[g.out_entry + p] = g.iso ? val[0] : val[p];
    }
  }
}

/// The process's pinned staging slots (portable: any device may copy from them), leased by
/// calls and returned, never freed.
class PinnedSlots {
 public:
  static PinnedSlots& instance() {
    static PinnedSlots pool;
    return pool;
  }
  std::vector<unsigned char*> lease(std::size_t count) {
    std::vector<unsigned char*> out;
    {
      const std::lock_guard<std::mutex> hold(lock_);
      while (out.size() < count && !free_.empty()) {
        out.push_back(free_.back());
        free_.pop_back();
      }
    }
    while (out.size() < count) {
      void* p = nullptr;
      RINGBLAS_CUDA_TRY(cudaHostAlloc(&p, kSlotBytes, cudaHostAllocPortable));
      out.push_back(static_cast<unsigned char*>(p));
    }
    return out;
  }
  void give_back(const std::vector<unsigned char*>& slots) {
    const std::lock_guard<std::mutex> hold(lock_);
    free_.insert(free_.end(), slots.begin(), slots.end());
  }

 private:
  std::mutex lock_;
  std::vector<unsigned char*> free_;
};

/// One packing thread's device side: its stream, the events of its two pinned slots' copies and
/// of its last decode, and the slots.
struct Worker {
  cudaStream_t stream = nullptr;
  cudaEvent_t decoded = nullptr;
  cudaEvent_t copied[2] = {nullptr, nullptr};
  unsigned char* pinned[2] = {nullptr, nullptr};
};

/// w's stream and events, on the current device. Non-blocking: the copies need not wait for work
/// queued on the legacy stream before them (prepare_network's kernels, when the features are
/// staged meanwhile); what they depend on is `allocated`, and the caller's stream waits for
/// `decoded` (upload_packed).
void open_worker(Worker& w) {
  RINGBLAS_CUDA_TRY(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking));
  RINGBLAS_CUDA_TRY(cudaEventCreateWithFlags(&w.decoded, cudaEventDisableTiming));
  for (cudaEvent_t& e : w.copied)
    RINGBLAS_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
}

/// Destroys what open_worker created (a stream is released once its work is done).
void close_worker(Worker& w) {
  for (cudaEvent_t e : w.copied)
    if (e) cudaEventDestroy(e);
  if (w.decoded) cudaEventDestroy(w.decoded);
  if (w.stream) cudaStreamDestroy(w.stream);
  w = Worker{};
}

/// Packing threads: one per slot, at most kMaxWorkers and the host's cores.
unsigned workers_for(std::size_t slots) {
  return unsigned(std::max<std::size_t>(
      1, std::min<std::size_t>({std::size_t(kMaxWorkers),
                                std::max(1u, std::thread::hardware_concurrency()), slots})));
}

template <class W, class I>
void launch_decode(const unsigned char* slot, unsigned segments, void* rp, void* ci, void* v,
                   cudaStream_t s) {
  decode_slot<W, I><<<dim3(128, segments), 256, 0, s>>>(
      slot, static_cast<I*>(rp), static_cast<I*>(ci), static_cast<float*>(v));
}

/// PackThreads::crew: a crew of kept threads on one device and its workers (pinned slots leased
/// once and kept).
struct PackCrew {
  int device;
  Crew threads;
  std::vector<Worker> workers;
  PackCrew(int dev, unsigned size) : device(dev), threads(size), workers(threads.size()) {
    RINGBLAS_CUDA_TRY(cudaSetDevice(dev));
    const std::vector<unsigned char*> slots = PinnedSlots::instance().lease(2 * workers.size());
    for (std::size_t t = 0; t < workers.size(); ++t) {
      open_worker(workers[t]);
      workers[t].pinned[0] = slots[2 * t];
      workers[t].pinned[1] = slots[2 * t + 1];
    }
  }
};

/// The process's crews, leased by calls (two uploads at once, the weights and the features staged
/// meanwhile, get one each) and returned; never destroyed, like the pinned slots (their threads
/// wait for work as long as the process lives).
class PackCrews {
 public:
  static PackCrews& instance() {
    static PackCrews* pool = new PackCrews;  // never destroyed: no thread is joined at exit
    return *pool;
  }
  PackCrew* lease(int device) {
    {
      const std::lock_guard<std::mutex> hold(lock_);
      for (std::size_t i = 0; i < free_.size(); ++i)
        if (free_[i]->device == device) {
          PackCrew* c = free_[i];
          free_.erase(free_.begin() + std::ptrdiff_t(i));
          return c;
        }
    }
    return new PackCrew(device, workers_for(kMaxWorkers));
  }
  void give_back(PackCrew* c) {
    const std::lock_guard<std::mutex> hold(lock_);
    free_.push_back(c);
  }

 private:
  std::mutex lock_;
  std::vector<PackCrew*> free_;
};

/// A crew leased for one call (none with PackThreads::spawn), given back however the call ends.
struct CrewLease {
  PackCrew* crew;
  CrewLease(PackThreads threads, int device)
      : crew(threads == PackThreads::crew ? PackCrews::instance().lease(device) : nullptr) {}
  CrewLease(const CrewLease&) = delete;
  CrewLease& operator=(const CrewLease&) = delete;
  ~CrewLease() {
    if (crew) PackCrews::instance().give_back(crew);
  }
};

}  // namespace

std::string packed_unavailable(const std::vector<const Matrix*>& mats) {
  const unsigned width = width_for(mats);
  for (const Matrix* m : mats) {
    if (m->location() != Location::host) return "a matrix is on the device";
    if (m->ncols() >= (Index{1} << 32)) return "2^32 or more columns";
  }
  const Index cap = Index(max_entries(width));
  for (const Matrix* m : mats) {
    if (m->nnz() <= cap) continue;  // no row can be longer
    const bool wide = m->index_type() == IndexType::i64;
    const void* rp = m->row_ptr().data();
    for (Index r = 0; r < m->nrows(); ++r) {
      const Index len = wide ? static_cast<const std::int64_t*>(rp)[r + 1] -
                                   static_cast<const std::int64_t*>(rp)[r]
                             : static_cast<const std::int32_t*>(rp)[r + 1] -
                                   static_cast<const std::int32_t*>(rp)[r];
      if (len > cap)
        return "a row of " + std::to_string(len) + " entries (a staging slot holds " +
               std::to_string(cap) + ")";
    }
  }
  return {};
}

std::size_t reserve_packed_staging() {
  // Two uploads at once (the weights, and the features staged meanwhile: stage_features), each
  // with two slots per thread, so that neither pins memory inside a timed run.
  const std::size_t count = 4 * std::size_t(workers_for(std::size_t(kMaxWorkers)));
  PinnedSlots::instance().give_back(PinnedSlots::instance().lease(count));
  return count * kSlotBytes;
}

PackedDevice upload_packed(const std::vector<const Matrix*>& mats, Context& ctx,
                           PackThreads threads) {
  const std::string why = packed_unavailable(mats);
  if (!why.empty()) throw NotImplemented("sparse_layer packed upload: " + why);
  const unsigned width = width_for(mats);
  const CrewLease lease(threads, ctx.device);
  PackCrew* crew = lease.crew;
  // A crew's first stream allocates the outputs and device slots: their memory then waits only
  // for the work that freed it, not for everything queued on ctx's stream before this call
  // (prepare_network's blob fill when it returned early), so the copies and decodes can run beside
  // that work. Without a crew, ctx's stream (the streams are created later, by their threads).
  Context alloc = ctx;
  if (crew) alloc.stream = crew->workers[0].stream;
  PackedDevice out;
  // fp32 values (others cast on the host) and the raw arrays.
  std::vector<Matrix> held;
  held.reserve(mats.size());
  std::vector<const Matrix*> fp32;
  for (const Matrix* m : mats) {
    if (m->type() != Type::fp32) {
      held.push_back(m->cast(Type::fp32));
      m = &held.back();
    }
    fp32.push_back(m);
  }
  const Sources from = sources_of(fp32);
  out.row_base = from.row_base;
  out.entry_base = from.entry_base;
  bool narrow = true;
  for (const HostCsr& h : from.src)
    narrow = narrow && h.nnz < (Index{1} << 31) && h.ncols <= (Index{1} << 31);
  out.index_type = narrow ? IndexType::i32 : IndexType::i64;
  const std::size_t isz = narrow ? 4 : 8;
  out.row_ptr = Buffer(std::max<std::size_t>(from.rows, 1) * isz, Location::device, &alloc);
  out.col_idx = Buffer(std::max<std::size_t>(from.entries, 1) * isz, Location::device, &alloc);
  out.values = Buffer(std::max<std::size_t>(from.entries, 1) * 4, Location::device, &alloc);

  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  // Slots cut so that every packing thread gets several: the busiest one sets the host time.
  const Plan plan = plan_slots(from.src, width, workers_for(kMaxWorkers));
  const std::size_t slots = plan.slot_first.size() - 1;
  if (slots == 0) {  // no matrices: the outputs go to ctx's stream once allocated (as below)
    RINGBLAS_CUDA_TRY(cudaStreamSynchronize(stream_of(alloc)));
    for (Buffer* b : {&out.row_ptr, &out.col_idx, &out.values}) b->set_stream(ctx.stream);
    return out;
  }
  const double plan_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();

  // Workers: slot s goes to worker s % T, into its pinned slot (s / T) % 2 and device slot alike;
  // their own (spawn) or a kept crew's (crew).
  const unsigned T =
      crew ? unsigned(std::min<std::size_t>(crew->workers.size(), slots)) : workers_for(slots);
  cudaStream_t main = stream_of(ctx);
  Buffer device_slots(std::size_t(T) * 2 * kSlotBytes, Location::device, &alloc);
  cudaEvent_t allocated = nullptr;
  RINGBLAS_CUDA_TRY(cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming));
  // The outputs and device slots exist.
  RINGBLAS_CUDA_TRY(cudaEventRecord(allocated, stream_of(alloc)));
  std::vector<Worker> own(crew ? 0 : T);
  const std::vector<unsigned char*> pinned =
      crew ? std::vector<unsigned char*>{} : PinnedSlots::instance().lease(std::size_t(T) * 2);
  for (unsigned t = 0; t < own.size(); ++t)
    own[t].pinned[0] = pinned[2 * t], own[t].pinned[1] = pinned[2 * t + 1];
  Worker* workers = crew ? crew->workers.data() : own.data();
  std::atomic<std::size_t> sent{0};
  std::atomic<bool> all_iso{true};
  // Per worker: ms packing and ms waiting for a pinned slot (--trace's split of the wall time).
  std::vector<double> packing_ms(T, 0.0), waiting_ms(T, 0.0);
  std::exception_ptr failure;
  std::mutex failure_lock;
  const auto work = [&](unsigned t) {
    if (t >= T) return;  // a crew larger than the slots
    try {
      RINGBLAS_CUDA_TRY(cudaSetDevice(ctx.device));  // a new thread starts on device 0
      Worker& w = workers[t];
      if (!crew) open_worker(w);
      cudaStream_t s = w.stream;
      RINGBLAS_CUDA_TRY(cudaStreamWaitEvent(s, allocated, 0));
      bool iso = true;
      for (std::size_t slot = t, use = 0; slot < slots; slot += T, ++use) {
        const int b = int(use % 2);
        const auto w0 = clock::now();
        // The pinned slot is free again once its copy is done (a crew's may be from its last call).
        if (use >= 2 || crew) RINGBLAS_CUDA_TRY(cudaEventSynchronize(w.copied[b]));
        const auto w1 = clock::now();
        unsigned char* host = w.pinned[b];
        const std::size_t bytes = pack_slot(from, plan, slot, width, host, iso);
        waiting_ms[t] += std::chrono::duration<double, std::milli>(w1 - w0).count();
        packing_ms[t] += std::chrono::duration<double, std::milli>(clock::now() - w1).count();
        unsigned char* dev =
            device_slots.as<unsigned char>() + (std::size_t(t) * 2 + std::size_t(b)) * kSlotBytes;
        RINGBLAS_CUDA_TRY(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
        RINGBLAS_CUDA_TRY(cudaEventRecord(w.copied[b], s));
        const unsigned segments = unsigned(plan.slot_first[slot + 1] - plan.slot_first[slot]);
        void *rp = out.row_ptr.data(), *ci = out.col_idx.data(), *v = out.values.data();
        if (width == 2)
          narrow ? launch_decode<std::uint16_t, int>(dev, segments, rp, ci, v, s)
                 : launch_decode<std::uint16_t, long long>(dev, segments, rp, ci, v, s);
        else
          narrow ? launch_decode<std::uint32_t, int>(dev, segments, rp, ci, v, s)
                 : launch_decode<std::uint32_t, long long>(dev, segments, rp, ci, v, s);
        RINGBLAS_CHECK_LAUNCH("sparse_layer decode_slot", s, ctx.debug_sync);
        sent += bytes;
      }
      if (!iso) all_iso = false;
      RINGBLAS_CUDA_TRY(cudaEventRecord(w.decoded, s));
      // Own pinned slots go back to the pool when this returns: their copies must be done. A
      // crew keeps its slots and waits at their next use instead.
      if (!crew)
        for (cudaEvent_t e : w.copied) RINGBLAS_CUDA_TRY(cudaEventSynchronize(e));
    } catch (...) {
      const std::lock_guard<std::mutex> hold(failure_lock);
      if (!failure) failure = std::current_exception();
    }
  };
  if (crew) {
    crew->threads.run(work);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < T; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& th : pool) th.join();
  }
  for (unsigned t = 0; t < T; ++t) {
    const Worker& w = workers[t];
    if (failure && w.stream) cudaStreamSynchronize(w.stream);  // no copy reads a slot given back
    if (w.decoded && !failure) RINGBLAS_CUDA_TRY(cudaStreamWaitEvent(main, w.decoded, 0));
  }
  // ctx's stream now follows every decode (or they are done): the buffers allocated on the crew's
  // stream are freed on ctx's instead (device_slots when this returns, the outputs with their
  // owner), which outlives this call where the crew's stream may not.
  for (Buffer* b : {&out.row_ptr, &out.col_idx, &out.values, &device_slots}) b->set_stream(main);
  for (Worker& w : own) close_worker(w);
  if (!crew) PinnedSlots::instance().give_back(pinned);
  cudaEventDestroy(allocated);
  if (failure) std::rethrow_exception(failure);
  out.bytes_sent = sent;
  out.iso = all_iso;
  if (ctx.trace) {
    double busy = 0, busiest = 0, waits = 0;
    for (unsigned t = 0; t < T; ++t) {
      busy += packing_ms[t];
      busiest = std::max(busiest, packing_ms[t]);
      waits += waiting_ms[t];
    }
    ctx.trace_line(
        "packed upload: " + std::to_string(mats.size()) + " matrices, " +
        std::to_string(out.bytes_sent) + " bytes in " + std::to_string(slots) + " slots over " +
        std::to_string(T) + (crew ? " kept" : " new") + " threads; plan " +
        std::to_string(plan_ms) + " ms, packing " + std::to_string(busy) + " ms (busiest thread " +
        std::to_string(busiest) + " ms), waiting for pinned slots " + std::to_string(waits) +
        " ms, host wall " +
        std::to_string(std::chrono::duration<double, std::milli>(clock::now() - t0).count()) +
        " ms (device not waited for)");
  }
  return out;
}

Matrix packed_matrix(PackedDevice&& p, Index nrows, Index ncols, Index nnz) {
  return Matrix::from_buffers(nrows, ncols, Type::fp32, p.index_type, nnz, std::move(p.row_ptr),
                              std::move(p.col_idx), std::move(p.values));
}

}  // namespace ringblas::cuda::sparse_layer
