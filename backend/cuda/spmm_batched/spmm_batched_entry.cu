// cuda entry point of mxm_batched and the batched SpMM driver (host side of spmm_batched).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "backend/core/containers/host_access.hpp"
#include "backend/cuda/common/check.cuh"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/spmm_batched/spmm_batched_run.hpp"
#include "backend/cuda/spmm_subwarp/device_prep.hpp"
#include "backend/cuda/spmm_subwarp/semiring_types.hpp"
#include "backend/cuda/spmm_subwarp/spmm_problem.hpp"

namespace ringblas::cuda {
namespace detail {
namespace {

constexpr std::size_t kAlign = 16;
std::size_t align_up(std::size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

/// Host bytes to upload in one copy; each array starts 16-byte aligned.
struct Staging {
  std::vector<unsigned char> bytes;
  std::size_t add(const void* src, std::size_t n) {
    const std::size_t at = align_up(bytes.size());
    bytes.resize(at + std::max<std::size_t>(n, 1));
    if (n) std::memcpy(bytes.data() + at, src, n);
    return at;
  }
};

/// Where an item's array lives: a device pointer, or an offset into the upload.
struct Ref {
  const void* ptr = nullptr;
  std::size_t offset = 0;
  bool staged = false;
  const void* resolve(const unsigned char* base) const { return staged ? base + offset : ptr; }
};

std::string item_name(const char* op, std::size_t b) {
  return std::string(op) + ": item " + std::to_string(b);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

/// The device copy of the last batch metadata uploaded on a stream (see run_batched_spmm).
/// Deliberately never freed: it lives as long as the process, a few KB per stream.
struct MetadataEntry {
  Buffer device;  ///< allocated on the entry's stream, so freed in its order when it grows
  std::vector<unsigned char> last;  ///< the bytes the device buffer holds (empty: unknown)
};
std::mutex& metadata_mutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<cudaStream_t, MetadataEntry>& metadata_cache() {
  static auto* cache = new std::unordered_map<cudaStream_t, MetadataEntry>();
  return *cache;
}

/// Makes `entry`'s device buffer (of ctx's stream) hold at least n bytes; when it grows, the old
/// one is freed first (in stream order) so that the pool may reuse its block.
void reserve_metadata(MetadataEntry& entry, std::size_t n, Context& ctx) {
  if (entry.device.size() >= n) return;
  entry.device = Buffer();
  entry.device = Buffer(n, Location::device, &ctx);
}

/// Copies `bytes` (n of them) into `entry`'s device buffer, grown first if needed (stream order).
void copy_metadata(MetadataEntry& entry, const unsigned char* bytes, std::size_t n,
                   cudaStream_t stream, Context& ctx) {
  reserve_metadata(entry, n, ctx);
  // Pageable source: the copy is staged before cudaMemcpyAsync returns, so `bytes` may change.
  RINGBLAS_CUDA_TRY(cudaMemcpyAsync(entry.device.data(), bytes, n, cudaMemcpyHostToDevice, stream));
  ctx.transfers.host_to_device += 1;
  ctx.transfers.bytes_host_to_device += n;
}

/// Makes `entry`'s device buffer hold `bytes` (on `stream`): skips the upload when they equal the
/// last upload on this stream (a GCN layer multiplying the same batch every epoch), else grows
/// the buffer if needed and copies. The caller holds metadata_mutex until its launch is queued,
/// so stream order protects the buffer.
void upload_metadata(MetadataEntry& entry, const std::vector<unsigned char>& bytes,
                     cudaStream_t stream, Context& ctx) {
  if (entry.device.data() && entry.last.size() == bytes.size() &&
      std::memcmp(entry.last.data(), bytes.data(), bytes.size()) == 0)
    return;
  entry.last.clear();  // unknown until the copy below is queued
  copy_metadata(entry, bytes.data(), bytes.size(), stream, ctx);
  entry.last.assign(bytes.begin(), bytes.end());
}

/// The launch both paths end with: `p` with items, block offsets and sizes set.
void launch_batch(BatchedProblem p, const SubwarpShape& shape, const Semiring& s,
                  const Epilogue& ep, Variant variant, const char* op, Context& ctx) {
  const Type T = s.type;
  const std::size_t tsz = type_size(T);
  const int n = p.n, max_m = p.max_m;
  const std::size_t batch = static_cast<std::size_t>(p.batch);
  DevDense bias;
  if (ep.has_bias()) bias = device_dense_vector(*ep.bias, T, ctx);
  p.epilogue.bias = ep.has_bias();
  p.epilogue.relu = ep.has_relu();
  p.epilogue.clamp = ep.clamp.has_value();
  p.epilogue.clamp_value = ep.clamp.value_or(0);
  p.epilogue.bias_values = bias.values;

  const bool use_coo = variant == Variant::spmm_batched_coo;
  int col_block = 0;
  if (use_coo) {
    const long long per_col = static_cast<long long>(max_m) * static_cast<long long>(tsz);
    const long long fit = per_col ? SpmmPolicy::coo_shared_bytes / per_col : n;
    if (fit < 1)
      throw NotImplemented(std::string(op) + ": spmm_batched_coo needs a " + std::to_string(max_m) +
                           "-row column of C in shared memory; the largest item is too tall");
    col_block = static_cast<int>(
        std::min<long long>(fit >= n ? n : (fit >= 32 ? fit / 32 * 32 : fit), std::max(n, 1)));
    if (col_block < 1) col_block = 1;
  }
  if (ctx.trace)
    ctx.trace_line(
        std::string(op) + ": " + (use_coo ? "spmm_batched_coo" : "spmm_batched") + ", batch " +
        std::to_string(batch) + ", max m " + std::to_string(max_m) + ", n_B " + std::to_string(n) +
        (use_coo ? ", column block " + std::to_string(col_block)
                 : ", sub-warp " + std::to_string(1 << shape.log_sw) + ", vector " +
                       std::to_string(shape.vec) + ", " + std::to_string(p.total_blocks) +
                       " row blocks x " + std::to_string(shape.chunks) + " column chunks"));
  with_spmm_batched_semiring(s, [&](auto sr_tag) {
    using S = decltype(sr_tag);
    if (use_coo)
      spmm_batched_coo_launch<S>(p, col_block, ctx.stream, ctx.debug_sync);
    else
      spmm_batched_csr_launch<S>(p, shape, ctx.stream, ctx.debug_sync);
  });
}

/// One item as the resident path reads it: operands and, in the stacked form, the first rows of
/// B and C that belong to it.
struct ItemRef {
  const Matrix* a;
  const DenseMatrix* b;
  DenseMatrix* c;
  Index b_row, c_row;
};

/// The batch when every operand already is where and as the kernels read it (A[b] on the device
/// with 32-bit indices, of the semiring's type where the multiply reads it, not transposed; B[b]
/// and C[b] on the device of the semiring's type): one pass writes each item's metadata straight
/// into the per-stream buffer (no per-item allocation, staging or write-back), uploaded only when
/// it differs from the last call's on this stream. Issue 9: the per-call host cost of mxm_batched
/// on device-resident operands. `item(b)` is called for b = 0, 1, ... in order. Returns false,
/// having touched nothing, when an item is not so (the general path then handles the call).
template <class ItemFn>
bool run_resident_batch(std::size_t batch, ItemFn&& item, const Semiring& s, const Epilogue& ep,
                        Variant variant, const char* op, Context& ctx) {
  if (batch == 0) return false;
  const Type T = s.type;
  const std::size_t tsz = type_size(T);
  const bool reads_a = reads_x(s.mul), reads_b = reads_y(s.mul);
  constexpr long long lim = std::numeric_limits<int>::max() / 2;
  auto stream = static_cast<cudaStream_t>(ctx.stream);
  std::lock_guard<std::mutex> lock(metadata_mutex());
  MetadataEntry& entry = metadata_cache()[stream];
  // The metadata are built straight into entry.last, the bytes the device buffer holds, each
  // item compared as it is built: an unchanged batch is read once and uploads nothing (the
  // batch's memory traffic, not its arithmetic, is this path's host cost).
  const std::size_t items_bytes = align_up(batch * sizeof(BatchItem));
  const std::size_t total = items_bytes + (batch + 1) * sizeof(int);
  bool changed = !entry.device.data() || entry.last.size() != total;
  if (changed) entry.last.resize(total);
  auto* items = reinterpret_cast<BatchItem*>(entry.last.data());
  auto* offsets = reinterpret_cast<int*>(entry.last.data() + items_bytes);
  // An item the path cannot take: what was written no longer matches the device buffer.
  auto give_up = [&] {
    if (changed) entry.last.clear();
    return false;
  };
  int n = -1, max_m = 0;
  bool vec_ok = true;
  for (std::size_t b = 0; b < batch; ++b) {
    const ItemRef r = item(b);
    const Matrix& a = *r.a;
    const DenseMatrix& bm = *r.b;
    DenseMatrix& cm = *r.c;
    if (a.location() != Location::device || a.index_type() != IndexType::i32 ||
        (reads_a && a.type() != T) ||
        (reads_b && (bm.location() != Location::device || bm.type() != T)) ||
        cm.location() != Location::device || cm.type() != T)
      return give_up();
    const long long m = a.nrows(), k = a.ncols();
    if (b == 0) n = static_cast<int>(bm.ncols());
    if (m > lim || k > lim || a.nnz() > lim || m * n > lim || k * n > lim) return give_up();
    BatchItem it;
    std::memset(&it, 0, sizeof it);  // padding too: the metadata are compared byte by byte
    it.m = static_cast<int>(m);
    it.k = static_cast<int>(k);
    it.nnz = static_cast<int>(a.nnz());
    it.row_ptr = a.row_ptr().as<std::int32_t>();
    it.col_idx = a.col_idx().as<std::int32_t>();
    it.a_values = reads_a ? a.values().data() : nullptr;
    it.b_rs = static_cast<int>(row_stride(bm));
    it.b_cs = static_cast<int>(col_stride(bm));
    it.c_rs = static_cast<int>(row_stride(cm));
    it.c_cs = static_cast<int>(col_stride(cm));
    it.b = reads_b ? static_cast<const unsigned char*>(bm.values().data()) +
                         r.b_row * row_stride(bm) * static_cast<long long>(tsz)
                   : nullptr;
    it.c = static_cast<unsigned char*>(cm.values().data()) +
           r.c_row * row_stride(cm) * static_cast<long long>(tsz);
    vec_ok = vec_ok &&
             (!reads_b || (it.b_cs == 1 && aligned16(it.b) && (it.b_rs * tsz) % 16 == 0)) &&
             it.c_cs == 1 && aligned16(it.c) && (it.c_rs * tsz) % 16 == 0;
    max_m = std::max(max_m, it.m);
    if (changed || std::memcmp(&items[b], &it, sizeof it) != 0) {
      std::memcpy(&items[b], &it, sizeof it);
      changed = true;
    }
  }
  const int vec = vec_ok && tsz >= 4 && n % int(16 / tsz) == 0 ? int(16 / tsz) : 1;
  const SubwarpShape shape = subwarp_shape(n, vec);
  int at = 0;
  for (std::size_t b = 0; b <= batch; ++b) {
    if (changed || offsets[b] != at) offsets[b] = at, changed = true;
    if (b == batch) break;
    const long long threads = static_cast<long long>(items[b].m) << shape.log_sw;
    at += static_cast<int>((threads + SpmmPolicy::block_threads - 1) / SpmmPolicy::block_threads);
  }
  if (changed) {
    try {
      copy_metadata(entry, entry.last.data(), total, stream, ctx);
    } catch (...) {
      entry.last.clear();  // the device buffer does not hold these bytes
      throw;
    }
  }
  const auto* base = static_cast<const unsigned char*>(entry.device.data());
  BatchedProblem p;
  p.batch = static_cast<int>(batch);
  p.n = n;
  p.max_m = max_m;
  p.items = reinterpret_cast<const BatchItem*>(base);
  p.block_offsets = reinterpret_cast<const int*>(base + items_bytes);
  p.total_blocks = offsets[batch];
  launch_batch(p, shape, s, ep, variant, op, ctx);
  return true;
}

/// The checks every batched call makes before touching anything.
void check_batched_call(const Semiring& s, const Epilogue& ep, Variant variant, const char* op) {
  if (variant != Variant::automatic && variant != Variant::spmm_batched &&
      variant != Variant::spmm_batched_coo)
    throw NotImplemented(std::string(op) + ": variant " + std::string(variant_name(variant)) +
                         " does not compute a batched SpMM");
  if (s.type == Type::boolean && !ep.is_identity())
    throw NotImplemented(std::string(op) + ": bias/ReLU/clamp epilogues need a numeric type");
  if (!manifest::compiled<manifest::spmm_batched>(s))
    throw NotImplemented(std::string(op) + ": " + manifest::not_compiled(s, "spmm_batched"));
}

}  // namespace

void run_batched_spmm(const std::vector<DenseMatrix*>& C, const std::vector<const Matrix*>& A,
                      const std::vector<const DenseMatrix*>& B, const Semiring& s,
                      const Epilogue& ep, bool transpose_a, Variant variant, const char* op,
                      Context& ctx, const std::vector<std::pair<Index, Index>>* row0) {
  check_batched_call(s, ep, variant, op);
  const Type T = s.type;
  const std::size_t tsz = type_size(T);
  const bool reads_a = reads_x(s.mul), reads_b = reads_y(s.mul);
  const std::size_t batch = A.size();
  if (batch == 0) return;
  if (!transpose_a && run_resident_batch(
                          batch,
                          [&](std::size_t b) {
                            return ItemRef{A[b], B[b], C[b], row0 ? (*row0)[b].first : 0,
                                           row0 ? (*row0)[b].second : 0};
                          },
                          s, ep, variant, op, ctx))
    return;
  const int n = static_cast<int>(B[0]->ncols());
  constexpr long long lim = std::numeric_limits<int>::max() / 2;

  Staging up;
  std::vector<DevCsr> converted;  // device items that needed narrowing, casting or a transpose
  converted.reserve(batch);
  std::vector<DevDense> converted_b;
  converted_b.reserve(batch);
  std::vector<Ref> rp(batch), ci(batch), av(batch), bv(batch), cv(batch);
  std::vector<BatchItem> items(batch);
  // Outputs that cannot be written in place (host, or another type) go to one device area.
  std::vector<std::size_t> out_offset(batch, 0);
  std::vector<bool> out_direct(batch, false);
  std::size_t out_bytes = 0;

  for (std::size_t b = 0; b < batch; ++b) {
    const Matrix& a = *A[b];
    const DenseMatrix& bm = *B[b];
    DenseMatrix& cm = *C[b];
    // op(A[b])'s sizes (the same as C[b]'s and B[b]'s rows except in the stacked form).
    const long long m = transpose_a ? a.ncols() : a.nrows(), k = transpose_a ? a.nrows() : a.ncols();
    const long long b_at = row0 ? (*row0)[b].first * row_stride(bm) * static_cast<long long>(tsz) : 0;
    const long long c_at = row0 ? (*row0)[b].second * row_stride(cm) * static_cast<long long>(tsz) : 0;
    if (row0 && ((reads_b && (bm.location() != Location::device || bm.type() != T)) ||
                 cm.location() != Location::device || cm.type() != T))
      throw InvalidValue(item_name(op, b) + ": the stacked form needs B and C on the device with the semiring's type");
    if (m > lim || k > lim || a.nnz() > lim || m * n > lim || k * n > lim)
      throw NotImplemented(item_name(op, b) + " is too large for the batched kernels (32-bit sizes); use mxm per item");
    BatchItem& it = items[b];
    it.m = static_cast<int>(m);
    it.k = static_cast<int>(k);
    it.nnz = static_cast<int>(a.nnz());
    const bool a_direct_dev = a.location() == Location::device && a.index_type() == IndexType::i32 &&
                              (!reads_a || a.type() == T) && !transpose_a;
    if (a_direct_dev) {
      rp[b].ptr = a.row_ptr().data();
      ci[b].ptr = a.col_idx().data();
      av[b].ptr = reads_a ? a.values().data() : nullptr;
    } else if (a.location() == Location::host && !transpose_a) {
      std::vector<std::int32_t> r(static_cast<std::size_t>(a.nrows() + 1)), c(static_cast<std::size_t>(a.nnz()));
      for (Index i = 0; i <= a.nrows(); ++i) r[i] = static_cast<std::int32_t>(ringblas::detail::index_at(a.row_ptr(), a.index_type(), i));
      for (Index p = 0; p < a.nnz(); ++p) c[p] = static_cast<std::int32_t>(ringblas::detail::index_at(a.col_idx(), a.index_type(), p));
      rp[b] = Ref{nullptr, up.add(r.data(), r.size() * 4), true};
      ci[b] = Ref{nullptr, up.add(c.data(), c.size() * 4), true};
      if (reads_a) {
        std::vector<unsigned char> v(static_cast<std::size_t>(a.nnz()) * tsz);
        visit_type(T, [&](auto z) {
          using V = decltype(z);
          for (Index p = 0; p < a.nnz(); ++p)
            reinterpret_cast<V*>(v.data())[p] = ringblas::detail::value_at<V>(a.values(), a.type(), p);
        });
        av[b] = Ref{nullptr, up.add(v.data(), v.size()), true};
      }
    } else {
      converted.push_back(device_csr(a, T, reads_a, transpose_a, op, ctx));
      const DevCsr& d = converted.back();
      rp[b].ptr = d.row_ptr;
      ci[b].ptr = d.col_idx;
      av[b].ptr = d.values;
    }
    it.b_rs = static_cast<int>(row_stride(bm));
    it.b_cs = static_cast<int>(col_stride(bm));
    if (!reads_b) {
      bv[b].ptr = nullptr;
    } else if (bm.location() == Location::device && bm.type() == T) {
      bv[b].ptr = static_cast<const unsigned char*>(bm.values().data()) + b_at;
    } else if (bm.location() == Location::host) {
      std::vector<unsigned char> v(static_cast<std::size_t>(k * n) * tsz);
      visit_type(T, [&](auto z) {
        using V = decltype(z);
        for (long long x = 0; x < k * n; ++x)
          reinterpret_cast<V*>(v.data())[x] = ringblas::detail::value_at<V>(bm.values(), bm.type(), x);
      });
      bv[b] = Ref{nullptr, up.add(v.data(), v.size()), true};
    } else {
      converted_b.push_back(device_dense(bm, T, ctx));
      bv[b].ptr = converted_b.back().values;
    }
    it.c_rs = static_cast<int>(row_stride(cm));
    it.c_cs = static_cast<int>(col_stride(cm));
    out_direct[b] = cm.location() == Location::device && cm.type() == T;
    if (out_direct[b]) {
      cv[b].ptr = static_cast<unsigned char*>(cm.values().data()) + c_at;
    } else {
      out_offset[b] = align_up(out_bytes);
      out_bytes = out_offset[b] + static_cast<std::size_t>(m * n) * tsz;
    }
  }

  const std::size_t staged_bytes = up.bytes.size();
  // Row blocks of the CSR kernel and the vector width every item allows.
  int vec = 1;
  if (tsz >= 4 && n % int(16 / tsz) == 0) vec = int(16 / tsz);
  const int max_m = static_cast<int>(std::max_element(items.begin(), items.end(), [](const BatchItem& x, const BatchItem& y) { return x.m < y.m; })->m);
  const std::size_t items_at = up.add(items.data(), items.size() * sizeof(BatchItem));  // rewritten below
  std::vector<int> offsets(batch + 1, 0);
  const std::size_t offsets_at = up.add(offsets.data(), offsets.size() * sizeof(int));

  // Metadata goes to a per-stream device buffer kept across calls when every item is already on
  // the device (the upload is then a few KB of pointers and sizes): a call whose batch is
  // byte-identical to the previous one on that stream skips the upload, as a GCN layer that
  // multiplies the same batch every epoch does. The lock is held until the launch is queued, so
  // stream order protects the buffer. Host-packed batches use a buffer of their own.
  auto stream = static_cast<cudaStream_t>(ctx.stream);
  const bool cached = staged_bytes == 0;
  std::unique_lock<std::mutex> lock(metadata_mutex(), std::defer_lock);
  Buffer dev;
  unsigned char* base_ptr = nullptr;
  MetadataEntry* entry = nullptr;
  if (cached) {
    lock.lock();
    entry = &metadata_cache()[stream];
    if (entry->device.size() < up.bytes.size()) entry->last.clear();
    reserve_metadata(*entry, up.bytes.size(), ctx);
    base_ptr = entry->device.as<unsigned char>();
  } else {
    dev = Buffer(std::max<std::size_t>(up.bytes.size(), 1), Location::device, &ctx);
    base_ptr = static_cast<unsigned char*>(dev.data());
  }
  Buffer out;
  if (out_bytes) out = Buffer(out_bytes, Location::device, &ctx);
  const auto* base = base_ptr;
  for (std::size_t b = 0; b < batch; ++b) {
    BatchItem& it = items[b];
    it.row_ptr = static_cast<const std::int32_t*>(rp[b].resolve(base));
    it.col_idx = static_cast<const std::int32_t*>(ci[b].resolve(base));
    it.a_values = av[b].resolve(base);
    it.b = bv[b].resolve(base);
    it.c = out_direct[b] ? const_cast<void*>(cv[b].ptr) : static_cast<unsigned char*>(out.data()) + out_offset[b];
    const bool ok = (!reads_b || (it.b_cs == 1 && aligned16(it.b) && (it.b_rs * tsz) % 16 == 0)) &&
                    it.c_cs == 1 && aligned16(it.c) && (it.c_rs * tsz) % 16 == 0;
    if (!ok) vec = 1;
  }
  const SubwarpShape shape = subwarp_shape(n, vec);
  for (std::size_t b = 0; b < batch; ++b) {
    const long long threads = static_cast<long long>(items[b].m) << shape.log_sw;
    offsets[b + 1] = offsets[b] + static_cast<int>((threads + SpmmPolicy::block_threads - 1) / SpmmPolicy::block_threads);
  }
  std::memcpy(up.bytes.data() + items_at, items.data(), items.size() * sizeof(BatchItem));
  std::memcpy(up.bytes.data() + offsets_at, offsets.data(), offsets.size() * sizeof(int));
  if (entry) {
    upload_metadata(*entry, up.bytes, stream, ctx);
  } else {
    // Pageable source: the copy is staged before cudaMemcpyAsync returns, so `up` may go away.
    RINGBLAS_CUDA_TRY(cudaMemcpyAsync(base_ptr, up.bytes.data(), up.bytes.size(), cudaMemcpyHostToDevice, stream));
    ctx.transfers.host_to_device += 1;
    ctx.transfers.bytes_host_to_device += up.bytes.size();
  }

  BatchedProblem p;
  p.batch = static_cast<int>(batch);
  p.n = n;
  p.max_m = max_m;
  p.items = reinterpret_cast<const BatchItem*>(base + items_at);
  p.block_offsets = reinterpret_cast<const int*>(base + offsets_at);
  p.total_blocks = offsets[batch];
  launch_batch(p, shape, s, ep, variant, op, ctx);

  // Results that were staged: one download for host outputs, casts for device ones.
  if (out_bytes == 0) return;
  std::vector<unsigned char> host_out;
  bool any_host = false;
  for (std::size_t b = 0; b < batch; ++b) any_host |= !out_direct[b] && C[b]->location() == Location::host;
  if (any_host) {
    host_out.resize(out_bytes);
    ringblas::detail::copy_bytes(host_out.data(), Location::host, out.data(), Location::device, out_bytes, &ctx);
    ctx.transfers.device_to_host += 1;
    ctx.transfers.bytes_device_to_host += out_bytes;
  }
  for (std::size_t b = 0; b < batch; ++b) {
    if (out_direct[b]) continue;
    DenseMatrix& cm = *C[b];
    const std::size_t cells = static_cast<std::size_t>(cm.nrows() * cm.ncols());
    if (cm.location() == Location::host) {
      visit_type(T, [&](auto z) {
        using V = decltype(z);
        const V* src = reinterpret_cast<const V*>(host_out.data() + out_offset[b]);
        for (std::size_t x = 0; x < cells; ++x) ringblas::detail::set_value(cm.values(), cm.type(), Index(x), src[x]);
      });
    } else {
      cast_into(cm.values().data(), cm.type(), static_cast<unsigned char*>(out.data()) + out_offset[b], T, cells, ctx);
    }
  }
}

}  // namespace detail

void mxm_batched(DenseMatrix& C, const Semiring& s, const std::vector<Matrix>& A,
                 const DenseMatrix& B, const Epilogue& ep, const Descriptor& desc, Context& ctx) {
  const char* op = "mxm_batched (stacked)";
  detail::check_batched_call(s, ep, desc.variant, op);
  if (!desc.transpose_a) {
    // Device-resident operands: straight to the kernel, no per-item vectors (issue 9).
    Index rb = 0, rc = 0;
    auto item = [&](std::size_t k) {
      const detail::ItemRef r{&A[k], &B, &C, rb, rc};
      rb += A[k].ncols();
      rc += A[k].nrows();
      return r;
    };
    if (detail::run_resident_batch(A.size(), item, s, ep, desc.variant, op, ctx)) return;
  }
  const bool reads_b = reads_y(s.mul);
  // One copy of a host operand, never one per item; the kernels write C's rows in place.
  std::optional<DenseMatrix> b_dev, c_dev;
  if (reads_b && B.location() != Location::device) b_dev = B.to(Location::device, ctx);
  const DenseMatrix& b = b_dev ? *b_dev : B;
  if (C.location() != Location::device)
    c_dev = DenseMatrix::from_buffer(
        C.nrows(), C.ncols(), C.type(), C.layout(),
        Buffer(static_cast<std::size_t>(C.nrows() * C.ncols()) * type_size(C.type()), Location::device, &ctx));
  DenseMatrix& c = c_dev ? *c_dev : C;
  std::vector<DenseMatrix*> cs(A.size(), &c);
  std::vector<const Matrix*> as(A.size());
  std::vector<const DenseMatrix*> bs(A.size(), &b);
  std::vector<std::pair<Index, Index>> row0(A.size());
  Index rb = 0, rc = 0;
  for (std::size_t k = 0; k < A.size(); ++k) {
    as[k] = &A[k];
    row0[k] = {rb, rc};
    rb += desc.transpose_a ? A[k].nrows() : A[k].ncols();
    rc += desc.transpose_a ? A[k].ncols() : A[k].nrows();
  }
  detail::run_batched_spmm(cs, as, bs, s, ep, desc.transpose_a, desc.variant, op, ctx, &row0);
  if (c_dev) C = c_dev->to(Location::host, ctx);
}

void mxm_batched(std::vector<DenseMatrix>& C, const Semiring& s, const std::vector<Matrix>& A,
                 const std::vector<DenseMatrix>& B, const Descriptor& desc, Context& ctx) {
  detail::check_batched_call(s, Epilogue::none(), desc.variant, "mxm_batched");
  if (!desc.transpose_a && C.size() == A.size() && B.size() == A.size()) {
    auto item = [&](std::size_t k) { return detail::ItemRef{&A[k], &B[k], &C[k], 0, 0}; };
    if (detail::run_resident_batch(A.size(), item, s, Epilogue::none(), desc.variant, "mxm_batched",
                                   ctx))
      return;
  }
  std::vector<DenseMatrix*> c(C.size());
  std::vector<const Matrix*> a(A.size());
  std::vector<const DenseMatrix*> b(B.size());
  for (std::size_t k = 0; k < C.size(); ++k) c[k] = &C[k], a[k] = &A[k], b[k] = &B[k];
  detail::run_batched_spmm(c, a, b, s, Epilogue::none(), desc.transpose_a, desc.variant, "mxm_batched", ctx);
}

}  // namespace ringblas::cuda
