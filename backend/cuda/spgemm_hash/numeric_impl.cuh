// spgemm_hash numeric phase (Nagasaka et al., ICPP'17, steps 6-7) and the whole pipeline for one
// semiring S and index type I; included only by the instantiation units (inst/*.cu).
// Kernels: k_numeric_pwarp (4 threads per row, 32-slot key+value tables, 64 rows per block,
// <= 24 KiB shared; rows ranked by counting smaller keys), k_numeric_block (one block per row,
// 512..16384 slots of key+value, <= 192 KiB shared; entries compacted by warp ballots and a block
// scan, then a bitonic sort in shared memory of the keys packed with their slot, values read from
// their slots at write-out), k_numeric_global (persistent blocks with global-memory tables;
// entries compacted unsorted, then cub::DeviceSegmentedSort and a copy into C). When a table has
// a slot per column of C (direct addressing, spECK's dense accumulator) there is no probing and
// the order-preserving compaction already yields a sorted row: no sort at all. Block rows use a
// direct table whenever their column span (first to last column their products can reach) fits
// the table; numeric bins are promoted for that (policy::direct_promote). Rows with many outputs
// whose span needs a few tables (paths::dense_windows) accumulate directly window by window
// (numeric_row_windows): each window's compaction is already in column order, so no sort.
// When C's bound or the workspace exceeds the device budget, run_chunked splits A's rows into
// chunks, each two-phase, concatenated on the host.
// Output invariant: every row of C sorted by column with no duplicates, nnz exactly as counted.
// Values are combined with S's add monoid through backend/cuda/common/monoid_atomics.cuh (native
// where the type has one, CAS otherwise; `any`: atomic exchange, the last writer wins).
#pragma once
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/spgemm_hash/bin_streams.hpp"
#include "backend/cuda/spgemm_hash/phase_log.hpp"
#include "backend/cuda/spgemm_hash/plan.cuh"
#include "backend/cuda/spgemm_hash/spgemm_hash.hpp"
#include "backend/cuda/spgemm_hash/registry.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda::spgemm_hash {

template <class S, class I> struct numeric_args {
  using T = typename S::value_type;
  csr_ref<I> A, B;
  mask_ref<I> M;
  const I* c_rp;
  I* c_ci;
  T* c_v;
  const int2* range;          ///< per row: first and last column it can reach
  std::int64_t row_base = 0;  ///< A's first row in this chunk (positional multiplies see it)
};

/// The product A(row, k) ⊗ B(k, j), loading only the values the multiply reads.
template <class S, class I>
__device__ __forceinline__ typename S::value_type product(const numeric_args<S, I>& a,
                                                          std::int64_t row, I p, I k, I q, I j) {
  using T = typename S::value_type;
  T x{}, y{};
  if constexpr (S::reads_a) x = static_cast<const T*>(a.A.v)[p];
  if constexpr (S::reads_b) y = static_cast<const T*>(a.B.v)[q];
  return S::mul(x, y, row + a.row_base, k, k, j);
}

/// Adds value v at column j to the table.
template <class S>
__device__ __forceinline__ void accumulate(int* keys, acc_t<typename S::value_type>* vals,
                                           unsigned mask, int j, typename S::value_type v,
                                           bool direct = false, int base = 0) {
  using T = typename S::value_type;
  bool ins;
  const unsigned slot = table_insert(keys, mask, j, ins, direct, base);
  atomic_combine<typename S::add_monoid, T>(&vals[slot], v);
}

/// Partial-warp rows: `Group` threads per row with a `Table`-slot key+value table each,
/// blockDim.x / Group rows per block (at most pwarp_block threads; pwarp: 4 x 32; wide pwarp:
/// 8 x 64). Rows have at most Table products, so the table never fills past its size.
template <class S, class I, int Group, int Table>
__global__ void __launch_bounds__(policy::pwarp_block)
    k_numeric_pwarp(numeric_args<S, I> a, const I* rows, std::int64_t n, int split) {
  using P = policy;
  using T = typename S::value_type;
  using A = acc_t<T>;
  __shared__ int keys[P::pwarp_block / Group][Table];
  __shared__ A vals[P::pwarp_block / Group][Table];
  const int local_row = threadIdx.x / Group, t = threadIdx.x % Group;
  const std::int64_t r = std::int64_t(blockIdx.x) * (blockDim.x / Group) + local_row;
  int* tk = keys[local_row];
  A* tv = vals[local_row];
  for (int s = t; s < Table; s += Group) {
    tk[s] = empty_key;
    tv[s] = A(S::identity());
  }
  __syncwarp();
  const std::int64_t row = r < n ? std::int64_t(rows[r]) : 0;
  if (r < n) {
    for_each_pwarp_product<Group>(a.A, a.B, a.M, row, t, split, [&](I p, I k, I q, I j) {
      accumulate<S>(tk, tv, Table - 1, int(j), product(a, row, p, k, q, j));
    });
  }
  __syncwarp();
  // Compaction to the table's front in slot order (group ballots; all 32 lanes of the warp run
  // every round, rows past n with empty tables), so that ranking compares the row's entries only
  // (entries x entries / Group per thread instead of Table x Table / Group). A round writes only
  // below the end of the slots it has read.
  const unsigned lane = threadIdx.x & 31u;
  const unsigned group_mask =
      (Group == 32 ? 0xffffffffu : ((1u << Group) - 1u)) << (lane & ~unsigned(Group - 1));
  const unsigned below = group_mask & ((1u << lane) - 1u);
  int total = 0;
  for (int from = 0; from < Table; from += Group) {
    const int key = tk[from + t];
    const A v = tv[from + t];
    const unsigned full = __ballot_sync(0xffffffffu, key != empty_key) & group_mask;
    __syncwarp();  // every lane has read its slot before any lane writes
    if (key != empty_key) {
      const int at = total + __popc(full & below);
      tk[at] = key;
      tv[at] = v;
    }
    total += __popc(full);
    __syncwarp();
  }
  if (r < n) {
    const I base = a.c_rp[row], len = a.c_rp[row + 1] - base;
    for (int e = t; e < total; e += Group) {
      const int key = tk[e];
      int rank = 0;
      for (int x = 0; x < total; ++x) rank += tk[x] < key;
      if (rank < len) {
        a.c_ci[base + rank] = I(key);
        a.c_v[base + rank] = T(tv[e]);
      }
    }
  }
}

/// One output row by the whole block with a shared-memory table of `size` slots: hash (or
/// direct) accumulation, compaction, a bitonic sort unless direct, write-out. A hash table's
/// keys are sorted packed with their slot ((column - first) << log2(size) | slot) when that fits
/// 31 bits, the values read from their slots at write-out; else keys and values are sorted.
/// With `Buckets` and nb > 0 buckets (`hist` holding nb ints) a packed hash row is ordered by
/// bucket_sort_table instead of compaction and the bitonic sort, when its table is at most
/// policy::bucket_slots slots per thread and no bucket holds more than `limit` entries.
template <bool Buckets, class S, class I>
__device__ __forceinline__ void numeric_row_shared(const numeric_args<S, I>& a, std::int64_t row,
                                                   std::int64_t products, int* keys,
                                                   acc_t<typename S::value_type>* vals,
                                                   unsigned size, bool direct, int base,
                                                   std::int64_t span, int* warp_sums,
                                                   int* hist = nullptr, int nb = 0, int limit = 0) {
  using T = typename S::value_type;
  using A = acc_t<T>;
  const int shift = __ffs(int(size)) - 1;  // size is a power of two unless direct
  const int span_bits = span > 1 ? 64 - __clzll((unsigned long long)(span - 1)) : 0;
  const bool packed = !direct && span_bits + shift <= 31;
  const bool buckets =
      Buckets && packed && nb > 0 && size <= unsigned(policy::bucket_slots) * blockDim.x;
  for (unsigned s = threadIdx.x; s < size; s += blockDim.x) {
    keys[s] = empty_key;
    vals[s] = A(S::identity());
  }
  if (buckets)
    for (int s = threadIdx.x; s < nb; s += blockDim.x) hist[s] = 0;
  __syncthreads();
  const int g = lanes_per_entry(products, std::int64_t(a.A.rp[row + 1] - a.A.rp[row]));
  for_each_product(a.A, a.B, a.M, row, threadIdx.x, blockDim.x, g, [&](I p, I k, I q, I j) {
    accumulate<S>(keys, vals, size - 1, int(j), product(a, row, p, k, q, j), direct, base);
  });
  __syncthreads();
  const I out = a.c_rp[row];
  const I room = a.c_rp[row + 1] - out;
  int total = -1;
  if constexpr (Buckets)
    if (buckets)
      total = bucket_sort_table<policy::bucket_slots, policy::bucket_hist>(
          keys, size, shift, base, span, hist, nb, limit, warp_sums);
  if (total < 0) {
    total = packed ? compact_table<4>(keys, vals, size, warp_sums, shift, base)
                   : compact_table<4>(keys, vals, size, warp_sums);
    if (!direct) {  // hash tables have >= 512 slots, so padding to 32 keys stays inside
      const int n2 = packed ? max(32, int(next_pow2(total))) : int(next_pow2(total));
      for (int s = total + threadIdx.x; s < n2; s += blockDim.x) keys[s] = INT_MAX;
      __syncthreads();
      if (packed)
        block_bitonic_sort_keys(keys, n2);
      else
        block_bitonic_sort(keys, vals, n2);
    }
  }
  const I len = std::min<I>(I(total), room);
  for (I e = threadIdx.x; e < len; e += blockDim.x) {
    const int k = keys[e];
    if (packed) {
      a.c_ci[out + e] = I((k >> shift) + base);
      a.c_v[out + e] = T(vals[k & int(size - 1)]);
    } else {
      a.c_ci[out + e] = I(k);
      a.c_v[out + e] = T(vals[e]);
    }
  }
}

/// One output row by the whole block, window by window: the columns first .. first + span - 1 in
/// windows of `table_size` slots, each accumulated in a direct table (slot = column - window
/// start) from the products in that window only (for_each_product_in), compacted in slot order
/// (= column order) and written out behind the previous windows' entries.
template <class S, class I>
__device__ __forceinline__ void numeric_row_windows(const numeric_args<S, I>& a, std::int64_t row,
                                                    std::int64_t products, int* keys,
                                                    acc_t<typename S::value_type>* vals,
                                                    unsigned table_size, int first,
                                                    std::int64_t span, int* warp_sums) {
  using T = typename S::value_type;
  using A = acc_t<T>;
  const int g = lanes_per_entry(products, std::int64_t(a.A.rp[row + 1] - a.A.rp[row]));
  const I out = a.c_rp[row];
  const I room = a.c_rp[row + 1] - out;
  const std::int64_t end = std::int64_t(first) + span;
  I done = 0;
  for (std::int64_t lo = first; lo < end; lo += table_size) {
    const unsigned size = unsigned(std::min<std::int64_t>(table_size, end - lo));
    for (unsigned s = threadIdx.x; s < size; s += blockDim.x) {
      keys[s] = empty_key;
      vals[s] = A(S::identity());
    }
    __syncthreads();
    for_each_product_in(a.A, a.B, a.M, row, threadIdx.x, blockDim.x, g, I(lo), I(lo + size),
                        [&](I p, I k, I q, I j) {
                          accumulate<S>(keys, vals, size - 1, int(j), product(a, row, p, k, q, j),
                                        true, int(lo));
                        });
    __syncthreads();
    const int total = compact_table<4>(keys, vals, size, warp_sums);
    for (int e = threadIdx.x; e < total; e += blockDim.x)
      if (done + I(e) < room) {
        a.c_ci[out + done + e] = I(keys[e]);
        a.c_v[out + done + e] = T(vals[e]);
      }
    done += I(total);
    __syncthreads();
  }
}

// Bins of 1024 threads need 64 registers or fewer: compaction keeps 4 (keys and values) or 8
// (packed keys) slots per thread in registers for that reason (16 slots of keys and 8-byte values
// took 70 registers and failed with cudaErrorLaunchOutOfResources on the H200). `Windows`
// compiles the windowed path in (only for the last bin, where numeric_bin sends such rows: it
// costs 5 registers, which would lower the occupancy of the small bins; a row of another bin that
// could take windows hashes instead, with the same result). `Buckets` compiles bucket_sort_table
// in, only into k_numeric_block_buckets (bins 0-4 under tuning::bucket_sort_min): ptxas -v,
// sm_90, plus_times: 56-64 registers against 40, so it has its own kernel with a 1024-thread
// launch bound and the kernel without it stays as it was; its launch adds policy::bucket_hist
// ints per thread of shared memory after the keys for the histogram.
template <class S, class I, bool Windows, bool Buckets>
__device__ __forceinline__ void numeric_block_row(const numeric_args<S, I>& a, const I* rows,
                                                  const std::int64_t* products, unsigned table_size,
                                                  const paths& pa) {
  using A = acc_t<typename S::value_type>;
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ int warp_sums[32];
  A* vals = reinterpret_cast<A*>(smem);
  int* keys = reinterpret_cast<int*>(vals + table_size);
  const std::int64_t row = rows[blockIdx.x];
  // Direct addressing when the table covers the row's column span (then only span slots are used).
  const int2 rg = a.range[row];
  const std::int64_t span = std::int64_t(rg.y) - rg.x + 1;
  const bool direct = span <= std::int64_t(table_size);
  const std::int64_t nnz = std::int64_t(a.c_rp[row + 1] - a.c_rp[row]);
  if (Windows && uses_dense_windows(nnz, span, table_size, pa)) {
    numeric_row_windows(a, row, products[row], keys, vals, table_size, rg.x, span, warp_sums);
    return;
  }
  const int nb =
      Buckets && takes_buckets(products[row], nnz, pa)
          ? int(std::min<std::int64_t>(policy::bucket_hist * blockDim.x,
                                       (nnz + pa.bucket_entries - 1) / pa.bucket_entries))
          : 0;
  numeric_row_shared<Buckets>(a, row, products[row], keys, vals,
                              direct ? unsigned(span) : table_size, direct, rg.x, span, warp_sums,
                              keys + table_size, nb, pa.bucket_limit);
}

template <class S, class I, bool Windows>
__global__ void k_numeric_block(numeric_args<S, I> a, const I* rows, const std::int64_t* products,
                                unsigned table_size, paths pa) {
  numeric_block_row<S, I, Windows, false>(a, rows, products, table_size, pa);
}

// 1024: policy::block_threads of bins 4-5, the largest launch.
template <class S, class I>
__global__ void __launch_bounds__(1024)
    k_numeric_block_buckets(numeric_args<S, I> a, const I* rows, const std::int64_t* products,
                            unsigned table_size, paths pa) {
  numeric_block_row<S, I, false, true>(a, rows, products, table_size, pa);
}

/// Rows of the global bin: block b owns tables [b * max_slots, (b + 1) * max_slots). A direct
/// table (max_slots = ncols) is compacted in column order straight into C; a hash table's entries
/// go unsorted to tmp_k/tmp_v at an offset taken from `cursor` (recorded in seg_begin/seg_end)
/// for a segmented sort.
template <class S, class I>
__global__ void k_numeric_global(numeric_args<S, I> a, const I* rows, std::int64_t n,
                                 const std::int64_t* products, int* table_keys,
                                 acc_t<typename S::value_type>* table_vals,
                                 std::int64_t max_slots, bool direct, unsigned long long* cursor,
                                 std::int64_t* seg_begin, std::int64_t* seg_end, int* tmp_k,
                                 acc_t<typename S::value_type>* tmp_v) {
  using T = typename S::value_type;
  using A = acc_t<T>;
  __shared__ int cnt;
  __shared__ int warp_sums[32];
  __shared__ unsigned long long base;
  int* keys = table_keys + std::int64_t(blockIdx.x) * max_slots;
  A* vals = table_vals + std::int64_t(blockIdx.x) * max_slots;
  for (std::int64_t r = blockIdx.x; r < n; r += gridDim.x) {
    const std::int64_t row = rows[r];
    const std::int64_t nnz = std::int64_t(a.c_rp[row + 1] - a.c_rp[row]);
    const unsigned size =
        direct ? unsigned(max_slots)
               : unsigned(std::min<std::int64_t>(next_pow2(2 * nnz), max_slots));
    for (unsigned s = threadIdx.x; s < size; s += blockDim.x) {
      keys[s] = empty_key;
      vals[s] = A(S::identity());
    }
    if (threadIdx.x == 0 && !direct) {
      cnt = 0;
      base = atomicAdd(cursor, (unsigned long long)nnz);
      seg_begin[r] = std::int64_t(base);
      seg_end[r] = std::int64_t(base) + nnz;
    }
    __syncthreads();
    const int g = lanes_per_entry(products[row], std::int64_t(a.A.rp[row + 1] - a.A.rp[row]));
    for_each_product(a.A, a.B, a.M, row, threadIdx.x, blockDim.x, g, [&](I p, I k, I q, I j) {
      accumulate<S>(keys, vals, size - 1, int(j), product(a, row, p, k, q, j), direct);
    });
    __syncthreads();
    if (direct) {
      const I out = a.c_rp[row];
      std::int64_t done = 0;
      for (unsigned chunk = 0; chunk < size; chunk += blockDim.x) {
        const unsigned s = chunk + threadIdx.x;
        const int key = s < size ? keys[s] : empty_key;
        int total;
        const int o = block_exclusive_scan(key != empty_key, warp_sums, total);
        if (key != empty_key && done + o < nnz) {
          a.c_ci[out + done + o] = I(key);
          a.c_v[out + done + o] = T(vals[s]);
        }
        done += total;
      }
    } else {
      for (unsigned s = threadIdx.x; s < size; s += blockDim.x) {
        const int key = keys[s];
        if (key == empty_key) continue;
        const int pos = atomicAdd(&cnt, 1);
        if (pos < nnz) {
          tmp_k[base + pos] = key;
          tmp_v[base + pos] = vals[s];
        }
      }
    }
    __syncthreads();
  }
}

/// Copies each sorted global row from the segment buffers into C (one block per row).
template <class S, class I>
__global__ void k_scatter_global(numeric_args<S, I> a, const I* rows, const std::int64_t* seg_begin,
                                 const int* k, const acc_t<typename S::value_type>* v) {
  using T = typename S::value_type;
  const std::int64_t row = rows[blockIdx.x];
  const I base = a.c_rp[row], len = a.c_rp[row + 1] - base;
  const std::int64_t from = seg_begin[blockIdx.x];
  for (I e = threadIdx.x; e < len; e += blockDim.x) {
    a.c_ci[base + e] = I(k[from + e]);
    a.c_v[base + e] = T(v[from + e]);
  }
}

/// Device bytes per row of A that a pass holds besides C: products (8), column range (8), the
/// row lists of the bins (num_bins - 1 slots), C's row pointers, the segment bounds of global rows
/// (16).
template <class I> constexpr std::size_t pass_row_bytes() {
  return 32 + std::size_t(policy::num_bins) * sizeof(I);
}

/// What one two-phase pass over some rows of A returns.
struct pass_result {
  bool need_wide = false;  ///< nnz overflows I: rerun with 64-bit indices
  bool too_large = false;  ///< does not fit the budget: split these rows
  Matrix T;                ///< on the device, index type I
  std::vector<std::int64_t> row_bound;  ///< when too_large: min(products, ncols) per row (host)
  std::size_t budget = 0;               ///< the budget the pass resolved (plan::budget)
};

/// One pass (plan = analysis + symbolic, C allocated exactly, numeric per row group) over the
/// rows of a.A (a chunk of the caller's A when a.row_base > 0).
template <class S, class I>
pass_result run_pass(numeric_args<S, I> a, std::size_t budget_bytes, const Context& ctx,
                     run_info& info) {
  using P = policy;
  using T = typename S::value_type;
  using Acc = acc_t<T>;
  cudaStream_t s = stream_of(ctx);
  const std::size_t entry_bytes = sizeof(I) + sizeof(T), row_bytes = pass_row_bytes<I>();
  pass_result out;
  const tuning tu = current_tuning();
  paths pa;
  pa.bitmap = tu.bitmap_symbolic;
  pa.dense_windows = tu.dense_windows;
  pa.dense_min_nnz = tu.dense_min_nnz;
  pa.wide_pwarp = tu.wide_pwarp;
  pa.bucket_min = tu.bucket_sort_min;
  pa.bucket_entries = std::max(1, tu.bucket_entries);
  pa.bucket_limit = tu.bucket_limit;
  pa.fused_scan_rows = tu.fused_scan_rows;
  pa.wide_alone = tu.wide_pwarp_alone;
  pa.bucket_max_ratio = float(tu.bucket_max_ratio);
  pa.pwarp_split = tu.pwarp_split;
  pa.sync_free_rows = tu.sync_free_rows;
  pa.sync_free_bins = std::clamp(tu.sync_free_bins, 1, P::small_block_bins);
  pa.sync_free_big_grid = std::max(tu.sync_free_big_grid, 0);
  pa.one_workspace = tu.one_workspace;
  // 0 (by the grid) or a power of two of 64 .. pwarp_block: whole warps, Group-sized rows.
  pa.pwarp_threads =
      tu.pwarp_threads <= 0
          ? 0
          : std::clamp(int(std::bit_floor(unsigned(tu.pwarp_threads))), 64, P::pwarp_block);
  pa.pwarp_spread_rows = pwarp_spread_rows(tu.pwarp_spread, ctx);
  pa.pwarp_spread_group = tu.pwarp_spread_group;
  pa.sync_free_threads = tu.sync_free_threads;
  const int streams = tu.concurrent_bins ? P::bin_streams : 0;
  plan<I> p = make_plan<I>(a.A, a.B, a.M, budget_bytes, entry_bytes, row_bytes, pa, streams,
                           tu.concurrent_min_kernels, tu.lean_host, ctx);
  budget_bytes = p.budget;
  out.budget = p.budget;
  info.products += p.products;
  auto split = [&] {
    out.too_large = true;
    std::vector<std::int64_t> prod(std::size_t(p.nrows));
    ringblas::detail::copy_bytes(prod.data(), Location::host, p.row_products, Location::device,
                                 prod.size() * sizeof(std::int64_t), &ctx);
    for (auto& x : prod) x = std::min<std::int64_t>(x, a.B.ncols);
    out.row_bound = std::move(prod);
    return std::move(out);
  };
  if (p.too_large) return split();
  if (p.need_wide) {
    out.need_wide = true;
    return out;
  }
  info.nnz += p.nnz;
  info.symbolic_groups = std::max(info.symbolic_groups, p.symbolic_groups);
  info.numeric_groups = std::max(info.numeric_groups, p.numeric_groups);
  if (!p.symbolic_note.empty() && info.note.find(p.symbolic_note) == std::string::npos)
    info.note += (info.note.empty() ? "" : "; ") + p.symbolic_note;
  const bin_table& nb = p.numeric_bins;
  const std::size_t slot_bytes = sizeof(Acc) + sizeof(int);
  // Global rows: table size and whether the sort buffers fit next to C (else split the rows).
  const std::int64_t mg = nb.count[P::bin_global];
  std::int64_t max_slots = next_pow2(2 * p.global_max_nnz);
  const bool direct = a.B.ncols <= std::max<std::int64_t>(max_slots, P::direct_global_slots);
  if (direct) max_slots = a.B.ncols;
  const std::size_t sort_bytes =
      mg && !direct ? std::size_t(p.global_nnz) * 2 * slot_bytes : std::size_t(0);
  const std::size_t committed =
      std::size_t(p.nrows) * row_bytes + std::size_t(p.nnz) * entry_bytes + sort_bytes;
  const std::size_t left = budget_bytes > committed ? budget_bytes - committed : 0;
  const unsigned g = mg ? global_blocks(mg, max_slots, slot_bytes, left, ctx) : 0;
  if (mg && g == 0) {
    if (p.nrows > 1) return split();
    throw OutOfMemory("spgemm_hash: row " + std::to_string(a.row_base) + " needs a numeric table of " +
                          std::to_string(max_slots * slot_bytes) + " bytes next to its " +
                          std::to_string(committed) + " bytes of output and workspace; the budget is " +
                          std::to_string(budget_bytes) + " bytes",
                      std::size_t(max_slots) * slot_bytes);
  }
  if (committed > budget_bytes && p.nrows > 1) return split();
  device_array<I> ci(std::size_t(p.nnz), ctx);
  device_array<T> vals(std::size_t(p.nnz), ctx);
  a.c_rp = p.row_ptr.data();
  a.c_ci = ci.data();
  a.c_v = vals.data();
  a.range = p.row_range;
  const I* rows = p.rows;
  phase_log::mark("pass: C allocated", s);
  {
    // Set once per device (an attribute of the function; each call costs a driver call).
    static std::atomic<std::uint64_t> set{0};
    const std::uint64_t bit = std::uint64_t(1) << (ctx.device & 63);
    if (!(set.load() & bit)) {
      const int max_smem =
          int(std::size_t(P::numeric_table(P::num_block_bins - 1)) * slot_bytes +
              std::size_t(P::bucket_hist * P::block_threads(P::num_block_bins - 1)) * sizeof(int));
      RINGBLAS_CUDA_TRY(cudaFuncSetAttribute(
          k_numeric_block<S, I, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
      RINGBLAS_CUDA_TRY(cudaFuncSetAttribute(
          k_numeric_block<S, I, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
      RINGBLAS_CUDA_TRY(cudaFuncSetAttribute(
          k_numeric_block_buckets<S, I>, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
      set.fetch_or(bit);
    }
  }
  // Block bins (largest rows first) and the pwarp bins on side streams; the global bin below
  // stays on s, whose tables and sort buffers are freed in order on s; joined before returning.
  int kernels = (nb.count[P::bin_pwarp] > 0) + (nb.count[P::bin_pwarp2] > 0) +
                (nb.count[P::bin_pwarp3] > 0);
  for (int b = 0; b < P::num_block_bins; ++b) kernels += nb.count[P::bin_block0 + b] > 0;
  bin_fork fork(s, ctx.device, phase_streams(streams, kernels, mg > 0, tu.concurrent_min_kernels),
                mg == 0);
  for (int b = P::num_block_bins - 1; b >= 0; --b) {
    const int bin = P::bin_block0 + b;
    if (auto m = nb.count[bin]) {
      const unsigned table = unsigned(P::numeric_table(b));
      cudaStream_t bs = fork.next();
      // Bucket rank where each thread holds its slots (bins 0-4; the last bin's rows keep the
      // bitonic sort) and some row of the bin can have bucket_min outputs, with its histogram
      // after the keys; with bucket_max_ratio only when at least half the bin's rows take it
      // (the classification counts them), since the kernel is heavier for the others too.
      const bool buckets = pa.bucket_min > 0 && pa.bucket_min < int(table) &&
                           table <= unsigned(P::bucket_slots * P::block_threads(b)) &&
                           (pa.bucket_max_ratio <= 0.f || 2 * p.bucket_rows[bin] >= m);
      auto kernel = b == P::num_block_bins - 1 ? k_numeric_block<S, I, true>
                    : buckets                  ? k_numeric_block_buckets<S, I>
                                               : k_numeric_block<S, I, false>;
      const std::size_t hist_bytes =
          buckets ? std::size_t(P::bucket_hist * P::block_threads(b)) * sizeof(int) : 0;
      kernel<<<unsigned(m), P::block_threads(b), table * slot_bytes + hist_bytes, bs>>>(
          a, rows + nb.offset[bin], p.row_products, table, pa);
      RINGBLAS_CHECK_LAUNCH("k_numeric_block", bs, ctx.debug_sync);
    }
  }
  // The partial-warp bins, `Group` threads and `Table` slots per row, in blocks of
  // pwarp_launch_threads, in the shapes of for_each_pwarp_launch.
  auto pwarp_launch = [&](auto group, auto table, int bin, int split) {
    constexpr int G = decltype(group)::value;
    const std::int64_t m = nb.count[bin];
    const int threads = pwarp_launch_threads(m, G, pa, ctx);
    cudaStream_t bs = fork.next();
    k_numeric_pwarp<S, I, G, decltype(table)::value>
        <<<grid_for(std::size_t(m), std::size_t(threads / G)), threads, 0, bs>>>(
            a, rows + nb.offset[bin], m, split);
    RINGBLAS_CHECK_LAUNCH("k_numeric_pwarp", bs, ctx.debug_sync);
    note_pwarp_launch("numeric", bin, m, G, threads);
  };
  for_each_pwarp_launch(nb, pa, pwarp_launch);
  if (const std::int64_t m = mg) {
    if (g < m) {
      const std::string note = "numeric: global rows in chunks of " + std::to_string(g);
      if (info.note.find(note) == std::string::npos)
        info.note += (info.note.empty() ? "" : "; ") + note;
    }
    const std::size_t total = direct ? 0 : std::size_t(p.global_nnz);
    device_array<int> tkeys(std::size_t(g) * std::size_t(max_slots), ctx);
    device_array<Acc> tvals(std::size_t(g) * std::size_t(max_slots), ctx);
    device_array<unsigned long long> cursor(1, ctx);
    cursor.fill_zero(ctx);
    device_array<std::int64_t> seg_begin(direct ? 0 : std::size_t(m), ctx),
        seg_end(direct ? 0 : std::size_t(m), ctx);
    device_array<int> k_in(total, ctx), k_out(total, ctx);
    device_array<Acc> v_in(total, ctx), v_out(total, ctx);
    const I* grows = rows + nb.offset[P::bin_global];
    k_numeric_global<S, I><<<g, P::global_threads, 0, s>>>(
        a, grows, m, p.row_products, tkeys.data(), tvals.data(), max_slots, direct, cursor.data(),
        seg_begin.data(), seg_end.data(), k_in.data(), v_in.data());
    RINGBLAS_CHECK_LAUNCH("k_numeric_global", s, ctx.debug_sync);
    if (!direct) {
      std::size_t bytes = 0;
      RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(
          nullptr, bytes, k_in.data(), k_out.data(), v_in.data(), v_out.data(), int64_t(total),
          int64_t(m), seg_begin.data(), seg_end.data(), s));
      device_array<unsigned char> tmp(bytes, ctx);
      RINGBLAS_CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(
          tmp.data(), bytes, k_in.data(), k_out.data(), v_in.data(), v_out.data(),
          int64_t(total), int64_t(m), seg_begin.data(), seg_end.data(), s));
      k_scatter_global<S, I><<<unsigned(m), 256, 0, s>>>(a, grows, seg_begin.data(),
                                                         k_out.data(), v_out.data());
      RINGBLAS_CHECK_LAUNCH("k_scatter_global", s, ctx.debug_sync);
    }
  }
  fork.join();
  phase_log::mark("pass: numeric launched", s);
  out.T = Matrix::from_buffers(a.A.nrows, a.B.ncols, type_of_v<T>, index_type_of<I>::value, p.nnz,
                               p.row_ptr.release(), ci.release(), vals.release());
  return out;
}

/// Rows [r0, r1) of a as their own operand (row pointers offset, positional row ids kept).
template <class S, class I>
numeric_args<S, I> row_slice(const numeric_args<S, I>& a, std::int64_t r0, std::int64_t r1) {
  numeric_args<S, I> c = a;
  c.A.nrows = r1 - r0;
  c.A.rp = a.A.rp + r0;
  if (a.M.present) c.M.rp = a.M.rp + r0;
  c.row_base = a.row_base + r0;
  return c;
}

/// Chunked run when C or the workspace exceeds the budget: rows of A split greedily so that each
/// chunk's bound on C (sum of min(products, ncols) x entry bytes) stays within half the budget,
/// each chunk two-phase on the device and copied to the host (chunks that still do not fit are
/// halved); the chunks are concatenated on the host and the result moved back to the device when
/// it fits the budget, else left on the host.
template <class S, class I>
Matrix run_chunked(const numeric_args<S, I>& a, std::vector<std::int64_t> bound,
                   std::size_t budget_bytes, const Context& ctx, run_info& info) {
  using T = typename S::value_type;
  const std::size_t entry_bytes = sizeof(I) + sizeof(T), row_bytes = pass_row_bytes<I>();
  const std::int64_t n = a.A.nrows;
  std::vector<std::pair<std::int64_t, std::int64_t>> todo;  // reverse order: back() is next
  {
    std::vector<std::pair<std::int64_t, std::int64_t>> chunks;
    std::int64_t r0 = 0, used = 0;
    for (std::int64_t r = 0; r < n; ++r) {
      const std::int64_t cost =
          bound[std::size_t(r)] * std::int64_t(entry_bytes) + std::int64_t(row_bytes);
      if (r > r0 && used + cost > std::int64_t(budget_bytes / 2)) {
        chunks.push_back({r0, r});
        r0 = r;
        used = 0;
      }
      used += cost;
    }
    if (n > 0) chunks.push_back({r0, n});
    todo.assign(chunks.rbegin(), chunks.rend());
  }
  std::vector<std::pair<std::int64_t, Matrix>> parts;  // (first row, chunk on the host)
  std::int64_t nnz = 0;
  info.products = 0;
  info.nnz = 0;
  while (!todo.empty()) {
    const auto [r0, r1] = todo.back();
    todo.pop_back();
    pass_result part = run_pass<S, I>(row_slice(a, r0, r1), budget_bytes, ctx, info);
    if (part.need_wide) {
      info.need_wide = true;
      return Matrix();
    }
    if (part.too_large) {  // r1 - r0 > 1 here: a single row never asks to be split
      const std::int64_t mid = r0 + (r1 - r0) / 2;
      todo.push_back({mid, r1});
      todo.push_back({r0, mid});
      continue;
    }
    nnz += part.T.nnz();
    if (sizeof(I) == 4 && nnz >= (std::int64_t(1) << 31) - 1) {
      info.need_wide = true;
      return Matrix();
    }
    parts.push_back({r0, part.T.to(Location::host, ctx)});
  }
  // Concatenate: chunks come in row order; row pointers shift by the entries before them.
  Buffer rp(std::size_t(n + 1) * sizeof(I), Location::host), ci(std::size_t(nnz) * sizeof(I), Location::host),
      vals(std::size_t(nnz) * sizeof(T), Location::host);
  I* orp = rp.as<I>();
  orp[0] = I(0);
  std::int64_t at = 0;
  for (const auto& [r0, h] : parts) {
    const I* hrp = h.row_ptr().template as<I>();
    for (std::int64_t r = 1; r <= h.nrows(); ++r) orp[r0 + r] = I(at + hrp[r]);
    if (h.nnz()) {
      std::memcpy(ci.as<I>() + at, h.col_idx().data(), std::size_t(h.nnz()) * sizeof(I));
      std::memcpy(vals.as<T>() + at, h.values().data(), std::size_t(h.nnz()) * sizeof(T));
    }
    at += h.nnz();
  }
  const std::int64_t done_chunks = std::int64_t(parts.size());
  Matrix t = Matrix::from_buffers(n, a.B.ncols, type_of_v<T>, index_type_of<I>::value, nnz,
                                  std::move(rp), std::move(ci), std::move(vals));
  const std::size_t bytes = std::size_t(nnz) * entry_bytes + std::size_t(n + 1) * sizeof(I);
  info.note += std::string(info.note.empty() ? "" : "; ") + "C's bound exceeds the budget of " +
               std::to_string(budget_bytes) + " bytes: " + std::to_string(done_chunks) +
               " row chunks, concatenated on the host";
  if (bytes <= budget_bytes) return t.to(Location::device, ctx);
  info.note += ", C (" + std::to_string(bytes) + " bytes) left on the host";
  return t;
}

}  // namespace ringblas::cuda::spgemm_hash

#include "backend/cuda/spgemm_hash/single_term.cuh"

namespace ringblas::cuda::spgemm_hash {

/// The pipeline for T = A ⊕.⊗ B: the single-term path when A allows it, else one pass over all
/// rows, or row chunks when it does not fit.
template <class S, class I>
Matrix run_typed(const Matrix& A, const Matrix& B, const DeviceMask& mask,
                 std::size_t budget_bytes, const Context& ctx, run_info& info) {
  numeric_args<S, I> a;
  a.A = csr_ref<I>{A.nrows(), A.ncols(), A.row_ptr().as<I>(), A.col_idx().as<I>(),
                   A.values().data()};
  a.B = csr_ref<I>{B.nrows(), B.ncols(), B.row_ptr().as<I>(), B.col_idx().as<I>(),
                   B.values().data()};
  if (mask.present)
    a.M = mask_ref<I>{mask.row_ptr.as<I>(), mask.col_idx.as<I>(), true, mask.complement};
  // At most one entry per row of A (nnz(A) <= rows is necessary; the pass checks the rest).
  else if (A.nnz() <= A.nrows() && A.nrows() > 0)
    if (std::optional<Matrix> T = run_single_term<S, I>(a, ctx, info)) return std::move(*T);
  pass_result whole = run_pass<S, I>(a, budget_bytes, ctx, info);
  if (whole.need_wide) {
    info.need_wide = true;
    return Matrix();
  }
  if (!whole.too_large) return std::move(whole.T);
  return run_chunked<S, I>(a, std::move(whole.row_bound), whole.budget, ctx, info);
}

}  // namespace ringblas::cuda::spgemm_hash

/// Instantiates the spgemm_hash pipeline for the semiring functor SR, both index types (the
/// RINGBLAS_UNIT of spgemm_hash in backend/cuda/manifest.def).
#define RINGBLAS_INSTANTIATE_SPGEMM_HASH(SR)                                                    \
  template ringblas::Matrix ringblas::cuda::spgemm_hash::run_typed<SR, std::int32_t>(       \
      const ::ringblas::Matrix&, const ::ringblas::Matrix&, const ::ringblas::cuda::DeviceMask&, \
      std::size_t, const ::ringblas::Context&, ::ringblas::cuda::spgemm_hash::run_info&);       \
  template ringblas::Matrix ringblas::cuda::spgemm_hash::run_typed<SR, std::int64_t>(       \
      const ::ringblas::Matrix&, const ::ringblas::Matrix&, const ::ringblas::cuda::DeviceMask&, \
      std::size_t, const ::ringblas::Context&, ::ringblas::cuda::spgemm_hash::run_info&);
