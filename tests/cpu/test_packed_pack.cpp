// The packed upload's host half (backend/cuda/sparse_layer/packed_pack.hpp), on the cpu: the slots
// it packs, decoded here as decode_slot does on the device, give back every matrix's arrays, for
// the session-7 plan (4 MB slots) and the plan cut for several workers; every slot fits its
// staging buffer and header, and the finer plan gives every worker slots to pack.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/sparse_layer/packed_pack.hpp"
#include "ringblas/ringblas.hpp"
#include "support/random_matrix.hpp"

namespace {

using namespace ringblas;
namespace pk = ringblas::cuda::sparse_layer::packing;

struct Decoded {
  std::vector<long long> rp, ci;
  std::vector<float> v;
  bool iso = true;
  std::size_t slots = 0;
};

/// Packs every slot of the plan for `workers` and decodes it (decode_slot's arithmetic).
Decoded pack_and_decode(const std::vector<const Matrix*>& mats, unsigned workers) {
  const pk::Sources from = pk::sources_of(mats);
  const unsigned width = pk::width_for(mats);
  const pk::Plan plan = pk::plan_slots(from.src, width, workers);
  Decoded out;
  out.rp.assign(from.rows, -1);
  out.ci.assign(from.entries, -1);
  out.v.assign(from.entries, -1.0f);
  out.slots = plan.slot_first.size() - 1;
  std::unique_ptr<unsigned char[]> slot(new unsigned char[pk::kSlotBytes]);
  for (std::size_t s = 0; s < out.slots; ++s) {
    const std::size_t bytes = pk::pack_slot(from, plan, s, width, slot.get(), out.iso);
    EXPECT_LE(bytes, pk::kSlotBytes);
    unsigned count = 0;
    std::memcpy(&count, slot.get(), 4);
    EXPECT_EQ(count, plan.slot_first[s + 1] - plan.slot_first[s]);
    EXPECT_LE(count, pk::kMaxSegments);
    for (unsigned i = 0; i < count; ++i) {
      pk::Segment g;
      std::memcpy(&g, slot.get() + 16 + i * sizeof(pk::Segment), sizeof g);
      for (unsigned r = 0; r <= g.rows; ++r) {
        unsigned off = 0;
        std::memcpy(&off, slot.get() + g.offsets + 4 * r, 4);
        out.rp[g.out_row + r] = (long long)(g.rp_base + off);
      }
      for (unsigned p = 0; p < g.entries; ++p) {
        unsigned idx = 0;
        std::memcpy(&idx, slot.get() + g.indices + width * p, width);  // little-endian host
        float x = 0;
        std::memcpy(&x, slot.get() + g.values + (g.iso ? 0 : 4 * p), 4);
        out.ci[g.out_entry + p] = idx;
        out.v[g.out_entry + p] = x;
      }
    }
  }
  return out;
}

void expect_round_trip(const std::vector<Matrix>& mats, bool want_iso, const std::string& what) {
  std::vector<const Matrix*> ptrs;
  for (const Matrix& m : mats) ptrs.push_back(&m);
  for (unsigned workers : {1u, 8u}) {
    const Decoded d = pack_and_decode(ptrs, workers);
    std::size_t row = 0, entry = 0;
    for (const Matrix& m : mats) {
      const auto rp = m.row_ptr_vector(), ci = m.col_idx_vector();
      const auto v = m.values_vector<float>();
      for (std::size_t r = 0; r < rp.size(); ++r)
        ASSERT_EQ(d.rp[row + r], rp[r]) << what << ", workers " << workers << ", row " << r;
      for (std::size_t p = 0; p < ci.size(); ++p) {
        ASSERT_EQ(d.ci[entry + p], ci[p]) << what << ", workers " << workers << ", entry " << p;
        ASSERT_EQ(std::memcmp(&d.v[entry + p], &v[p], 4), 0) << what << ", entry " << p;
      }
      row += rp.size();
      entry += ci.size();
    }
    EXPECT_EQ(d.iso, want_iso) << what << ", workers " << workers;
  }
}

Matrix iso_of(const Matrix& m, float x, IndexType itype) {
  return Matrix::from_csr(m.nrows(), m.ncols(), m.row_ptr_vector(), m.col_idx_vector(),
                          std::vector<float>(std::size_t(m.nnz()), x))
      .with_index_type(itype);
}

TEST(PackedPack, SlotsDecodeToTheHostArrays) {
  const Matrix steps = test::random_matrix(3000, 1024, 0.05, Type::fp32, 11);
  expect_round_trip({steps}, false, "general values");
  expect_round_trip({iso_of(steps, 0.0625f, IndexType::i32)}, true, "iso, int32");
  expect_round_trip({iso_of(steps, 0.0625f, IndexType::i64)}, true, "iso, int64");
  // -0.0 and 0.0 are different bits: not iso.
  auto v = std::vector<float>(std::size_t(steps.nnz()), 0.0f);
  v.back() = -0.0f;
  expect_round_trip({Matrix::from_csr(steps.nrows(), steps.ncols(), steps.row_ptr_vector(),
                                      steps.col_idx_vector(), v)},
                    false, "-0.0 last");
  // Past 65536 columns: 32-bit packed indices.
  expect_round_trip(
      {iso_of(test::random_matrix(500, 100000, 0.002, Type::fp32, 12), 1.0f, IndexType::i32)}, true,
      "100000 columns");
  // Many layers, empty ones among them (one segment writes row_ptr[0] = 0).
  std::vector<Matrix> layers;
  for (int k = 0; k < 150; ++k)
    layers.push_back(k % 50 == 7 ? Matrix(256, 256, Type::fp32)
                                 : iso_of(test::random_matrix(256, 256, 0.1, Type::fp32, 100 + k),
                                          0.0625f, IndexType::i32));
  expect_round_trip(layers, true, "150 layers");
}

TEST(PackedPack, ManyRowsSpanSegmentsAndSlots) {
  // 200000 rows of ~60 entries (12M entries): segments end at the row and entry caps.
  const Matrix big =
      iso_of(test::random_matrix(200000, 1024, 0.06, Type::fp32, 13), 1.0f, IndexType::i32);
  expect_round_trip({big}, true, "200000 rows");
}

TEST(PackedPack, TheWorkersPlanGivesEveryWorkerSlots) {
  const Matrix images = iso_of(test::random_matrix(20000, 1024, 0.1, Type::fp32, 14), 1.0f,
                               IndexType::i32);  // 2M entries, ~12 MB before packing
  std::vector<pk::HostCsr> src{pk::host_csr(images)};
  const pk::Plan old_plan = pk::plan_slots(src, 2, 1), fine = pk::plan_slots(src, 2, 8);
  EXPECT_LE(old_plan.slot_first.size() - 1, 4u);  // 4 MB slots
  EXPECT_GE(fine.slot_first.size() - 1, 8u * pk::kSlotsPerWorker - 1);
  // A small input is not cut under kMinSlotFill.
  const Matrix small =
      iso_of(test::random_matrix(100, 1024, 0.1, Type::fp32, 15), 1.0f, IndexType::i32);
  EXPECT_EQ(pk::plan_slots({pk::host_csr(small)}, 2, 8).slot_first.size(), 2u);
}

}  // namespace
