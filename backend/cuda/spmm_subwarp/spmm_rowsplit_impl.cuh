// spmm_rowsplit kernel and launcher (included only by the instantiation units inst_rowsplit_*.cu).
// C = epilogue(A ⊕.⊗ B), A in CSR, for any row-length distribution (power-law graphs included),
// in one launch with no preprocessing, no atomics and no second pass:
// - Thread mapping: blocks of `threads` (64 to SpmmPolicy::block_threads, a launch argument)
//   cut into sub-warps of 2^log_sw lanes (rowsplit_shape: smallest power of two covering n_B in
//   vectors of V columns, at most 32, narrower where B's slice would not fit L2; wider B in column
//   chunks, grid y). Block x owns threads / 2^log_sw consecutive rows, one per sub-warp.
// - Phase 1, short rows (at most `long_row` nonzeros): the sub-warp reduces its row alone.
//   Phase 2, long rows (the few heavy rows of a power-law graph): every sub-warp of the block
//   takes one contiguous piece of each long row of the block in turn; the pieces' partial rows
//   meet in shared memory and sub-warp 0 combines them in piece order. A long row therefore costs
//   its block length / (sub-warps per block) instead of length, and no row needs atomics.
// - Coalesced row caching (Huang et al., GE-SpMM, SC'20; Yang, Buluç, Owens, "Design principles
//   for sparse matrix multiplication on the GPU", Euro-Par'18): the sub-warp loads 2^log_sw
//   column indices and values of A with one coalesced load (one per lane), broadcasts them by
//   warp shuffles, and issues the B-row loads of the whole batch back to back (unrolled,
//   V columns per 16-byte vector load); the next batch's indices are loaded before the current
//   batch is consumed, so a row costs about one memory latency per batch instead of two per
//   nonzero.
// Shared memory: block_threads x 16 bytes of partial rows, plus the block's long-row list
// (about 5.4 KB, sized for the largest block).
// Output: every element of C written exactly once with its epilogue (the identity where a row
// has no entry); `stream_c` marks the stores evict-first (a C larger than L2). A reduction starts with its first product (what the any monoid needs).
#pragma once
#include "backend/cuda/common/check.cuh"
#include "backend/cuda/spmm_subwarp/spmm_agent.cuh"

namespace ringblas::cuda::detail {

/// __shfl_sync for every value type of the kernels (bool travels as int).
template <class T>
__device__ __forceinline__ T shfl_value(unsigned mask, T x, int src, int width) {
  if constexpr (std::is_same_v<T, bool>) return __shfl_sync(mask, int(x), src, width) != 0;
  else return __shfl_sync(mask, x, src, width);
}

template <class S, int V, int Unroll> struct RowSplitAgent {
  using T = typename S::value_type;

  /// acc (+)= A(row, begin .. end-1) (x) B(.., col0 ..): the calling sub-warp's lanes (`mask`,
  /// `sw` of them, this one `lane`) all call it with the same range; `started` says whether acc
  /// holds a value yet. Every lane loads and computes (lanes past n_B use a valid col0 and do not
  /// store), so that the shuffles see the whole sub-warp.
  __device__ __forceinline__ static void reduce(T (&acc)[V], bool& started, int begin, int end,
                                                int row, int col0, int lane, int sw, unsigned mask,
                                                const std::int32_t* __restrict__ ci,
                                                const T* __restrict__ av, const DenseView<T>& d) {
    if (begin >= end) return;
    if constexpr (S::is_any) {  // any product will do: the first
      T a{};
      if constexpr (S::reads_a) a = av[begin];
      if (!started) RowAgent<S, V>::product(acc, true, a, row, ci[begin], col0, d);
      started = true;
      return;
    }
    int p = begin;
    int my_k = p + lane < end ? ci[p + lane] : 0;
    T my_a{};
    if constexpr (S::reads_a) my_a = p + lane < end ? av[p + lane] : T{};
    while (p < end) {
      const int count = min(sw, end - p);
      const int next = p + sw;
      const int nk = next + lane < end ? ci[next + lane] : 0;
      T na{};
      if constexpr (S::reads_a) na = next + lane < end ? av[next + lane] : T{};
#pragma unroll(Unroll)
      for (int j = 0; j < count; ++j) {
        const int k = __shfl_sync(mask, my_k, j, sw);
        T a{};
        if constexpr (S::reads_a) a = shfl_value(mask, my_a, j, sw);
        RowAgent<S, V>::product(acc, !started, a, row, k, col0, d);
        started = true;
      }
      my_k = nk;
      if constexpr (S::reads_a) my_a = na;
      p = next;
    }
  }
};

/// MinBlocks (registers) and Unroll (B-row loads in flight per thread) are the tuning knobs that
/// change code; the library launches SpmmPolicy's, bench_spmm instantiates others to measure them.
template <class S, int V, int MinBlocks, int Unroll>
__global__ void __launch_bounds__(SpmmPolicy::block_threads, MinBlocks)
    spmm_rowsplit_kernel(SpmmProblem p, DenseView<typename S::value_type> d,
                         Epi<typename S::value_type> ep, int log_sw, int chunk_cols, int long_row,
                         bool stream_c) {
  using T = typename S::value_type;
  using Agent = RowSplitAgent<S, V, Unroll>;
  constexpr int kThreads = SpmmPolicy::block_threads;
  static_assert(V * sizeof(T) <= 16, "partials hold 16 bytes per thread");
  __shared__ alignas(16) unsigned char partial_bytes[kThreads * 16];
  __shared__ bool has_part[kThreads];
  __shared__ int long_rows[kThreads];
  __shared__ int n_long;

  const int sw = 1 << log_sw;
  const int tid = static_cast<int>(threadIdx.x);
  const int sub = tid >> log_sw, lane = tid & (sw - 1);
  const int nsub = static_cast<int>(blockDim.x) >> log_sw;
  const unsigned mask = sw == 32 ? 0xffffffffu : ((1u << sw) - 1u) << ((tid & 31) & ~(sw - 1));
  const int row = static_cast<int>(blockIdx.x) * nsub + sub;
  const int col_want = static_cast<int>(blockIdx.y) * chunk_cols + lane * V;
  const bool active = col_want < p.n;
  const int col0 = active ? col_want : 0;  // idle lanes read column 0 and store nothing
  const std::int32_t* __restrict__ rp = p.row_ptr;
  const std::int32_t* __restrict__ ci = p.col_idx;
  const T* __restrict__ av = static_cast<const T*>(p.a_values);

  if (tid == 0) n_long = 0;
  __syncthreads();
  if (row < p.m) {
    const int begin = rp[row], end = rp[row + 1];
    if (end - begin > long_row) {
      if (lane == 0) long_rows[atomicAdd(&n_long, 1)] = row;
    } else {
      T acc[V];
      bool started = false;
      Agent::reduce(acc, started, begin, end, row, col0, lane, sw, mask, ci, av, d);
      if (!started) {
#pragma unroll
        for (int v = 0; v < V; ++v) acc[v] = S::identity();
      }
      if (active) RowAgent<S, V>::flush(acc, true, row, col0, d, ep, stream_c);
    }
  }
  __syncthreads();
  const int longs = n_long;
  T* partial = reinterpret_cast<T*>(partial_bytes);
  for (int i = 0; i < longs; ++i) {
    const int r = long_rows[i];
    const int begin = rp[r], end = rp[r + 1];
    const int per = (end - begin + nsub - 1) / nsub;
    const int my_begin = min(begin + sub * per, end), my_end = min(my_begin + per, end);
    T acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = S::identity();
    bool started = false;
    Agent::reduce(acc, started, my_begin, my_end, r, col0, lane, sw, mask, ci, av, d);
#pragma unroll
    for (int v = 0; v < V; ++v) partial[tid * V + v] = acc[v];
    if (lane == 0) has_part[sub] = started;
    __syncthreads();
    if (sub == 0 && active) {
      T out[V];
      bool got = false;
      for (int s = 0; s < nsub; ++s) {
        if (!has_part[s]) continue;
#pragma unroll
        for (int v = 0; v < V; ++v) {
          const T x = partial[(s * sw + lane) * V + v];
          out[v] = got ? S::add(out[v], x) : x;
        }
        got = true;
      }
      RowAgent<S, V>::flush(out, true, r, col0, d, ep, stream_c);  // a long row has entries
    }
    __syncthreads();
  }
}

template <class S, int MinBlocks = SpmmPolicy::rowsplit_min_blocks, int Unroll = SpmmPolicy::rowsplit_unroll>
void spmm_rowsplit_launch_tuned(const SpmmProblem& p, const SubwarpShape& shape, int long_row,
                                int threads, bool stream_c, void* stream, bool sync) {
  using T = typename S::value_type;
  if (p.m == 0 || p.n == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  if (threads < 32 || threads > SpmmPolicy::block_threads || threads % 32 != 0)
    throw InvalidValue("spmm_rowsplit: block of " + std::to_string(threads) + " threads");
  const int rows_per_block = threads >> shape.log_sw;
  const dim3 grid(static_cast<unsigned>((p.m + rows_per_block - 1) / rows_per_block), shape.chunks);
  const DenseView<T> d{static_cast<const T*>(p.b), p.b_rs, p.b_cs, static_cast<T*>(p.c), p.c_rs, p.c_cs};
  const Epi<T> ep(p.epilogue);
  if constexpr (vec_width<T>() > 1) {
    if (shape.vec > 1) {
      spmm_rowsplit_kernel<S, vec_width<T>(), MinBlocks, Unroll><<<grid, threads, 0, s>>>(
          p, d, ep, shape.log_sw, shape.chunk_cols, long_row, stream_c);
      RINGBLAS_CHECK_LAUNCH("spmm_rowsplit_kernel<vec>", s, sync);
      return;
    }
  }
  spmm_rowsplit_kernel<S, 1, MinBlocks, Unroll><<<grid, threads, 0, s>>>(
      p, d, ep, shape.log_sw, shape.chunk_cols, long_row, stream_c);
  RINGBLAS_CHECK_LAUNCH("spmm_rowsplit_kernel", s, sync);
}

template <class S>
void spmm_rowsplit_launch(const SpmmProblem& p, const SubwarpShape& shape, int long_row, int threads,
                          bool stream_c, void* stream, bool sync) {
  spmm_rowsplit_launch_tuned<S>(p, shape, long_row, threads, stream_c, stream, sync);
}

}  // namespace ringblas::cuda::detail

#define RINGBLAS_INSTANTIATE_SPMM_ROWSPLIT(SR)                                                 \
  template void ringblas::cuda::detail::spmm_rowsplit_launch<SR>(                              \
      const ringblas::cuda::detail::SpmmProblem&, const ringblas::cuda::detail::SubwarpShape&, \
      int, int, bool, void*, bool);
