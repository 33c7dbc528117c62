// Thin kernels of the reduce family. Thread mapping: one thread per output position
// (identity fill), a group of W lanes per row (policy::row_subwarp, or a warp for long rows: each
// lane folds a strided part of the row, then cub::WarpReduce; CUB's temporary storage for the
// group reduction and the block's empty-row count are the only shared memory; k_rows_vec the same
// with 16-byte loads and a grid-stride loop over rows), or one thread per A entry in a
// grid-stride loop (column atomics). Column atomics use backend/cuda/common/monoid_atomics.cuh, so
// float sums come in an unspecified order and `any` keeps one of the offered values.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/warp/warp_reduce.cuh>

#include "backend/cuda/common/monoid_atomics.cuh"
#include "backend/cuda/reduce/policy.hpp"
#include "backend/cuda/reduce/row_split.hpp"
#include "ringblas/codes.hpp"
#include "ringblas/types.hpp"

namespace ringblas::cuda::reduction {

template <class T>
__global__ void k_fill(Index n, T value, T* out) {
  const Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

/// Adds the block's `mine` to *total (every thread of the block calls it, after its last row): a
/// shared-memory sum, then one global atomic per block whose sum is not zero, so that a matrix
/// without empty rows makes no atomic at all.
__device__ inline void block_add_count(unsigned long long* total, unsigned mine) {
  __shared__ unsigned sum;
  if (threadIdx.x == 0) sum = 0;
  __syncthreads();
  if (mine) atomicAdd(&sum, mine);
  __syncthreads();
  if (threadIdx.x == 0 && sum) atomicAdd(total, static_cast<unsigned long long>(sum));
}

/// Lane 0's writes for row r = [b, e) folded to x: out[r], present[r] and the tally's index.
/// `any` keeps the row's first value (a fold from the identity would keep the identity), and a
/// row of one entry reduces to that entry, unfolded (GraphBLAS; lor on 5.0 stays 5.0). Returns
/// 1 when the row is empty (for the tally's count).
template <class Monoid, class T, class I>
__device__ __forceinline__ unsigned finish_row(Index r, I b, I e, const T* v, T x, T* out,
                                               unsigned char* present, row_tally tally) {
  const bool single = e - b == 1 || (Monoid::code == MonoidCode::any && e > b);
  out[r] = single ? v[b] : e > b ? x : Monoid::identity();
  present[r] = e > b ? 1 : 0;
  if (tally.index) tally.index[r] = r;
  return e == b ? 1u : 0u;
}

/// out[r] = ⊕ of row r (identity when empty), present[r] = row r non-empty; W lanes per row, a
/// row per group of lanes; the tally's parts where not null.
template <class Monoid, class T, class I, int W, int Block>
__global__ void __launch_bounds__(Block) k_rows_subwarp(Index n, const I* rp, const T* v, T* out,
                                                        unsigned char* present, row_tally tally) {
  using warp_reduce = cub::WarpReduce<T, W>;
  __shared__ typename warp_reduce::TempStorage tmp[Block / W];
  const int group = threadIdx.x / W, lane = threadIdx.x % W;
  const Index r = (Index(blockIdx.x) * Block + threadIdx.x) / W;
  unsigned empty = 0;
  if (r < n) {  // whole sub-warps skip together; every thread stays for block_add_count
    const I b = rp[r], e = rp[r + 1];
    T x = Monoid::identity();
    if constexpr (Monoid::code != MonoidCode::any) {
      // Unrolled so that several loads of the row are in flight before the first fold uses one.
#pragma unroll 4
      for (I p = b + lane; p < e; p += W) x = Monoid{}(x, v[p]);
      x = warp_reduce(tmp[group]).Reduce(x, Monoid{});
    }
    if (lane == 0) empty = finish_row<Monoid>(r, b, e, v, x, out, present, tally);
  }
  if (tally.empty_rows) block_add_count(tally.empty_rows, empty);
}

/// 16 bytes of T: the unit of k_rows_vec's loads (v 16-byte aligned).
template <class T>
struct alignas(16) vec16 {
  static constexpr int n = 16 / int(sizeof(T));
  T x[n];
};

/// k_rows_subwarp's result by another schedule (row_kernel::vec): a grid-stride loop over rows,
/// the next row's bounds loaded before the current row's values, and the aligned middle of each
/// row (row_split.hpp) read as 16-byte vectors, two per lane in flight, the head and tail value
/// by value. Padding folds the identity, as the lanes past a row's end already do in
/// k_rows_subwarp. v must be 16-byte aligned.
template <class Monoid, class T, class I, int W, int Block>
__global__ void __launch_bounds__(Block)
    k_rows_vec(Index n, const I* rp, const T* v, T* out, unsigned char* present, row_tally tally) {
  using warp_reduce = cub::WarpReduce<T, W>;
  using V = vec16<T>;
  __shared__ typename warp_reduce::TempStorage tmp[Block / W];
  const int group = threadIdx.x / W, lane = threadIdx.x % W;
  const Index stride = Index(gridDim.x) * (Block / W);
  const V* vv = reinterpret_cast<const V*>(v);
  auto fold = [](T x, const V& a) {
#pragma unroll
    for (int k = 0; k < V::n; ++k) x = Monoid{}(x, a.x[k]);
    return x;
  };
  unsigned empty = 0;
  Index r = Index(blockIdx.x) * (Block / W) + group;
  I b = r < n ? rp[r] : I(0), e = r < n ? rp[r + 1] : I(0);
  for (; r < n; r += stride) {  // r is uniform in the group: its lanes loop together
    const Index next = r + stride;
    const I nb = next < n ? rp[next] : I(0), ne = next < n ? rp[next + 1] : I(0);
    T x = Monoid::identity();
    if constexpr (Monoid::code != MonoidCode::any) {
      T edge[2 * edge_loads<W, V::n>];  // folded after the middle: their loads overlap its own
      visit_lane_share<W, V::n>(
          b, e, lane, [&](int k, I p, bool in) { edge[k] = in ? v[p] : Monoid::identity(); },
          [&](I q, bool both) {
            V a = vv[q], c;
            if (both)
              c = vv[q + W];
            else
#pragma unroll
              for (int k = 0; k < V::n; ++k) c.x[k] = Monoid::identity();
            x = fold(fold(x, a), c);
          });
#pragma unroll
      for (T y : edge) x = Monoid{}(x, y);
      x = warp_reduce(tmp[group]).Reduce(x, Monoid{});
    }
    if (lane == 0) empty += finish_row<Monoid>(r, b, e, v, x, out, present, tally);
    b = nb, e = ne;
  }
  if (tally.empty_rows) block_add_count(tally.empty_rows, empty);
}

/// t[ci[p]] = t[ci[p]] ⊕ v[p] for every entry p, and present[ci[p]] = 1.
template <class Monoid, class T, class I>
__global__ void k_cols_atomic(std::int64_t nnz, const I* ci, const T* v, T* t,
                              unsigned char* present) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
#pragma unroll 4
  for (std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < nnz; p += stride) {
    const I j = ci[p];
    detail::atomic_combine<Monoid>(&t[j], v[p]);
    // Read before writing: a column's later entries find the flag set and store nothing (one
    // byte store per column instead of one per entry; concurrent first stores all write 1).
    if (!present[j]) present[j] = 1;
  }
}

/// One pass of column_method::ranges: for each row (W lanes), its entries from cur[r] with columns
/// below hi, as k_cols_atomic does them; cur[r] moves past them. Columns are sorted within a row,
/// so the lanes whose entry is below hi are a prefix of the group: a ballot counts them, and a
/// full group reads on.
template <class Monoid, class T, class I, int W, int Block>
__global__ void __launch_bounds__(Block)
    k_cols_ranges(Index nrows, const I* rp, I* cur, const I* ci, const T* v, Index hi, T* t,
                  unsigned char* present) {
  const Index r = (Index(blockIdx.x) * Block + threadIdx.x) / W;
  if (r >= nrows) return;  // whole groups leave together
  const int lane = threadIdx.x % W;
  const unsigned group_mask =
      W == 32 ? 0xffffffffu : ((1u << W) - 1u) << (threadIdx.x % 32 / W * W);
  const I e = rp[r + 1];
  I p = cur[r];
  while (p < e) {  // p, e and taken are uniform in the group: its lanes loop together
    const I q = p + I(lane);
    const I j = q < e ? ci[q] : I(0);
    const bool in = q < e && Index(j) < hi;
    if (in) {
      detail::atomic_combine<Monoid>(&t[j], v[q]);
      if (!present[j]) present[j] = 1;  // as k_cols_atomic: one byte store per column
    }
    const int taken = __popc(__ballot_sync(group_mask, in));
    p += I(taken);
    if (taken < W) break;
  }
  if (lane == 0) cur[r] = p;
}

}  // namespace ringblas::cuda::reduction
