// The host half of the packed upload (packed_upload.hpp): how the rows of host CSR matrices are cut
// into segments and staging slots, and a slot's bytes. Plain host code (no CUDA), so that its
// cost can be timed and its output checked on a machine without a GPU (tests/cpu
// test_packed_pack.cpp, tests/bench/bench_pack_host.cpp); packed_upload.cu copies the slots and
// decodes them on the device (decode_slot reads the same Segment).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ringblas/matrix.hpp"

namespace ringblas::cuda::sparse_layer::packing {

/// A staging slot: a header (the segment count, then the segments) and the packed arrays.
constexpr std::size_t kSlotBytes = std::size_t(4) << 20;
constexpr std::size_t kHeaderBytes = 4096;
constexpr unsigned kMaxSegments = 63;
constexpr std::size_t kMaxSegmentRows = 65536;
/// The smallest slot fill the plan aims at when it cuts slots finer to feed every worker: below
/// it, a slot's copy and decode launch (~10 us each) cost more than the packing they spread.
constexpr std::size_t kMinSlotFill = std::size_t(256) << 10;
/// Slots per worker the plan aims at (round-robin: the busiest worker packs at most one slot more
/// than the least busy one, so 4 slots each keep the imbalance under ~25%).
constexpr std::size_t kSlotsPerWorker = 4;

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

/// One matrix as the packer reads it: raw host arrays (fp32 values).
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

/// The raw arrays of a host matrix whose values are fp32.
HostCsr host_csr(const Matrix& m);

/// Matrices as the packer reads them, and where each one's rows and entries start in the stacked
/// device arrays (matrix k's row_ptr at row_base[k], nrows + 1 elements; its entries at
/// entry_base[k]).
struct Sources {
  std::vector<HostCsr> src;
  std::vector<std::size_t> row_base, entry_base;
  std::size_t rows = 0, entries = 0;  ///< the totals
};

/// The sources of host matrices whose values are fp32.
Sources sources_of(const std::vector<const Matrix*>& mats);

/// Planned segment: rows [r0, r1) of matrix k.
struct Piece {
  std::size_t k;
  Index r0, r1;
};

/// Segments and slots: slot s holds pieces [slot_first[s], slot_first[s + 1]).
struct Plan {
  std::vector<Piece> pieces;
  std::vector<std::size_t> slot_first;
};

/// Bytes per column index: 2 when every matrix has at most 65536 columns, else 4.
unsigned width_for(const std::vector<const Matrix*>& mats);

/// The largest entry count a segment may hold so that, alone, it fits a slot.
std::size_t max_entries(unsigned width);

/// Segments of at most kMaxSegmentRows rows and `cap` entries (found by binary search on the row
/// offsets), then slots of consecutive segments by their worst size, each filled up to `fill`
/// bytes (one segment always goes in). A matrix without rows still needs row_ptr[0] = 0: an empty
/// segment writes it. With `workers` > 1, fill (and the segment cap with it) shrinks to about
/// total / (kSlotsPerWorker x workers), not under kMinSlotFill, so that every worker has slots to
/// pack; workers = 1 gives the largest slots (the plan of session 7).
Plan plan_slots(const std::vector<HostCsr>& src, unsigned width, unsigned workers = 1);

/// Packs slot `slot` of `plan` (planned on from.src) into `out` (kSlotBytes of host memory) and
/// returns the bytes used; `all_iso` is cleared when a segment's values are not all the same bits.
std::size_t pack_slot(const Sources& from, const Plan& plan, std::size_t slot, unsigned width,
                      unsigned char* out, bool& all_iso);

}  // namespace ringblas::cuda::sparse_layer::packing
