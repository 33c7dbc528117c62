// spgemm_hash launcher: checks applicability (can_implement.cpp), prepares operands on the device
// (copies, index width, transposes, casts, mask structure), runs the registered pipeline for the
// semiring and hands T to the shared write-back for the mask, accumulator and replace.
#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_props.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/common/write_back.hpp"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/spgemm_hash/phase_log.hpp"
#include "backend/cuda/spgemm_hash/plan.cuh"
#include "backend/cuda/spgemm_hash/policy.hpp"
#include "backend/cuda/spgemm_hash/registry_lookup.hpp"
#include "backend/cuda/spgemm_hash/spgemm_hash.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda::spgemm_hash {

namespace {

std::atomic<std::size_t> budget_override{0};
std::mutex tuning_mutex;
tuning tuning_now = tuning::defaults();

std::string human(std::int64_t x) {
  char buf[32];
  if (x >= 1000000000) std::snprintf(buf, sizeof buf, "%.2fG", double(x) / 1e9);
  else if (x >= 1000000) std::snprintf(buf, sizeof buf, "%.2fM", double(x) / 1e6);
  else if (x >= 1000) std::snprintf(buf, sizeof buf, "%.1fK", double(x) / 1e3);
  else std::snprintf(buf, sizeof buf, "%lld", (long long)x);
  return buf;
}

}  // namespace

std::size_t workspace_bytes(const Matrix& A, const Descriptor& desc) {
  const std::size_t rows = std::size_t(desc.transpose_a ? A.ncols() : A.nrows());
  // products (8), column range (8), the bins' row lists (num_bins - 1 slots of 8), C row
  // pointers (8), per row.
  return rows * (16 + std::size_t(policy::num_bins) * 8) + 4096;
}

void run(Matrix& C, const Matrix* M, Accum accum, const Semiring& s, const Matrix& A,
         const Matrix& B, const Descriptor& desc, Context& ctx) {
  if (auto why = can_implement(s, A, B, C, accum, desc))
    throw NotImplemented("mxm (spgemm_hash): " + *why);
  RINGBLAS_CUDA_TRY(cudaSetDevice(ctx.device));
  const registry_row* row = find_row(s);
  const Index lim = Index(1) << 31;
  auto fits32 = [&](const Matrix& x) {
    return x.nnz() < lim && x.nrows() < lim - 1 && x.ncols() < lim - 1;
  };
  IndexType it = fits32(A) && fits32(B) && (!M || fits32(*M)) ? IndexType::i32 : IndexType::i64;
  const bool ra = reads_x(s.mul), rb = reads_y(s.mul);
  // Everything the call holds on the device at once (workspace and C) stays within the budget;
  // a tenth of the free memory is left for the write-back and the pool's rounding.
  phase_log::mark("run: enter", stream_of(ctx));
  // With the lean host path the free-memory query waits until the plan knows C's bound
  // (resolve_budget): small calls never need it.
  std::size_t budget = budget_override.load();
  if (budget == 0)
    budget = current_tuning().lean_host ? budget_unknown : device_free_bytes() / 10 * 9;
  phase_log::mark("run: budget", stream_of(ctx));
  const Index m = desc.transpose_a ? A.ncols() : A.nrows();
  const Index n = desc.transpose_b ? B.nrows() : B.ncols();

  run_info info;
  Matrix T;
  DeviceMask mask;
  for (int attempt = 0; attempt < 2; ++attempt) {
    mask = make_device_mask(M, desc.mask_structure, desc.mask_complement, it, ctx);
    if (mask_admits_nothing(mask)) {
      T = empty_device_matrix(m, n, s.type, it, ctx);
      info.note = "complemented empty mask admits nothing";
      break;
    }
    Matrix hold_a, hold_b;
    const Matrix& a = prepare_operand(A, desc.transpose_a, it,
                                      ra ? std::optional<Type>(s.type) : std::nullopt, hold_a, ctx);
    const Matrix& b = prepare_operand(B, desc.transpose_b, it,
                                      rb ? std::optional<Type>(s.type) : std::nullopt, hold_b, ctx);
    info = run_info{};
    phase_log::mark("run: operands ready", stream_of(ctx));
    T = (it == IndexType::i32 ? row->run32 : row->run64)(a, b, mask, budget, ctx, info);
    if (!info.need_wide) break;
    it = IndexType::i64;  // products overflow 32-bit offsets: redo with 64-bit indices
  }
  std::string line = "mxm: spgemm_hash, " + s.name() + ", " + human(info.products) +
                     " products, nnz(T) " + human(info.nnz) + ", " +
                     std::to_string(info.symbolic_groups) + "/" +
                     std::to_string(info.numeric_groups) + " row groups (symbolic/numeric), " +
                     (it == IndexType::i32 ? "int32" : "int64") + " indices";
  if (mask.present)
    line += std::string(", ") + (desc.mask_complement ? "complemented " : "") +
            (desc.mask_structure ? "structural" : "value") + " mask in-kernel";
  if (!info.note.empty()) line += ", " + info.note;
  ctx.trace_line(line);
  if (T.location() == Location::host) {
    // Row chunks left T on the host: it does not fit the device, so neither does a write-back.
    if (budget == budget_unknown) budget = device_free_bytes() / 10 * 9;
    if (needs_write_back(mask, accum))
      throw OutOfMemory("mxm (spgemm_hash): T has " + std::to_string(T.nnz()) +
                            " entries, more than the device budget of " + std::to_string(budget) +
                            " bytes holds, and the mask or accumulator needs it on the device",
                        std::size_t(T.nnz()) * (sizeof(std::int64_t) + 8));
    C = T.type() == C.type() ? std::move(T) : T.cast(C.type());
    return;
  }
  if (needs_write_back(mask, accum))
    ctx.trace_line(std::string("mxm: write-back C<M") + (desc.replace ? ", replace" : "") +
                   "> = C" + (accum ? " " + std::string(binary_op_name(*accum)) : "") + " T");
  write_back(C, mask, accum, desc.replace, std::move(T), ctx);
  phase_log::mark("run: written back", stream_of(ctx));
}

tuning tuning::defaults() {
  return tuning{policy::bitmap_symbolic,
                policy::dense_windows,
                policy::dense_min_nnz,
                true,
                policy::concurrent_min_kernels,
                policy::lean_host,
                policy::wide_pwarp,
                policy::wide_pwarp_alone,
                policy::bucket_sort_min};
}

tuning tuning::previous() { return tuning{false, 0, policy::dense_min_nnz, false, 0, false, 0}; }

tuning tuning::session4() {
  return tuning{policy::bitmap_symbolic, policy::dense_windows, policy::dense_min_nnz, true, 0,
                false, 0};
}

void set_tuning(const tuning& t) {
  std::lock_guard<std::mutex> lock(tuning_mutex);
  tuning_now = t;
}

tuning current_tuning() {
  std::lock_guard<std::mutex> lock(tuning_mutex);
  return tuning_now;
}

std::vector<manifest_entry> manifest() {
  std::vector<manifest_entry> out;
  for (const auto& row : the_registry().rows) out.push_back({row.name, row.type});
  return out;
}

namespace detail {
void set_workspace_budget_for_testing(std::size_t bytes) { budget_override = bytes; }
}  // namespace detail

}  // namespace ringblas::cuda::spgemm_hash
