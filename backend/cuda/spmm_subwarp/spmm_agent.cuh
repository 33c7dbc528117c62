// Warp-level agents of the SpMM families (Nagasaka et al., CCGrid'19, sub-warp assignment):
// - RowAgent: one sub-warp computes C(row, col0 .. col0 + V - 1) per thread, summing A's row in
//   registers (no shared memory, no inter-thread communication, so no warp-synchronous
//   assumptions); V > 1 loads B and stores C with 16-byte vectors. product_step / flush are also
//   used by the nnz-split kernel, whose partial rows flush with the monoid's atomic.
// - Epilogue: bias, ReLU, clamp applied to a finished element at the semiring's type.
// A reduction starts with its first product (not the identity), which is what the any monoid
// needs; an empty row yields the identity.
#pragma once
#include <cuda_runtime.h>

#include "backend/cuda/common/monoid_atomics.cuh"
#include "backend/cuda/spmm_subwarp/spmm_problem.hpp"
#include "semirings/semiring.hpp"

namespace ringblas::cuda::detail {

template <class T> struct Epi {
  bool bias, relu, clamp;
  const T* b;
  T cl;
  explicit Epi(const EpilogueArgs& e)
      : bias(e.bias), relu(e.relu), clamp(e.clamp), b(static_cast<const T*>(e.bias_values)),
        cl(static_cast<T>(e.clamp_value)) {}
  __device__ __forceinline__ T operator()(T x, int j) const {
    if constexpr (!std::is_same_v<T, bool>) {
      if (bias) x = sr::add(x, b[j]);
      if (relu) x = sr::max(x, T(0));
      if (clamp) x = sr::min(x, cl);
    }
    return x;
  }
};

template <class T, int V> struct alignas(sizeof(T) * V) VecOf {
  T v[V];
};

/// Dense operand pointers and strides of one SpMM (single or one batch item).
template <class T> struct DenseView {
  const T* b;
  long long b_rs, b_cs;
  T* c;
  long long c_rs, c_cs;
};

template <class S, int V> struct RowAgent {
  using T = typename S::value_type;

  /// acc[v] (+)= a (x) B(k, col0 + v): one nonzero A(row, k) = a applied to this thread's
  /// columns (`first`: acc starts with this product).
  /// bv = B(k, col0 .. col0 + V - 1) (one 16-byte load when V > 1; T{} when the multiply
  /// does not read B). `Narrow`: the row offset as a 32 x 32 -> 64-bit multiply (B's row stride is
  /// below 2^31: n_B or 1, n_B an int), one instruction instead of a 64-bit multiply.
  template <bool Narrow = false>
  __device__ __forceinline__ static void load_b(T (&bv)[V], int k, int col0,
                                                const DenseView<T>& d) {
    if constexpr (S::reads_b) {
      const long long row =
          Narrow ? static_cast<long long>(k) * static_cast<int>(d.b_rs) : k * d.b_rs;
      if constexpr (V == 1) {
        bv[0] = d.b[row + col0 * d.b_cs];
      } else {
        const VecOf<T, V> vec = *reinterpret_cast<const VecOf<T, V>*>(d.b + row + col0);
#pragma unroll
        for (int v = 0; v < V; ++v) bv[v] = vec.v[v];
      }
    } else {
#pragma unroll
      for (int v = 0; v < V; ++v) bv[v] = T{};
    }
  }

  /// Plus monoids: a sum may start from neutral() instead of its first product, the same value
  /// (x + -0 == x for every x, -0 and NaN included; 0 for integers), so that each step is one
  /// (fused) multiply-add without the first-product select.
  static constexpr bool neutral_start = S::add_monoid::code == MonoidCode::plus;
  __host__ __device__ static constexpr T neutral() {
    if constexpr (std::is_floating_point_v<T>)
      return T(-0.0);
    else
      return T(0);
  }

  /// acc[v] (+)= a (x) bv[v] for B(k, col0 + v) already loaded. `FromNeutral` (neutral_start
  /// monoids only): acc holds neutral() or a partial sum, `first` is ignored.
  template <bool FromNeutral = false>
  __device__ __forceinline__ static void combine(T (&acc)[V], bool first, T a, const T (&bv)[V],
                                                 int row, int k, int col0) {
    static_assert(!FromNeutral || neutral_start, "a neutral start needs a plus monoid");
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const T prod = S::mul(a, bv[v], row, k, k, col0 + v);
      if constexpr (FromNeutral)
        acc[v] = S::add(acc[v], prod);
      else
        acc[v] = first ? prod : S::add(acc[v], prod);
    }
  }

  __device__ __forceinline__ static void product(T (&acc)[V], bool first, T a, int row, int k,
                                                 int col0, const DenseView<T>& d) {
    T bv[V];
    load_b(bv, k, col0, d);
    combine(acc, first, a, bv, row, k, col0);
  }

  /// acc[v] (+)= A(row, ci[p]) (x) B(ci[p], col0 + v). The loads of consecutive steps are
  /// independent, so an unrolled loop of steps keeps several B rows in flight per thread.
  __device__ __forceinline__ static void product_step(T (&acc)[V], int p, bool first, int row, int col0,
                                                      const std::int32_t* __restrict__ ci,
                                                      const T* __restrict__ av, const DenseView<T>& d) {
    T a{};
    if constexpr (S::reads_a) a = av[p];
    product(acc, first, a, row, ci[p], col0, d);
  }

  /// Stores (whole row) or atomically combines (part of a row) acc into C(row, col0 ..).
  /// `streaming`: 16-byte stores marked evict-first (st.global.cs), for a C larger than L2 whose
  /// lines would otherwise push out the B rows the kernel still gathers.
  __device__ __forceinline__ static void flush(T (&acc)[V], bool whole, int row, int col0,
                                               const DenseView<T>& d, const Epi<T>& ep,
                                               bool streaming = false) {
    if (!whole) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
      // fp32 sums of 16-byte vectors: one vector atomic (sm_90) instead of four (V > 1 means unit
      // column stride and 16-byte aligned rows).
      if constexpr (V == 4 && std::is_same_v<typename S::add_monoid, sr::plus_monoid<float>>) {
        atomicAdd(reinterpret_cast<float4*>(d.c + row * d.c_rs + col0), make_float4(acc[0], acc[1], acc[2], acc[3]));
      } else  // NOLINT: the loop below is the else branch on sm_90
#endif
      {
#pragma unroll
        for (int v = 0; v < V; ++v)
          atomic_combine<typename S::add_monoid>(d.c + row * d.c_rs + (col0 + v) * d.c_cs, acc[v]);
      }
      return;
    }
    if constexpr (V == 1) {
      d.c[row * d.c_rs + col0 * d.c_cs] = ep(acc[0], col0);
    } else {
      VecOf<T, V> out;
#pragma unroll
      for (int v = 0; v < V; ++v) out.v[v] = ep(acc[v], col0 + v);
      T* dst = d.c + row * d.c_rs + col0;
      if constexpr (sizeof(out) == 16) {
        if (streaming) {
          int4 bits;
          memcpy(&bits, &out, 16);
          __stcs(reinterpret_cast<int4*>(dst), bits);
          return;
        }
      }
      *reinterpret_cast<VecOf<T, V>*>(dst) = out;
    }
  }

  /// Thread owns columns col0 .. col0 + V - 1 of row `row` (col0 < n; V > 1 requires unit column
  /// stride, n % V == 0 and 16-byte aligned rows of B and C, which the host checks).
  __device__ __forceinline__ static void run(int row, int col0, const std::int32_t* __restrict__ rp,
                                             const std::int32_t* __restrict__ ci,
                                             const T* __restrict__ av, const DenseView<T>& d,
                                             const Epi<T>& ep) {
    T acc[V];
    const int begin = rp[row], end = rp[row + 1];
    auto step = [&](int p, bool first) { product_step(acc, p, first, row, col0, ci, av, d); };
    if (begin == end) {
#pragma unroll
      for (int v = 0; v < V; ++v) acc[v] = S::identity();
    } else {
      step(begin, true);
      if constexpr (!S::is_any) {  // any product will do: stop at the first
#pragma unroll 4
        for (int p = begin + 1; p < end; ++p) step(p, false);
      }
    }
    flush(acc, true, row, col0, d, ep);
  }
};

/// Row of entry e in CSR row pointers of m rows: the largest r with rp[r] <= e.
__device__ __forceinline__ int row_of_entry(const std::int32_t* rp, int m, int e) {
  int lo = 0, hi = m - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (rp[mid] <= e) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/// 16-byte vector width of T (1 for bool: no vector path).
template <class T> constexpr int vec_width() { return sizeof(T) >= 4 ? int(16 / sizeof(T)) : 1; }

}  // namespace ringblas::cuda::detail
