// The spgemm_dot kernel (included only by launcher.cu): one sub-warp of 2^log_sw lanes per mask
// entry e = (i, j) (its row i read from the mask's expanded row array); the lanes stride over the
// shorter of row i of A and row j of Bt (Bt's rows are op(B)'s columns), each binary-searching its
// column k in the longer row from where its previous search ended (a lane's keys increase); matches
// are multiplied and added with the semiring, the any monoid and terminal values stopping a lane
// early; the sub-warp combines its (value, found) pairs with __shfl_xor_sync (every lane of the
// warp reaches the shuffles: no early return). Output: t_values[e] and keep[e] (1 where row i and
// row j share a column). Shared memory: none.
#pragma once
#include <cstdint>

#include "backend/cuda/common/check.cuh"
#include "semirings/semiring.hpp"

namespace ringblas::cuda::spgemm_dot {

/// Type-erased operands of one launch (32-bit indices).
struct DotProblem {
  int nrows = 0;                         ///< rows of the mask (and of A, C)
  long long nnz = 0;                     ///< mask entries
  const std::int32_t* m_rows = nullptr;  ///< the row of each mask entry
  const std::int32_t* m_ci = nullptr;
  const std::int32_t* a_rp = nullptr;
  const std::int32_t* a_ci = nullptr;
  const void* a_values = nullptr;      ///< nullptr when the multiply does not read A
  const std::int32_t* b_rp = nullptr;  ///< Bt = op(B)ᵀ: row j holds column j of op(B)
  const std::int32_t* b_ci = nullptr;
  const void* b_values = nullptr;
  void* t_values = nullptr;      ///< one per mask entry
  std::int32_t* keep = nullptr;  ///< one per mask entry (plus the scan's slot)
};

template <class T>
__device__ __forceinline__ T dot_shfl_xor(T v, int off) {
  if constexpr (sizeof(T) < 4)
    return static_cast<T>(__shfl_xor_sync(0xffffffffu, static_cast<int>(v), off));
  else
    return __shfl_xor_sync(0xffffffffu, v, off);
}

/// lower_bound of k in ci[lo, hi) (a lane's keys increase, so it resumes from its last lo).
__device__ __forceinline__ int lower_bound_from(const std::int32_t* ci, int lo, int hi, int k) {
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (ci[mid] < k)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// Folds the term A(i,k) ⊗ B(k,j) (values at positions pa of A and pb of B in p) into this
/// lane's (acc, found) pair with the semiring's add. P: DotProblem or HashProblem.
template <class S, class P>
__device__ __forceinline__ void add_term(const P& p, int pa, int pb, int i, int k, int j,
                                         typename S::value_type& acc, bool& found) {
  using T = typename S::value_type;
  T a{}, b{};
  if constexpr (S::reads_a) a = static_cast<const T*>(p.a_values)[pa];
  if constexpr (S::reads_b) b = static_cast<const T*>(p.b_values)[pb];
  const T v = S::mul(a, b, i, k, k, j);
  acc = found ? S::add(acc, v) : v;
  found = true;
}

/// Combines the (acc, found) pairs of an aligned group of g lanes (a power of two) with the
/// semiring's add; the lane with `write` then stores entry e: t_values[e] (the identity when no
/// lane found a match) and keep[e]. Every lane of the warp calls it (the shuffles need them all).
template <class S>
__device__ __forceinline__ void combine_and_write(typename S::value_type acc, bool found, int g,
                                                  bool write, long long e, void* t_values,
                                                  std::int32_t* keep) {
  using T = typename S::value_type;
  for (int off = g >> 1; off > 0; off >>= 1) {
    const T other = dot_shfl_xor(acc, off);
    const bool other_found = __shfl_xor_sync(0xffffffffu, found ? 1 : 0, off) != 0;
    if (other_found) {
      acc = found ? S::add(acc, other) : other;
      found = true;
    }
  }
  if (write) {
    keep[e] = found ? 1 : 0;
    static_cast<T*>(t_values)[e] = found ? acc : S::identity();
  }
}

template <class S>
__global__ void __launch_bounds__(256) dot_kernel(DotProblem p, int log_sw) {
  using T = typename S::value_type;
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long e = t >> log_sw;
  const int sw = 1 << log_sw;
  const int lane = static_cast<int>(t & (sw - 1));
  const bool valid = e < p.nnz;
  T acc{};
  bool found = false;
  if (valid) {
    const int i = p.m_rows[e];
    const int j = p.m_ci[e];
    const int a0 = p.a_rp[i], a1 = p.a_rp[i + 1];
    const int b0 = p.b_rp[j], b1 = p.b_rp[j + 1];
    // Probe the shorter row, search the longer; skip when the column ranges cannot overlap.
    const bool probe_a = a1 - a0 <= b1 - b0;
    const int q0 = probe_a ? a0 : b0, q1 = probe_a ? a1 : b1;
    const std::int32_t* qci = probe_a ? p.a_ci : p.b_ci;
    const std::int32_t* sci = probe_a ? p.b_ci : p.a_ci;
    int lo = probe_a ? b0 : a0;
    const int s1 = probe_a ? b1 : a1;
    if (q0 < q1 && lo < s1 && qci[q0] <= sci[s1 - 1] && sci[lo] <= qci[q1 - 1]) {
      for (int q = q0 + lane; q < q1 && lo < s1; q += sw) {
        const int k = qci[q];
        lo = lower_bound_from(sci, lo, s1, k);
        if (lo == s1 || sci[lo] != k) continue;
        const int pa = probe_a ? q : lo, pb = probe_a ? lo : q;
        add_term<S>(p, pa, pb, i, k, j, acc, found);
        if constexpr (S::is_any) break;
        if constexpr (S::has_terminal) {
          if (acc == S::terminal()) break;
        }
      }
    }
  }
  combine_and_write<S>(acc, found, sw, valid && lane == 0, e, p.t_values, p.keep);
}

}  // namespace ringblas::cuda::spgemm_dot
