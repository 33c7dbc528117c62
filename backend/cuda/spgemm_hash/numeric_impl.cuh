// spgemm_hash numeric phase (Nagasaka et al., ICPP'17, steps 6-7) and the whole pipeline for one
// semiring S and index type I; included only by the instantiation units (inst/*.cu).
// Kernels: k_numeric_pwarp (4 threads per row, 32-slot key+value tables, 64 rows per block,
// <= 24 KiB shared; rows ranked by counting smaller keys), k_numeric_block (one block per row,
// 512..16384 slots of key+value, <= 192 KiB shared; entries compacted by a block scan, then a
// bitonic sort in shared memory), k_numeric_global (persistent blocks with global-memory tables;
// entries compacted unsorted, then cub::DeviceSegmentedSort and a copy into C). When a table has
// a slot per column of C (direct addressing, spECK's dense accumulator) there is no probing and
// the order-preserving compaction already yields a sorted row: no sort at all.
// Output invariant: every row of C sorted by column with no duplicates, nnz exactly as counted.
// Values are combined with S's add monoid through atomics (native where the type has one, CAS
// otherwise; for `any` the thread that inserts a column stores its value and nobody else writes).
#pragma once
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/spgemm_hash/plan.cuh"
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
};

/// The product A(row, k) ⊗ B(k, j), loading only the values the multiply reads.
template <class S, class I>
__device__ __forceinline__ typename S::value_type product(const numeric_args<S, I>& a,
                                                          std::int64_t row, I p, I k, I q, I j) {
  using T = typename S::value_type;
  T x{}, y{};
  if constexpr (S::reads_a) x = static_cast<const T*>(a.A.v)[p];
  if constexpr (S::reads_b) y = static_cast<const T*>(a.B.v)[q];
  return S::mul(x, y, row, k, k, j);
}

/// Adds value v at column j to the table.
template <class S>
__device__ __forceinline__ void accumulate(int* keys, acc_t<typename S::value_type>* vals,
                                           unsigned mask, int j, typename S::value_type v,
                                           bool direct = false) {
  using T = typename S::value_type;
  bool ins;
  const unsigned slot = table_insert(keys, mask, j, ins, direct);
  if constexpr (S::is_any) {
    if (ins) vals[slot] = acc_t<T>(v);
  } else {
    atomic_combine<typename S::add_monoid, T>(&vals[slot], v);
  }
}

template <class S, class I>
__global__ void __launch_bounds__(policy::pwarp_block)
    k_numeric_pwarp(numeric_args<S, I> a, const I* rows, std::int64_t n) {
  using P = policy;
  using T = typename S::value_type;
  using A = acc_t<T>;
  __shared__ int keys[P::pwarp_rows][P::pwarp_table];
  __shared__ A vals[P::pwarp_rows][P::pwarp_table];
  const int local_row = threadIdx.x / P::pwarp_group, t = threadIdx.x % P::pwarp_group;
  const std::int64_t r = std::int64_t(blockIdx.x) * P::pwarp_rows + local_row;
  int* tk = keys[local_row];
  A* tv = vals[local_row];
  for (int s = t; s < P::pwarp_table; s += P::pwarp_group) {
    tk[s] = empty_key;
    tv[s] = A(S::identity());
  }
  __syncwarp();
  const std::int64_t row = r < n ? std::int64_t(rows[r]) : 0;
  if (r < n) {
    for (I p = a.A.rp[row] + t; p < a.A.rp[row + 1]; p += P::pwarp_group) {
      const I k = a.A.ci[p];
      for (I q = a.B.rp[k]; q < a.B.rp[k + 1]; ++q) {
        const I j = a.B.ci[q];
        if (a.M.present && !mask_admits(a.M, row, j)) continue;
        accumulate<S>(tk, tv, P::pwarp_table - 1, int(j), product(a, row, p, k, q, j));
      }
    }
  }
  __syncwarp();
  if (r < n) {
    const I base = a.c_rp[row], len = a.c_rp[row + 1] - base;
    for (int s = t; s < P::pwarp_table; s += P::pwarp_group) {
      const int key = tk[s];
      if (key == empty_key) continue;
      int rank = 0;
      for (int x = 0; x < P::pwarp_table; ++x) {
        const int other = tk[x];
        rank += (other != empty_key) & (other < key);
      }
      if (rank < len) {
        a.c_ci[base + rank] = I(key);
        a.c_v[base + rank] = T(tv[s]);
      }
    }
  }
}

/// Moves the table's entries to its front in slot order (each thread holds its contiguous slots
/// in registers; a block scan gives its output offset); returns their number. Slot order is
/// column order for a direct table.
template <class A>
__device__ __forceinline__ int compact_in_place(int* keys, A* vals, unsigned size, int* warp_sums) {
  constexpr int max_per_thread = 16;
  const unsigned per = (size + blockDim.x - 1) / blockDim.x;
  int rk[max_per_thread];
  A rv[max_per_thread];
  int mine = 0;
#pragma unroll
  for (int e = 0; e < max_per_thread; ++e) {
    rk[e] = empty_key;
    const unsigned s = threadIdx.x * per + unsigned(e);
    if (unsigned(e) < per && s < size) {
      rk[e] = keys[s];
      rv[e] = vals[s];
      mine += rk[e] != empty_key;
    }
  }
  int total;
  int o = block_exclusive_scan(mine, warp_sums, total);
#pragma unroll
  for (int e = 0; e < max_per_thread; ++e) {
    if (rk[e] != empty_key) {
      keys[o] = rk[e];
      vals[o] = rv[e];
      ++o;
    }
  }
  __syncthreads();
  return total;
}

/// One output row by the whole block with a shared-memory table of `size` slots (at most 16 per
/// thread): hash (or direct) accumulation, compaction, bitonic sort unless direct, write-out.
template <class S, class I>
__device__ __forceinline__ void numeric_row_shared(const numeric_args<S, I>& a, std::int64_t row,
                                                   std::int64_t products, int* keys,
                                                   acc_t<typename S::value_type>* vals,
                                                   unsigned size, bool direct, int* warp_sums) {
  using T = typename S::value_type;
  using A = acc_t<T>;
  for (unsigned s = threadIdx.x; s < size; s += blockDim.x) {
    keys[s] = empty_key;
    vals[s] = A(S::identity());
  }
  __syncthreads();
  const int g = lanes_per_entry(products, std::int64_t(a.A.rp[row + 1] - a.A.rp[row]));
  for_each_product(a.A, a.B, a.M, row, threadIdx.x, blockDim.x, g, [&](I p, I k, I q, I j) {
    accumulate<S>(keys, vals, size - 1, int(j), product(a, row, p, k, q, j), direct);
  });
  __syncthreads();
  const int total = compact_in_place(keys, vals, size, warp_sums);
  if (!direct) {
    const int n2 = int(next_pow2(total));
    for (int s = total + threadIdx.x; s < n2; s += blockDim.x) keys[s] = INT_MAX;
    __syncthreads();
    block_bitonic_sort(keys, vals, n2);
  }
  const I base = a.c_rp[row];
  const I len = std::min<I>(I(total), a.c_rp[row + 1] - base);
  for (I e = threadIdx.x; e < len; e += blockDim.x) {
    a.c_ci[base + e] = I(keys[e]);
    a.c_v[base + e] = T(vals[e]);
  }
}

template <class S, class I>
__global__ void k_numeric_block(numeric_args<S, I> a, const I* rows, const std::int64_t* products,
                                unsigned table_size) {
  using A = acc_t<typename S::value_type>;
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ int warp_sums[32];
  A* vals = reinterpret_cast<A*>(smem);
  int* keys = reinterpret_cast<int*>(vals + table_size);
  const std::int64_t row = rows[blockIdx.x];
  const bool direct = a.B.ncols <= std::int64_t(table_size);
  numeric_row_shared(a, row, products[row], keys, vals,
                     direct ? unsigned(a.B.ncols) : table_size, direct, warp_sums);
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

/// The pipeline: plan (analysis + symbolic), C allocated exactly, numeric phase per row group.
template <class S, class I>
Matrix run_typed(const Matrix& A, const Matrix& B, const DeviceMask& mask,
                 std::size_t budget_bytes, const Context& ctx, run_info& info) {
  using P = policy;
  using T = typename S::value_type;
  using Acc = acc_t<T>;
  cudaStream_t s = stream_of(ctx);
  numeric_args<S, I> a;
  a.A = csr_ref<I>{A.nrows(), A.ncols(), A.row_ptr().as<I>(), A.col_idx().as<I>(),
                   A.values().data()};
  a.B = csr_ref<I>{B.nrows(), B.ncols(), B.row_ptr().as<I>(), B.col_idx().as<I>(),
                   B.values().data()};
  if (mask.present)
    a.M = mask_ref<I>{mask.row_ptr.as<I>(), mask.col_idx.as<I>(), true, mask.complement};
  plan<I> p = make_plan<I>(a.A, a.B, a.M, budget_bytes, ctx);
  info.products = p.products;
  if (p.need_wide) {
    info.need_wide = true;
    return Matrix();
  }
  info.nnz = p.nnz;
  info.symbolic_groups = p.symbolic_groups;
  info.numeric_groups = p.numeric_groups;
  info.note = p.symbolic_note;
  device_array<I> ci(std::size_t(p.nnz), ctx);
  device_array<T> vals(std::size_t(p.nnz), ctx);
  a.c_rp = p.row_ptr.data();
  a.c_ci = ci.data();
  a.c_v = vals.data();
  const bin_table& nb = p.numeric_bins;
  const I* rows = p.rows.data();
  if (auto m = nb.count[P::bin_pwarp]) {
    k_numeric_pwarp<S, I><<<grid_for(std::size_t(m), P::pwarp_rows), P::pwarp_block, 0, s>>>(
        a, rows + nb.offset[P::bin_pwarp], m);
    RINGBLAS_CHECK_LAUNCH("k_numeric_pwarp", s, ctx.debug_sync);
  }
  const std::size_t slot_bytes = sizeof(Acc) + sizeof(int);
  RINGBLAS_CUDA_TRY(cudaFuncSetAttribute(
      k_numeric_block<S, I>, cudaFuncAttributeMaxDynamicSharedMemorySize,
      int(std::size_t(P::numeric_table(P::num_block_bins - 1)) * slot_bytes)));
  for (int b = 0; b < P::num_block_bins; ++b) {
    const int bin = P::bin_block0 + b;
    if (auto m = nb.count[bin]) {
      const unsigned table = unsigned(P::numeric_table(b));
      k_numeric_block<S, I><<<unsigned(m), P::block_threads(b), table * slot_bytes, s>>>(
          a, rows + nb.offset[bin], p.row_products.data(), table);
      RINGBLAS_CHECK_LAUNCH("k_numeric_block", s, ctx.debug_sync);
    }
  }
  if (auto m = nb.count[P::bin_global]) {
    std::int64_t max_slots = next_pow2(2 * p.global_max_nnz);
    const bool direct =
        B.ncols() <= std::max<std::int64_t>(max_slots, P::direct_global_slots);
    if (direct) max_slots = B.ncols();
    const unsigned g = global_blocks(m, max_slots, slot_bytes, budget_bytes, ctx);
    if (g == 0)
      throw OutOfMemory("spgemm_hash: a numeric hash table of " +
                            std::to_string(max_slots * slot_bytes) +
                            " bytes does not fit the workspace budget of " +
                            std::to_string(budget_bytes) + " bytes",
                        std::size_t(max_slots) * slot_bytes);
    if (g < m) {
      if (!info.note.empty()) info.note += "; ";
      info.note += "numeric: " + std::to_string(m) + " global rows in chunks of " +
                   std::to_string(g);
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
        a, grows, m, p.row_products.data(), tkeys.data(), tvals.data(), max_slots, direct,
        cursor.data(), seg_begin.data(), seg_end.data(), k_in.data(), v_in.data());
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
  return Matrix::from_buffers(A.nrows(), B.ncols(), type_of_v<T>, index_type_of<I>::value, p.nnz,
                              p.row_ptr.release(), ci.release(), vals.release());
}

}  // namespace ringblas::cuda::spgemm_hash
