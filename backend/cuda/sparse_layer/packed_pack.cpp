// Host half of the packed upload (see packed_pack.hpp).
#include "backend/cuda/sparse_layer/packed_pack.hpp"

#include <algorithm>
#include <cstring>

namespace ringblas::cuda::sparse_layer::packing {
namespace {

std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }

/// Bytes a segment may take before its values are seen (not iso).
std::size_t worst_bytes(std::size_t rows, std::size_t entries, unsigned width) {
  return align16(4 * (rows + 1)) + align16(width * entries) + align16(4 * entries);
}

/// Segment-local row offsets: off[r] = row_ptr[r0 + r] - row_ptr[r0], r = 0..rows.
template <class R>
void local_offsets(const R* rp, std::size_t rows, unsigned* off) {
  const R e0 = rp[0];
  for (std::size_t r = 0; r <= rows; ++r) off[r] = unsigned(rp[r] - e0);
}

template <class W, class C>
void narrow_indices(const C* c, std::size_t entries, W* idx) {
  for (std::size_t p = 0; p < entries; ++p) idx[p] = W(c[p]);
}

/// Whether every value has the same bits as the first (so -0.0 and 0.0 differ, NaNs compare).
/// No early exit: the loop vectorizes, and a segment that is not iso is copied whole anyway.
bool same_bits(const float* v, std::size_t entries) {
  if (entries == 0) return true;
  std::uint32_t first = 0, diff = 0;
  std::memcpy(&first, v, 4);
  for (std::size_t p = 1; p < entries; ++p) {
    std::uint32_t b;
    std::memcpy(&b, v + p, 4);
    diff |= b ^ first;
  }
  return diff == 0;
}

template <class W>
std::size_t pack_as(const Sources& sources, const Plan& plan, std::size_t slot, unsigned char* out,
                    bool& all_iso) {
  const std::vector<HostCsr>& src = sources.src;
  const std::size_t from = plan.slot_first[slot], to = plan.slot_first[slot + 1];
  std::size_t at = kHeaderBytes;
  Segment* seg = reinterpret_cast<Segment*>(out + 16);
  for (std::size_t i = from; i < to; ++i) {
    const Piece& pc = plan.pieces[i];
    const HostCsr& m = src[pc.k];
    const Index e0 = m.row_ptr(pc.r0), e1 = m.row_ptr(pc.r1);
    const std::size_t rows = std::size_t(pc.r1 - pc.r0), entries = std::size_t(e1 - e0);
    Segment& g = seg[i - from];
    g.out_row = sources.row_base[pc.k] + std::size_t(pc.r0);
    g.out_entry = sources.entry_base[pc.k] + std::size_t(e0);
    g.rp_base = (unsigned long long)e0;
    g.rows = unsigned(rows);
    g.entries = unsigned(entries);
    g.offsets = unsigned(at);
    unsigned* off = reinterpret_cast<unsigned*>(out + at);
    if (m.wide)
      local_offsets(static_cast<const std::int64_t*>(m.rp) + pc.r0, rows, off);
    else
      local_offsets(static_cast<const std::int32_t*>(m.rp) + pc.r0, rows, off);
    at += align16(4 * (rows + 1));
    g.indices = unsigned(at);
    W* idx = reinterpret_cast<W*>(out + at);
    if (m.wide)
      narrow_indices(static_cast<const std::int64_t*>(m.ci) + e0, entries, idx);
    else
      narrow_indices(static_cast<const std::int32_t*>(m.ci) + e0, entries, idx);
    at += align16(sizeof(W) * entries);
    const float* v = m.v + e0;
    const bool iso = same_bits(v, entries);
    g.iso = iso ? 1u : 0u;
    all_iso = all_iso && iso;
    g.values = unsigned(at);
    const std::size_t value_bytes = iso ? 4 : 4 * entries;
    if (entries) std::memcpy(out + at, v, value_bytes);
    at += align16(value_bytes);
  }
  *reinterpret_cast<unsigned*>(out) = unsigned(to - from);
  return at;
}

}  // namespace

HostCsr host_csr(const Matrix& m) {
  HostCsr h;
  h.nrows = m.nrows();
  h.ncols = m.ncols();
  h.nnz = m.nnz();
  h.rp = m.row_ptr().data();
  h.ci = m.col_idx().data();
  h.wide = m.index_type() == IndexType::i64;
  h.v = m.values().as<float>();
  return h;
}

Sources sources_of(const std::vector<const Matrix*>& mats) {
  Sources out;
  for (const Matrix* m : mats) {
    out.src.push_back(host_csr(*m));
    out.row_base.push_back(out.rows);
    out.entry_base.push_back(out.entries);
    out.rows += std::size_t(m->nrows()) + 1;
    out.entries += std::size_t(m->nnz());
  }
  return out;
}

unsigned width_for(const std::vector<const Matrix*>& mats) {
  Index cols = 0;
  for (const Matrix* m : mats) cols = std::max(cols, m->ncols());
  return cols <= 65536 ? 2 : 4;
}

std::size_t max_entries(unsigned width) {
  return (kSlotBytes - kHeaderBytes - align16(4 * (kMaxSegmentRows + 1)) - 32) / (width + 4);
}

Plan plan_slots(const std::vector<HostCsr>& src, unsigned width, unsigned workers) {
  std::size_t total = 0;
  for (const HostCsr& m : src)
    total += worst_bytes(std::size_t(m.nrows), std::size_t(m.nnz), width);
  const std::size_t fill =
      std::clamp(total / (kSlotsPerWorker * std::max(1u, workers)), kMinSlotFill, kSlotBytes);
  // A segment's entries: at most what fits a slot alone, and no more than the fill holds.
  const Index cap = Index(
      std::min(max_entries(width), std::max<std::size_t>(1, (fill - kHeaderBytes) / (width + 4))));
  Plan plan;
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
      if (lo == r0 && r0 < m.nrows) lo = r0 + 1;  // a row longer than cap goes alone
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
        (i - plan.slot_first.back() >= kMaxSegments || used + b > fill)) {
      plan.slot_first.push_back(i);
      used = kHeaderBytes;
    }
    used += b;
  }
  if (!plan.pieces.empty()) plan.slot_first.push_back(plan.pieces.size());
  return plan;
}

std::size_t pack_slot(const Sources& from, const Plan& plan, std::size_t slot, unsigned width,
                      unsigned char* out, bool& all_iso) {
  return width == 2 ? pack_as<std::uint16_t>(from, plan, slot, out, all_iso)
                    : pack_as<std::uint32_t>(from, plan, slot, out, all_iso);
}

}  // namespace ringblas::cuda::sparse_layer::packing
