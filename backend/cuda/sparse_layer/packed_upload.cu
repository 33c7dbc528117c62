// Packed host-to-device upload of CSR matrices (see packed_upload.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/sparse_layer/packed_upload.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda::sparse_layer {
namespace {

/// A staging slot: a header (the segment count, then the segments) and the packed arrays.
constexpr std::size_t kSlotBytes = std::size_t(4) << 20;
constexpr std::size_t kHeaderBytes = 4096;
constexpr unsigned kMaxSegments = 63;
constexpr std::size_t kMaxSegmentRows = 65536;
/// Host threads packing (each with two slots): enough to keep up with the bus on a 16-core host.
constexpr unsigned kMaxWorkers = 8;

/// One run of consecutive rows of one matrix inside a slot.
struct Segment {
  unsigned long long out_row;    ///< first row_ptr element it writes
  unsigned long long out_entry;  ///< first col_idx / values element it writes
  unsigned long long rp_base;    ///< matrix-local offset of its first entry (added to `offsets`)
  unsigned rows, entries;
  /// Byte offsets in the slot: uint32[rows + 1], W[entries], fp32[entries, or 1 when iso].
  unsigned offsets, indices, values;
  unsigned iso;
};
static_assert(16 + kMaxSegments * sizeof(Segment) <= kHeaderBytes, "the segments fit the header");

std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }

/// Bytes a segment may take before its values are seen (not iso).
std::size_t worst_bytes(std::size_t rows, std::size_t entries, unsigned width) {
  return align16(4 * (rows + 1)) + align16(width * entries) + align16(4 * entries);
}

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

unsigned workers_for(std::size_t slots) {
  return unsigned(std::max<std::size_t>(
      1, std::min<std::size_t>({std::size_t(kMaxWorkers),
                                std::max(1u, std::thread::hardware_concurrency()), slots})));
}

/// One matrix as the packer reads it: raw host arrays.
struct HostCsr {
  Index nrows = 0, ncols = 0, nnz = 0;
  const void* rp = nullptr;
  const void* ci = nullptr;
  bool wide = false;
  const float* v = nullptr;
  Index row_ptr(Index r) const {
    return wide ? static_cast<const std::int64_t*>(rp)[r] : static_cast<const std::int32_t*>(rp)[r];
  }
};

/// Planned segment: rows [r0, r1) of matrix k.
struct Piece {
  std::size_t k;
  Index r0, r1;
};

/// The largest entry count a segment may hold so that, alone, it fits a slot.
std::size_t max_entries(unsigned width) {
  return (kSlotBytes - kHeaderBytes - align16(4 * (kMaxSegmentRows + 1)) - 32) / (width + 4);
}

unsigned width_for(const std::vector<const Matrix*>& mats) {
  Index cols = 0;
  for (const Matrix* m : mats) cols = std::max(cols, m->ncols());
  return cols <= 65536 ? 2 : 4;
}

/// Segments and slots: segments of at most kMaxSegmentRows rows and max_entries(width) entries
/// (found by binary search on the row offsets), then slots of consecutive segments by their worst
/// size. A matrix without rows still needs row_ptr[0] = 0: an empty segment writes it.
struct Plan {
  std::vector<Piece> pieces;
  std::vector<std::size_t> slot_first;  ///< slot s holds pieces [slot_first[s], slot_first[s + 1])
};

Plan plan_slots(const std::vector<HostCsr>& src, unsigned width) {
  Plan plan;
  const Index cap = Index(max_entries(width));
  for (std::size_t k = 0; k < src.size(); ++k) {
    const HostCsr& m = src[k];
    Index r0 = 0;
    do {  // the largest r1 whose rows [r0, r1) hold at most cap entries (one row always fits)
      Index lo = r0, hi = std::min<Index>(m.nrows, r0 + Index(kMaxSegmentRows));
      while (lo < hi) {
        const Index mid = lo + (hi - lo + 1) / 2;
        if (m.row_ptr(mid) - m.row_ptr(r0) <= cap)
          lo = mid;
        else
          hi = mid - 1;
      }
      plan.pieces.push_back({k, r0, lo});
      r0 = lo;
    } while (r0 < m.nrows);
  }
  plan.slot_first.push_back(0);
  std::size_t used = kHeaderBytes;
  for (std::size_t i = 0; i < plan.pieces.size(); ++i) {
    const Piece& pc = plan.pieces[i];
    const HostCsr& m = src[pc.k];
    const std::size_t b = worst_bytes(std::size_t(pc.r1 - pc.r0),
                                      std::size_t(m.row_ptr(pc.r1) - m.row_ptr(pc.r0)), width);
    if (i > plan.slot_first.back() &&
        (i - plan.slot_first.back() >= kMaxSegments || used + b > kSlotBytes)) {
      plan.slot_first.push_back(i);
      used = kHeaderBytes;
    }
    used += b;
  }
  if (!plan.pieces.empty()) plan.slot_first.push_back(plan.pieces.size());
  return plan;
}

/// Packs one slot's segments into `slot` (host) and returns the bytes used.
template <class W>
std::size_t pack_slot(const std::vector<HostCsr>& src, const std::vector<Piece>& pieces,
                      std::size_t from, std::size_t to, const std::vector<std::size_t>& row_base,
                      const std::vector<std::size_t>& entry_base, unsigned char* slot,
                      bool& all_iso) {
  std::size_t at = kHeaderBytes;
  Segment* seg = reinterpret_cast<Segment*>(slot + 16);
  for (std::size_t i = from; i < to; ++i) {
    const Piece& pc = pieces[i];
    const HostCsr& m = src[pc.k];
    const Index e0 = m.row_ptr(pc.r0), e1 = m.row_ptr(pc.r1);
    const std::size_t rows = std::size_t(pc.r1 - pc.r0), entries = std::size_t(e1 - e0);
    Segment& g = seg[i - from];
    g.out_row = row_base[pc.k] + std::size_t(pc.r0);
    g.out_entry = entry_base[pc.k] + std::size_t(e0);
    g.rp_base = (unsigned long long)e0;
    g.rows = unsigned(rows);
    g.entries = unsigned(entries);
    g.offsets = unsigned(at);
    unsigned* off = reinterpret_cast<unsigned*>(slot + at);
    for (std::size_t r = 0; r <= rows; ++r) off[r] = unsigned(m.row_ptr(pc.r0 + Index(r)) - e0);
    at += align16(4 * (rows + 1));
    g.indices = unsigned(at);
    W* idx = reinterpret_cast<W*>(slot + at);
    if (m.wide) {
      const std::int64_t* c = static_cast<const std::int64_t*>(m.ci) + e0;
      for (std::size_t p = 0; p < entries; ++p) idx[p] = W(c[p]);
    } else {
      const std::int32_t* c = static_cast<const std::int32_t*>(m.ci) + e0;
      for (std::size_t p = 0; p < entries; ++p) idx[p] = W(c[p]);
    }
    at += align16(sizeof(W) * entries);
    // Iso when every value has the same bits as the first (so -0.0 and 0.0 differ, NaNs compare).
    const float* v = m.v + e0;
    std::uint32_t first = 0;
    if (entries) std::memcpy(&first, v, 4);
    bool iso = true;
    for (std::size_t p = 1; p < entries && iso; ++p) {
      std::uint32_t b;
      std::memcpy(&b, v + p, 4);
      iso = b == first;
    }
    g.iso = iso ? 1u : 0u;
    all_iso = all_iso && iso;
    g.values = unsigned(at);
    const std::size_t value_bytes = iso ? 4 : 4 * entries;
    if (entries) std::memcpy(slot + at, v, value_bytes);
    at += align16(value_bytes);
  }
  *reinterpret_cast<unsigned*>(slot) = unsigned(to - from);
  return at;
}

template <class W, class I>
void launch_decode(const unsigned char* slot, unsigned segments, void* rp, void* ci, void* v,
                   cudaStream_t s) {
  decode_slot<W, I><<<dim3(128, segments), 256, 0, s>>>(
      slot, static_cast<I*>(rp), static_cast<I*>(ci), static_cast<float*>(v));
}

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
  const std::size_t count = 2 * std::size_t(workers_for(std::size_t(kMaxWorkers)));
  PinnedSlots::instance().give_back(PinnedSlots::instance().lease(count));
  return count * kSlotBytes;
}

PackedDevice upload_packed(const std::vector<const Matrix*>& mats, Context& ctx) {
  const std::string why = packed_unavailable(mats);
  if (!why.empty()) throw NotImplemented("sparse_layer packed upload: " + why);
  const unsigned width = width_for(mats);
  PackedDevice out;
  // fp32 values (others cast on the host) and the raw arrays.
  std::vector<Matrix> held;
  held.reserve(mats.size());
  std::vector<HostCsr> src(mats.size());
  std::size_t rows_total = 0, entries_total = 0;
  bool narrow = true;
  for (std::size_t k = 0; k < mats.size(); ++k) {
    const Matrix* m = mats[k];
    if (m->type() != Type::fp32) {
      held.push_back(m->cast(Type::fp32));
      m = &held.back();
    }
    HostCsr& h = src[k];
    h.nrows = m->nrows();
    h.ncols = m->ncols();
    h.nnz = m->nnz();
    h.rp = m->row_ptr().data();
    h.ci = m->col_idx().data();
    h.wide = m->index_type() == IndexType::i64;
    h.v = m->values().as<float>();
    out.row_base.push_back(rows_total);
    out.entry_base.push_back(entries_total);
    rows_total += std::size_t(h.nrows) + 1;
    entries_total += std::size_t(h.nnz);
    narrow = narrow && h.nnz < (Index{1} << 31) && h.ncols <= (Index{1} << 31);
  }
  out.index_type = narrow ? IndexType::i32 : IndexType::i64;
  const std::size_t isz = narrow ? 4 : 8;
  out.row_ptr = Buffer(std::max<std::size_t>(rows_total, 1) * isz, Location::device, &ctx);
  out.col_idx = Buffer(std::max<std::size_t>(entries_total, 1) * isz, Location::device, &ctx);
  out.values = Buffer(std::max<std::size_t>(entries_total, 1) * 4, Location::device, &ctx);

  const Plan plan = plan_slots(src, width);
  const std::vector<Piece>& pieces = plan.pieces;
  const std::vector<std::size_t>& slot_first = plan.slot_first;
  const std::size_t slots = slot_first.size() - 1;
  if (slots == 0) return out;  // no matrices

  // Workers: slot s goes to worker s % T, into its pinned slot (s / T) % 2 and device slot alike.
  const unsigned T = workers_for(slots);
  cudaStream_t main = stream_of(ctx);
  Buffer device_slots(std::size_t(T) * 2 * kSlotBytes, Location::device, &ctx);
  cudaEvent_t allocated = nullptr;
  RINGBLAS_CUDA_TRY(cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming));
  RINGBLAS_CUDA_TRY(cudaEventRecord(allocated, main));  // the outputs and device slots exist
  const std::vector<unsigned char*> pinned = PinnedSlots::instance().lease(std::size_t(T) * 2);
  std::vector<cudaStream_t> streams(T, nullptr);
  std::vector<cudaEvent_t> decoded(T, nullptr);
  std::atomic<std::size_t> sent{0};
  std::atomic<bool> all_iso{true};
  std::exception_ptr failure;
  std::mutex failure_lock;
  auto work = [&](unsigned t) {
    cudaEvent_t copied[2] = {nullptr, nullptr};
    try {
      RINGBLAS_CUDA_TRY(cudaSetDevice(ctx.device));  // a new thread starts on device 0
      // Blocking streams: device memory is freed on the legacy stream, which orders after them.
      RINGBLAS_CUDA_TRY(cudaStreamCreate(&streams[t]));
      RINGBLAS_CUDA_TRY(cudaEventCreateWithFlags(&decoded[t], cudaEventDisableTiming));
      for (cudaEvent_t& e : copied)
        RINGBLAS_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      cudaStream_t s = streams[t];
      RINGBLAS_CUDA_TRY(cudaStreamWaitEvent(s, allocated, 0));
      bool iso = true;
      for (std::size_t slot = t, use = 0; slot < slots; slot += T, ++use) {
        const int b = int(use % 2);
        if (use >= 2)
          RINGBLAS_CUDA_TRY(cudaEventSynchronize(copied[b]));  // the pinned slot is free again
        unsigned char* host = pinned[std::size_t(t) * 2 + std::size_t(b)];
        const std::size_t bytes =
            width == 2
                ? pack_slot<std::uint16_t>(src, pieces, slot_first[slot], slot_first[slot + 1],
                                           out.row_base, out.entry_base, host, iso)
                : pack_slot<std::uint32_t>(src, pieces, slot_first[slot], slot_first[slot + 1],
                                           out.row_base, out.entry_base, host, iso);
        unsigned char* dev =
            device_slots.as<unsigned char>() + (std::size_t(t) * 2 + std::size_t(b)) * kSlotBytes;
        RINGBLAS_CUDA_TRY(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
        RINGBLAS_CUDA_TRY(cudaEventRecord(copied[b], s));
        const unsigned segments = unsigned(slot_first[slot + 1] - slot_first[slot]);
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
      RINGBLAS_CUDA_TRY(cudaEventRecord(decoded[t], s));
      // The pinned slots go back to the pool when this returns: their copies must be done.
      for (cudaEvent_t e : copied) RINGBLAS_CUDA_TRY(cudaEventSynchronize(e));
    } catch (...) {
      const std::lock_guard<std::mutex> hold(failure_lock);
      if (!failure) failure = std::current_exception();
    }
    for (cudaEvent_t e : copied)
      if (e) cudaEventDestroy(e);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < T; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  for (unsigned t = 0; t < T; ++t) {
    if (failure && streams[t])
      cudaStreamSynchronize(streams[t]);  // no copy reads a slot given back
    if (decoded[t] && !failure) RINGBLAS_CUDA_TRY(cudaStreamWaitEvent(main, decoded[t], 0));
    if (decoded[t]) cudaEventDestroy(decoded[t]);
    if (streams[t]) cudaStreamDestroy(streams[t]);  // released once its work is done
  }
  PinnedSlots::instance().give_back(pinned);
  cudaEventDestroy(allocated);
  if (failure) std::rethrow_exception(failure);
  out.bytes_sent = sent;
  out.iso = all_iso;
  return out;
}

Matrix packed_matrix(PackedDevice&& p, Index nrows, Index ncols, Index nnz) {
  return Matrix::from_buffers(nrows, ncols, Type::fp32, p.index_type, nnz, std::move(p.row_ptr),
                              std::move(p.col_idx), std::move(p.values));
}

}  // namespace ringblas::cuda::sparse_layer
