// spmm_subwarp's nnz-split kernel and launcher (included by spmm_subwarp_impl.cuh, so only by the
// generated instantiation units and the benchmark): C = epilogue(A ⊕.⊗ B), A in CSR, for skewed
// row lengths (power-law graphs), the load balance of merge-based SpMM (Merrill and Garland,
// SC'16; Yang, Buluç, Owens, Euro-Par'18) without its preprocessing:
// - Thread mapping: sub-warps of 2^log_sw lanes (subwarp_shape); sub-warp g owns nonzeros
//   [g L, (g + 1) L) (L from nnzsplit_run_length: as long as still fills the GPU a few times);
//   each lane holds NV vectors of V columns, lane x V + j x 2^log_sw x V (nnzsplit_shape), so
//   n_B = 256 in fp32 is one pass over A (two 16-byte loads per lane and nonzero, each a
//   coalesced 512-byte row slice) instead of two column chunks that read A twice.
// - The first row of a run comes from a (2^log_sw + 1)-ary search by the sub-warp's lanes (about
//   log_33(m) steps instead of log_2(m) dependent loads).
// - A's column indices and values are staged in shared memory a batch at a time (coalesced, one
//   per lane, the next batch's loads issued before the current batch is consumed), then each
//   lane loads the B rows of `Unroll` nonzeros back to back before it combines them, whatever
//   rows they belong to: several B loads in flight per thread even for rows of a few nonzeros.
// - Rows that lie inside one run are stored with their epilogue (evict-first when C is larger
//   than L2). A row that crosses a run boundary is combined into C with the monoid's atomic
//   after nnzsplit_rows_kernel set it to the identity; its epilogue runs in a last pass. Empty rows
//   get epilogue(identity) from the first pass.
// Shared memory (dynamic): per block, 256 (512 for sub-warps under 8 lanes) column indices and
// values.
// A reduction starts with its first product (not the identity), which is what the any monoid
// needs; Lean starts plus sums from -0 instead (RowAgent::neutral_start: the same sums).
#pragma once
#include <type_traits>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/dependent_launch.cuh"
#include "backend/cuda/spmm_subwarp/spmm_agent.cuh"

namespace ringblas::cuda::detail {

/// Largest r in [0, m) with rp[r] <= e, for 0 <= e < rp[m]: every lane of the sub-warp (`sw`
/// lanes, this one `lane`, `mask` their bits in the warp, `shift` the first one) probes one of
/// sw evenly spaced rows per step; the probes' outcome is monotone in the lane, so its count
/// narrows the range to one (sw + 1)-th. All lanes of the sub-warp call it with the same e.
__device__ __forceinline__ int subwarp_row_of_entry(const std::int32_t* __restrict__ rp, int m,
                                                    int e, int lane, int sw, unsigned mask,
                                                    int shift) {
  int lo = 0, hi = m;  // rp[lo] <= e; the answer is in [lo, hi)
  while (hi - lo > 1) {
    const long long span = hi - lo;
    const int pos = lo + static_cast<int>((lane + 1) * span / (sw + 1));
    const bool le = rp[pos] <= e;  // pos in [lo, hi): true for a prefix of the lanes
    const unsigned own = sw == 32 ? 0xffffffffu : ((1u << sw) - 1u);
    const int c = __popc((__ballot_sync(mask, le) >> shift) & own);
    const int new_lo = c > 0 ? lo + static_cast<int>(c * span / (sw + 1)) : lo;
    hi = c < sw ? lo + static_cast<int>((c + 1) * span / (sw + 1)) : hi;
    lo = new_lo;
  }
  return lo;
}

/// Staged entries per lane: two below 8 lanes (a batch of 8 nonzeros for n_B = 16 in fp32),
/// else one (a compile-time bound keeps the prefetched indices in registers).
constexpr int kNnzsplitMaxReps = 2;
__host__ __device__ constexpr int nnzsplit_reps(int log_sw) { return log_sw < 3 ? 2 : 1; }

/// The passes around the nnz-split kernel, a warp per 32 rows and 32 vectors of V columns
/// (grid y: column chunks; one coalesced look at the rows' pointers, then the warp writes its
/// columns of each row that needs it, a 16-byte vector per lane when V > 1): before the kernel
/// (`finish` false) empty rows = epilogue(identity) and rows crossing a run boundary =
/// identity; after it (`finish` true) the epilogue on the crossing rows. `run_rows` (before
/// only, or nullptr): run g's first row, for each run starting in one of these rows
/// (NnzsplitOptions::run_rows).
template <class T, int V>
__global__ void nnzsplit_rows_kernel(SpmmProblem p, DenseView<T> d, Epi<T> ep, T identity, int L,
                                     bool finish, std::int32_t* run_rows) {
  allow_dependent_launch();  // the nnz-split kernel may start its searches (it waits before C)
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const long long row0 = (t >> 5) << 5;
  if (row0 >= p.m) return;  // whole warps leave together
  const int row = static_cast<int>(row0) + lane;
  bool empty = false, crossing = false;
  if (row < p.m) {
    const int b = p.row_ptr[row], e = p.row_ptr[row + 1];
    empty = b == e;
    crossing = !empty && b / L != (e - 1) / L;
    // Runs g with g L in [b, e) start in this row (one column chunk writes them). Unsigned:
    // b + L - 1 and g L stay below nnz + L <= 2^32 (32-bit division, not the 64-bit routine).
    if (run_rows && blockIdx.y == 0)
      for (unsigned g = (unsigned(b) + unsigned(L) - 1u) / unsigned(L);
           g * unsigned(L) < unsigned(e); ++g)
        run_rows[g] = row;
  }
  unsigned todo = __ballot_sync(0xffffffffu, finish ? crossing : empty || crossing);
  // Which rows are empty, for the loop below (no reload of their pointers between its stores).
  const unsigned empties = __ballot_sync(0xffffffffu, empty);
  const int col0 = (static_cast<int>(blockIdx.y) * 32 + lane) * V;
  if (col0 >= p.n) return;  // after the ballot: lanes past n_B only looked at rows
  while (todo) {
    const int i = __ffs(todo) - 1;
    todo &= todo - 1;
    const int r = static_cast<int>(row0) + i;
    T* c = d.c + r * d.c_rs + col0 * d.c_cs;
    const bool was_empty = (empties >> i) & 1u;
    if constexpr (V == 1) {
      *c = finish ? ep(*c, col0) : (was_empty ? ep(identity, col0) : identity);
    } else {
      VecOf<T, V> x;
      if (finish) x = *reinterpret_cast<const VecOf<T, V>*>(c);
#pragma unroll
      for (int v = 0; v < V; ++v)
        x.v[v] = finish ? ep(x.v[v], col0 + v) : (was_empty ? ep(identity, col0 + v) : identity);
      *reinterpret_cast<VecOf<T, V>*>(c) = x;
    }
  }
}

template <class S, int V, int NV, int Unroll, int MinBlocks, bool Lean>
__global__ void __launch_bounds__(SpmmPolicy::block_threads, MinBlocks)
    spmm_nnzsplit_kernel(SpmmProblem p, DenseView<typename S::value_type> d,
                         Epi<typename S::value_type> ep, int log_sw, int L, bool stream_c,
                         NnzsplitOptions opt) {
  using T = typename S::value_type;
  using Agent = RowAgent<S, V>;
  constexpr int kThreads = SpmmPolicy::block_threads;
  extern __shared__ __align__(16) unsigned char nnzsplit_smem[];
  const int reps = nnzsplit_reps(log_sw);
  // Staging: values first (alignment of T), then column indices.
  T* s_val = reinterpret_cast<T*>(nnzsplit_smem);
  std::int32_t* s_col = reinterpret_cast<std::int32_t*>(
      nnzsplit_smem + (S::reads_a ? kThreads * reps * sizeof(T) : 0));

  const int tid = static_cast<int>(threadIdx.x);
  const int sw = 1 << log_sw;
  const int lane = tid & (sw - 1);
  const int shift = (tid & 31) - lane;
  const unsigned mask = (sw == 32 ? 0xffffffffu : ((1u << sw) - 1u)) << shift;
  const int batch = sw * reps;
  const int stage0 = (tid >> log_sw) * batch;  // this sub-warp's staging slots
  const long long start =
      ((blockIdx.x * static_cast<long long>(kThreads) + tid) >> log_sw) * static_cast<long long>(L);
  if (start >= p.nnz) return;  // the whole sub-warp leaves together
  const int first = static_cast<int>(start);
  const int end = static_cast<int>(min(start + L, p.nnz));
  const std::int32_t* __restrict__ rp = p.row_ptr;
  const std::int32_t* __restrict__ ci = p.col_idx;
  const T* __restrict__ av = static_cast<const T*>(p.a_values);

  const int chunk_cols = sw * V * NV;
  int col[NV];
  bool on[NV];
#pragma unroll
  for (int j = 0; j < NV; ++j) {
    col[j] = static_cast<int>(blockIdx.y) * chunk_cols + (j * sw + lane) * V;
    on[j] = col[j] < p.n;
    if (!on[j]) col[j] = 0;  // idle vectors neither load nor store
  }

  int r;
  if (opt.run_rows) {
    if (opt.overlap) grid_dependency_wait();  // run_rows comes from the row pass
    r = opt.run_rows[start / L];
  } else {
    r = subwarp_row_of_entry(rp, p.m, first, lane, sw, mask, shift);
  }
  int row_begin = rp[r], row_end = rp[r + 1];
  T acc[NV][V];
  bool started = false;
  // Lean: sums start from the plus monoid's neutral value (RowAgent::neutral_start), so each
  // product is one multiply-add without the first-product select; B's row offset in 32 bits.
  constexpr bool kNeutral = Lean && Agent::neutral_start;
  auto restart = [&]() {
    started = false;
    if constexpr (kNeutral) {
#pragma unroll
      for (int j = 0; j < NV; ++j)
#pragma unroll
        for (int v = 0; v < V; ++v) acc[j][v] = Agent::neutral();
    }
  };
  restart();
  auto flush_row = [&]() {
    const bool whole = row_begin >= first && row_end <= end;
#pragma unroll
    for (int j = 0; j < NV; ++j)
      if (on[j]) Agent::flush(acc[j], whole, r, col[j], d, ep, stream_c);
  };

  std::int32_t nk[kNnzsplitMaxReps];
  T na[kNnzsplitMaxReps];
  auto fetch = [&](int q) {
#pragma unroll
    for (int i = 0; i < kNnzsplitMaxReps; ++i) {
      if (i < reps) {
        const int e = q + i * sw + lane;
        nk[i] = e < end ? ci[e] : 0;
        if constexpr (S::reads_a) na[i] = e < end ? av[e] : T{};
      }
    }
  };
  fetch(first);
  // The row pass must be done before the first store to C (crossing rows set to the identity);
  // everything above only read A.
  if (opt.overlap && !opt.run_rows) grid_dependency_wait();
  for (int q = first; q < end; q += batch) {
#pragma unroll
    for (int i = 0; i < kNnzsplitMaxReps; ++i) {
      if (i < reps) {
        s_col[stage0 + i * sw + lane] = nk[i];
        if constexpr (S::reads_a) s_val[stage0 + i * sw + lane] = na[i];
      }
    }
    __syncwarp(mask);
    if (q + batch < end) fetch(q + batch);
    const int cnt = min(batch, end - q);
    // A round: the B rows of nonzeros q + j0 .. q + j0 + Unroll - 1 (those below cnt; `whole`,
    // a std::bool_constant: all of them, known without a test per nonzero).
    auto load_round = [&](T(&bv)[Unroll][NV][V], int j0, auto whole) {
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        if (decltype(whole)::value || j0 + u < cnt) {
          const int k = s_col[stage0 + j0 + u];
#pragma unroll
          for (int j = 0; j < NV; ++j)
            if (on[j]) Agent::template load_b<Lean>(bv[u][j], k, col[j], d);
        }
      }
    };
    auto combine_round = [&](const T(&bv)[Unroll][NV][V], int j0, auto whole) {
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        if (decltype(whole)::value || j0 + u < cnt) {
          const int pos = q + j0 + u;
          if (pos >= row_end) {  // row r is done (it has entries here: pos > first): store it
            flush_row();
            restart();
            do {
              ++r;
              row_begin = row_end;
              row_end = rp[r + 1];
            } while (pos >= row_end);  // empty rows: stored by the first pass
          }
          const int k = s_col[stage0 + j0 + u];
          T a{};
          if constexpr (S::reads_a) a = s_val[stage0 + j0 + u];
#pragma unroll
          for (int j = 0; j < NV; ++j)
            Agent::template combine<kNeutral>(acc[j], !started, a, bv[u][j], r, k, col[j]);
          started = true;
        }
      }
    };
    for (int j0 = 0; j0 < cnt; j0 += Unroll) {
      T bv[Unroll][NV][V];
      // Lean: whole rounds (every round of a full batch) without a bound test per nonzero.
      if (Lean && j0 + Unroll <= cnt) {
        load_round(bv, j0, std::true_type{});
        combine_round(bv, j0, std::true_type{});
      } else {
        load_round(bv, j0, std::false_type{});
        combine_round(bv, j0, std::false_type{});
      }
    }
    __syncwarp(mask);
  }
  flush_row();  // the run's last row (it has entries in the run)
}

/// MaxNV (vectors per lane at most), Unroll, MinBlocks (registers) and Lean (fewer
/// instructions per nonzero: SpmmPolicy::nnzsplit_lean) are the knobs that change code; the
/// library launches SpmmPolicy's, bench_spmm instantiates others to measure them. `shape` from
/// nnzsplit_shape (shape.nv <= MaxNV), L >= 1; `opt`: NnzsplitOptions (its run_rows holds at
/// least (nnz + L - 1) / L ints).
template <class S, int MaxNV = SpmmPolicy::nnzsplit_max_vectors,
          int Unroll = SpmmPolicy::nnzsplit_unroll, int MinBlocks = SpmmPolicy::nnzsplit_min_blocks,
          bool Lean = SpmmPolicy::nnzsplit_lean>
void spmm_nnzsplit_launch_tuned(const SpmmProblem& p, const SubwarpShape& shape, int L,
                                bool stream_c, void* stream, bool sync,
                                const NnzsplitOptions& opt = {}) {
  using T = typename S::value_type;
  if (p.m == 0 || p.n == 0) return;
  if (L < 1 || shape.nv < 1 || shape.nv > MaxNV || (shape.nv & (shape.nv - 1)) != 0)
    throw InvalidValue("spmm_nnzsplit: run length " + std::to_string(L) + ", " +
                       std::to_string(shape.nv) + " vectors per lane");
  auto s = static_cast<cudaStream_t>(stream);
  const auto d = dense_view<S>(p);
  const Epi<T> ep(p.epilogue);
  // The row passes: 32 vectors of the kernel's width per warp, as many column chunks as that takes.
  const dim3 rows_grid(grid_for((static_cast<long long>(p.m) + 31) / 32 * 32),
                       static_cast<unsigned>((p.n + 32 * shape.vec - 1) / (32 * shape.vec)));
  auto rows_pass = [&](bool finish) {
    std::int32_t* run_rows = finish || p.nnz == 0 ? nullptr : opt.run_rows;
    bool done = false;
    if constexpr (vec_width<T>() > 1) {
      if (shape.vec > 1) {
        nnzsplit_rows_kernel<T, vec_width<T>()><<<rows_grid, SpmmPolicy::block_threads, 0, s>>>(
            p, d, ep, S::identity(), L, finish, run_rows);
        done = true;
      }
    }
    if (!done)
      nnzsplit_rows_kernel<T, 1><<<rows_grid, SpmmPolicy::block_threads, 0, s>>>(
          p, d, ep, S::identity(), L, finish, run_rows);
    RINGBLAS_CHECK_LAUNCH("nnzsplit_rows_kernel", s, sync);
  };
  rows_pass(false);
  if (p.nnz > 0) {
    const long long groups = (p.nnz + L - 1) / L;
    const dim3 grid(grid_for(groups << shape.log_sw), shape.chunks);
    const std::size_t smem = std::size_t(SpmmPolicy::block_threads) * nnzsplit_reps(shape.log_sw) *
                             (sizeof(std::int32_t) + (S::reads_a ? sizeof(T) : 0));
    auto go = [&](auto kernel) {
      launch_maybe_dependent(opt.overlap, kernel, grid, dim3(SpmmPolicy::block_threads), smem, s, p,
                             d, ep, shape.log_sw, L, stream_c, opt);
    };
    bool launched = false;
    if constexpr (vec_width<T>() > 1) {
      if (shape.vec > 1) {
        constexpr int W = vec_width<T>();
        if (shape.nv == 1) go(spmm_nnzsplit_kernel<S, W, 1, Unroll, MinBlocks, Lean>);
        if constexpr (MaxNV >= 2)
          if (shape.nv == 2) go(spmm_nnzsplit_kernel<S, W, 2, Unroll, MinBlocks, Lean>);
        if constexpr (MaxNV >= 4)
          if (shape.nv == 4) go(spmm_nnzsplit_kernel<S, W, 4, Unroll, MinBlocks, Lean>);
        launched = true;
      }
    }
    if (!launched) {
      if (shape.nv == 1) go(spmm_nnzsplit_kernel<S, 1, 1, Unroll, MinBlocks, Lean>);
      if constexpr (MaxNV >= 2)
        if (shape.nv == 2) go(spmm_nnzsplit_kernel<S, 1, 2, Unroll, MinBlocks, Lean>);
      if constexpr (MaxNV >= 4)
        if (shape.nv == 4) go(spmm_nnzsplit_kernel<S, 1, 4, Unroll, MinBlocks, Lean>);
    }
    RINGBLAS_CHECK_LAUNCH("spmm_nnzsplit_kernel", s, sync);
  }
  const EpilogueArgs& e = p.epilogue;
  if (e.bias || e.relu || e.clamp) rows_pass(true);
}

template <class S>
void spmm_nnzsplit_launch(const SpmmProblem& p, const SubwarpShape& shape, int L, bool stream_c,
                          void* stream, bool sync, const NnzsplitOptions& opt) {
  spmm_nnzsplit_launch_tuned<S, SpmmPolicy::nnzsplit_max_vectors, SpmmPolicy::nnzsplit_unroll,
                             SpmmPolicy::nnzsplit_min_blocks, SpmmPolicy::nnzsplit_lean>(
      p, shape, L, stream_c, stream, sync, opt);
}

}  // namespace ringblas::cuda::detail
