// Device atomics for a monoid update *p = monoid(*p, v), shared by every cuda kernel family
// (spgemm_hash tables, spmm_subwarp / spmm_batched / spmv outputs, reductions).
// Native atomics where the hardware has them (add; integer min/max; float min/max on the bits;
// or/and/xor on bool held as int), otherwise a compare-and-swap loop on the enclosing 32/64-bit
// word (times, bool stored in one byte). The `any` monoid stores the offered value with an atomic
// exchange: the last writer wins, so the slot always holds one of the values offered (the rule
// documented in semirings/monoids.hpp). Storage is T itself or, for bool, an int (acc_t<bool>)
// so that atomicOr/And/Xor apply; both forms are accepted.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "semirings/monoids.hpp"

namespace ringblas::cuda::detail {

/// Storage of a monoid value in atomically updated memory: bool is held as int.
template <class T>
struct acc_of {
  using type = T;
};
template <>
struct acc_of<bool> {
  using type = int;
};
template <class T>
using acc_t = typename acc_of<T>::type;

template <class T, class U>
__device__ __forceinline__ U to_bits(T x) {
  U u = 0;
  memcpy(&u, &x, sizeof(T));
  return u;
}
template <class T, class U>
__device__ __forceinline__ T from_bits(U u) {
  T x;
  memcpy(&x, &u, sizeof(T));
  return x;
}

/// *p = f(*p) atomically by CAS on the 32/64-bit word that holds *p (1, 4 or 8-byte A). For a
/// one-byte A that word may extend past the value: device allocations are padded to 8 bytes
/// (common/memory.cu) so that it stays inside the buffer.
template <class A, class F> __device__ void atomic_cas_apply(A* p, F f) {
  if constexpr (sizeof(A) == 8) {
    auto* w = reinterpret_cast<unsigned long long*>(p);
    unsigned long long old = *reinterpret_cast<volatile unsigned long long*>(w), assumed;
    do {
      assumed = old;
      const unsigned long long nb = to_bits<A, unsigned long long>(f(from_bits<A>(assumed)));
      if (nb == assumed) return;
      old = atomicCAS(w, assumed, nb);
    } while (old != assumed);
  } else if constexpr (sizeof(A) == 4) {
    auto* w = reinterpret_cast<unsigned int*>(p);
    unsigned int old = *reinterpret_cast<volatile unsigned int*>(w), assumed;
    do {
      assumed = old;
      const unsigned int nb = to_bits<A, unsigned int>(f(from_bits<A>(assumed)));
      if (nb == assumed) return;
      old = atomicCAS(w, assumed, nb);
    } while (old != assumed);
  } else {
    static_assert(sizeof(A) == 1, "monoid atomics support 1, 4 and 8-byte values");
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    auto* w = reinterpret_cast<unsigned int*>(addr & ~std::uintptr_t(3));
    const unsigned shift = static_cast<unsigned>(addr & 3) * 8;
    unsigned int old = *reinterpret_cast<volatile unsigned int*>(w), assumed;
    do {
      assumed = old;
      const A cur =
          from_bits<A, unsigned char>(static_cast<unsigned char>((assumed >> shift) & 0xffu));
      const unsigned int nb8 = to_bits<A, unsigned char>(f(cur));
      const unsigned int nb = (assumed & ~(0xffu << shift)) | (nb8 << shift);
      if (nb == assumed) return;
      old = atomicCAS(w, assumed, nb);
    } while (old != assumed);
  }
}

/// *p = v atomically (the any monoid: the last writer wins).
template <class A>
__device__ __forceinline__ void atomic_store(A* p, A v) {
  if constexpr (sizeof(A) == 8) {
    atomicExch(reinterpret_cast<unsigned long long*>(p), to_bits<A, unsigned long long>(v));
  } else if constexpr (sizeof(A) == 4) {
    atomicExch(reinterpret_cast<unsigned int*>(p), to_bits<A, unsigned int>(v));
  } else {
    atomic_cas_apply(p, [v](A) { return v; });
  }
}

/// Float min/max through native integer atomics on the bits: non-negative floats order like
/// their signed bits, negative ones in reverse of their unsigned bits. A non-negative v goes
/// through a signed min/max, a negative one through an unsigned max/min; either way a stored
/// value of the other sign compares correctly. A NaN operand changes nothing (sr::min/max ignore
/// NaN, as GraphBLAS does), so a slot that starts without NaN never holds one.
template <bool IsMin, class T>
__device__ __forceinline__ void atomic_float_minmax(T* p, T v) {
  if (v != v) return;
  const bool neg = signbit(v);
  if constexpr (sizeof(T) == 4) {
    const int bits = __float_as_int(v);
    if (!neg) {
      if (IsMin)
        atomicMin(reinterpret_cast<int*>(p), bits);
      else
        atomicMax(reinterpret_cast<int*>(p), bits);
    } else {
      if (IsMin)
        atomicMax(reinterpret_cast<unsigned*>(p), unsigned(bits));
      else
        atomicMin(reinterpret_cast<unsigned*>(p), unsigned(bits));
    }
  } else {
    const long long bits = __double_as_longlong(v);
    if (!neg) {
      if (IsMin)
        atomicMin(reinterpret_cast<long long*>(p), bits);
      else
        atomicMax(reinterpret_cast<long long*>(p), bits);
    } else {
      const auto u = static_cast<unsigned long long>(bits);
      if (IsMin)
        atomicMax(reinterpret_cast<unsigned long long*>(p), u);
      else
        atomicMin(reinterpret_cast<unsigned long long*>(p), u);
    }
  }
}

/// *p = Monoid{}(*p, v) atomically. A is T, or int for a bool T (acc_t<bool>).
template <class Monoid, class T, class A>
__device__ __forceinline__ void atomic_combine(A* p, T v) {
  static_assert(std::is_same_v<A, T> || std::is_same_v<A, acc_t<T>>,
                "monoid atomics store T, or int for bool");
  constexpr MonoidCode code = Monoid::code;
  if constexpr (code == MonoidCode::any) {
    atomic_store(p, A(v));
  } else if constexpr (std::is_same_v<T, bool> && std::is_same_v<A, int>) {
    // bool as int: plus/lor/max set, times/land/min clear, lxor toggles.
    if constexpr (code == MonoidCode::plus || code == MonoidCode::lor || code == MonoidCode::max) {
      if (v) atomicOr(p, 1);
    } else if constexpr (code == MonoidCode::times || code == MonoidCode::land ||
                         code == MonoidCode::min) {
      if (!v) atomicAnd(p, 0);
    } else {
      if (v) atomicXor(p, 1);
    }
  } else if constexpr (code == MonoidCode::plus && std::is_same_v<T, std::int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else if constexpr (code == MonoidCode::plus &&
                       (std::is_same_v<T, std::int32_t> || std::is_floating_point_v<T>)) {
    atomicAdd(p, v);
  } else if constexpr ((code == MonoidCode::min || code == MonoidCode::max) &&
                       std::is_same_v<T, std::int64_t>) {
    if constexpr (code == MonoidCode::min)
      atomicMin(reinterpret_cast<long long*>(p), (long long)v);
    else
      atomicMax(reinterpret_cast<long long*>(p), (long long)v);
  } else if constexpr ((code == MonoidCode::min || code == MonoidCode::max) &&
                       std::is_same_v<T, std::int32_t>) {
    if constexpr (code == MonoidCode::min)
      atomicMin(p, v);
    else
      atomicMax(p, v);
  } else if constexpr ((code == MonoidCode::min || code == MonoidCode::max) &&
                       std::is_floating_point_v<T>) {
    atomic_float_minmax<code == MonoidCode::min>(p, v);
  } else {
    // times for every type; bool stored as one byte for every monoid.
    atomic_cas_apply(p, [v](A cur) { return A(Monoid{}(T(cur), v)); });
  }
}

}  // namespace ringblas::cuda::detail
