// spmv kernels and launchers (included only by the generated instantiation units of
// backend/cuda/manifest.def).
// - spmv_pull_kernel: one sub-warp of 2^log_sw threads per output r (a row of the CSR whose rows
//   are outputs; at most kPullMaxBlocks blocks, each warp taking its rows in a grid-stride
//   loop). With a full u and a multiply that reads nothing (pair), every product of a row is one
//   value and the row's result is that value folded once per entry (fold_copies: row pointers
//   only, no column index read). Otherwise lanes stride over the row in steps of the sub-warp,
//   skip absent u(k), and the whole
//   sub-warp stops after the step in which a lane reached the monoid's terminal (any: its first
//   product; __any_sync over the sub-warp's lanes), then combine (value, found) pairs with
//   __shfl_xor_sync over the full warp (every lane reaches the shuffles: no early return).
//   Outputs the mask excludes are skipped (BFS: C<¬visited>). Shared memory: none.
// - spmv_push_kernel: one group of 2^log_sw threads per stored u(k) (a sub-warp, or more than a
//   warp when u has few entries: no shuffles here) scatters its products along row k of the
//   CSR whose rows are inputs, with the monoid's atomic into t (filled with the identity first)
//   and a presence flag; for `any`, a plain store, skipped where t already has a value.
//   Shared memory: none.
// Output: dense t_values / t_present over n_out; t_values is meaningful where t_present is set.
#pragma once
#include <algorithm>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/monoid_atomics.cuh"
#include "backend/cuda/common/row_merge.cuh"
#include "backend/cuda/spmv/spmv_problem.hpp"
#include "semirings/semiring.hpp"

namespace ringblas::cuda::detail {

template <class T> __device__ __forceinline__ T shfl_xor_value(T v, int off) {
  if constexpr (sizeof(T) < 4) return static_cast<T>(__shfl_xor_sync(0xffffffffu, static_cast<int>(v), off));
  else return __shfl_xor_sync(0xffffffffu, v, off);
}

template <class S>
__device__ __forceinline__ typename S::value_type spmv_product(bool a_first, typename S::value_type a,
                                                               typename S::value_type u, int r, int k) {
  return a_first ? S::mul(a, u, r, k, k, 0) : S::mul(u, a, 0, k, k, r);
}

/// True when every product is the same value: the multiply reads neither operand nor an index.
template <class S> __host__ __device__ constexpr bool constant_products() {
  return !S::reads_a && !S::reads_b && !S::positional;
}

/// v ⊕ v ⊕ ... ⊕ v, `copies` >= 1 of them, by doubling (log2(copies) adds; the monoid is
/// associative, so this is the row's sequential fold: plus gives copies · v, idempotent monoids v).
template <class S>
__device__ __forceinline__ typename S::value_type fold_copies(typename S::value_type v, int copies) {
  typename S::value_type acc{};
  bool have = false;
  while (copies > 0) {
    if (copies & 1) {
      acc = have ? S::add(acc, v) : v;
      have = true;
    }
    copies >>= 1;
    if (copies > 0) v = S::add(v, v);
  }
  return acc;
}

/// Most blocks a pull launch uses: each warp then loops over its rows (grid stride), so that
/// rows the mask excludes (BFS pull: every visited vertex) cost a flag read in a running warp
/// rather than a warp of their own to schedule.
constexpr long long kPullMaxBlocks = 8192;

template <class S>
__global__ void __launch_bounds__(256) spmv_pull_kernel(SpmvProblem p, int log_sw) {
  using T = typename S::value_type;
  const int sw = 1 << log_sw;
  const int lane_in_warp = static_cast<int>(threadIdx.x & 31);
  const int lane = lane_in_warp & (sw - 1);
  const long long rows_per_warp = 32 >> log_sw;
  const long long warp = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) >> 5;
  const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
  // The sub-warp's lanes of this warp: they share r, hence the row and the trip count.
  const unsigned group = sw == 32 ? 0xffffffffu : ((1u << sw) - 1u) << (lane_in_warp & ~(sw - 1));
  const T* av = static_cast<const T*>(p.a_values);
  const T* uv = static_cast<const T*>(p.u_values);
  // A multiply that reads neither operand nor an index (pair) over a full u: each row's products
  // are all one value, so the row is its length (degrees: A +.pair 1 reads no column index).
  const bool constant_rows = constant_products<S>() && !p.u_present;
  // The loop bound depends on the warp only: every lane reaches the shuffles of each round.
  for (long long first = warp * rows_per_warp; first < p.n_out; first += warps * rows_per_warp) {
    const long long rr = first + (lane_in_warp >> log_sw);
    const int r = static_cast<int>(rr);
    const bool valid = rr < p.n_out && (!p.allowed || p.allowed[r]);
    T acc{};
    bool found = false;
    if (valid && constant_rows) {
      // Every product of the row is one value: ⊕ of one copy per entry, from the row pointers.
      const int len = p.row_ptr[r + 1] - p.row_ptr[r];
      if (lane == 0 && len > 0) {
        acc = fold_copies<S>(spmv_product<S>(p.a_first, T{}, T{}, r, 0), len);
        found = true;
      }
    } else if (valid) {
      const int end = p.row_ptr[r + 1];
      for (int base = p.row_ptr[r]; base < end; base += sw) {
        const int q = base + lane;
        if (q < end) {
          const int k = p.col_idx[q];
          if (!p.u_present || p.u_present[k]) {
            T a{}, u{};
            if constexpr (S::reads_a || S::reads_b) {
              // the operand order decides which of A and u the multiply reads
              if (p.a_first ? S::reads_a : S::reads_b) a = av[q];
              if (p.a_first ? S::reads_b : S::reads_a) u = uv[k];
            }
            const T v = spmv_product<S>(p.a_first, a, u, r, k);
            acc = found ? S::add(acc, v) : v;
            found = true;
          }
        }
        // Early exit for the whole sub-warp once any lane holds a final value: the first
        // product for `any` (BFS pull: an unvisited vertex stops at its first parent in the
        // frontier), the terminal for monoids that have one.
        if constexpr (S::is_any) {
          if (__any_sync(group, found)) break;
        } else if constexpr (S::has_terminal) {
          if (__any_sync(group, found && acc == S::terminal())) break;
        }
      }
    }
    for (int off = sw >> 1; off > 0; off >>= 1) {
      const T other = shfl_xor_value(acc, off);
      const bool other_found = __shfl_xor_sync(0xffffffffu, found ? 1 : 0, off) != 0;
      if (other_found) {
        acc = found ? S::add(acc, other) : other;
        found = true;
      }
    }
    if (valid && lane == 0) {
      T* tv = static_cast<T*>(p.t_values);
      if (p.accum_into_t >= 0) {  // t_values is w: rows without a product keep w(r)
        if (found) tv[r] = binary_op_at<T>(BinaryOpCode(p.accum_into_t), tv[r], acc, r, 0, r, 0);
      } else {
        p.t_present[r] = found ? 1 : 0;
        tv[r] = found ? acc : S::identity();
      }
    }
  }
}

template <class T> __global__ void fill_kernel(T* v, int n, T value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = value;
}

template <class S>
__global__ void __launch_bounds__(256) spmv_push_kernel(SpmvProblem p, int log_sw) {
  using T = typename S::value_type;
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long e = t >> log_sw;
  const int sw = 1 << log_sw;
  const int lane = static_cast<int>(t & (sw - 1));
  if (e >= p.u_nnz) return;
  const int k = p.u_idx[e];
  const T* av = static_cast<const T*>(p.a_values);
  T u{};
  if (p.a_first ? S::reads_b : S::reads_a) u = static_cast<const T*>(p.u_values)[e];
  T* tv = static_cast<T*>(p.t_values);
  for (int q = p.row_ptr[k] + lane; q < p.row_ptr[k + 1]; q += sw) {
    const int r = p.col_idx[q];
    if (p.allowed && !p.allowed[r]) continue;
    // any: whichever offered value lands is the result, so an output that already holds one is
    // skipped (BFS: most edges of a large frontier reach vertices found a moment before), and
    // the value is a plain store of a whole aligned T (never torn; no neighbour bytes rewritten)
    // rather than an atomic (for bool, a CAS loop on the enclosing word).
    if constexpr (S::is_any) {
      if (p.t_present[r]) continue;
    }
    T a{};
    if (p.a_first ? S::reads_a : S::reads_b) a = av[q];
    const T v = spmv_product<S>(p.a_first, a, u, r, k);
    if constexpr (S::is_any) tv[r] = v;
    else atomic_combine<typename S::add_monoid>(tv + r, v);
    p.t_present[r] = 1;  // every writer stores the same value
  }
}

template <class S> void spmv_pull_launch(const SpmvProblem& p, int log_sw, void* stream, bool sync) {
  if (p.n_out == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  const long long threads = static_cast<long long>(p.n_out) << log_sw;
  const long long blocks = std::min((threads + 255) / 256, kPullMaxBlocks);
  spmv_pull_kernel<S><<<static_cast<unsigned>(blocks), 256, 0, s>>>(p, log_sw);
  RINGBLAS_CHECK_LAUNCH("spmv_pull_kernel", s, sync);
}

template <class S> void spmv_push_launch(const SpmvProblem& p, int log_sw, void* stream, bool sync) {
  using T = typename S::value_type;
  if (p.n_out == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  RINGBLAS_CUDA_TRY(cudaMemsetAsync(p.t_present, 0, static_cast<std::size_t>(p.n_out), s));
  fill_kernel<T><<<(p.n_out + 255) / 256, 256, 0, s>>>(static_cast<T*>(p.t_values), p.n_out, S::identity());
  RINGBLAS_CHECK_LAUNCH("fill_kernel", s, sync);
  if (p.u_nnz == 0) return;
  const long long threads = static_cast<long long>(p.u_nnz) << log_sw;
  spmv_push_kernel<S><<<static_cast<unsigned>((threads + 255) / 256), 256, 0, s>>>(p, log_sw);
  RINGBLAS_CHECK_LAUNCH("spmv_push_kernel", s, sync);
}

}  // namespace ringblas::cuda::detail

#define RINGBLAS_INSTANTIATE_SPMV(SR)                                                           \
  template void ringblas::cuda::detail::spmv_pull_launch<SR>(                                   \
      const ringblas::cuda::detail::SpmvProblem&, int, void*, bool);                            \
  template void ringblas::cuda::detail::spmv_push_launch<SR>(                                   \
      const ringblas::cuda::detail::SpmvProblem&, int, void*, bool);
