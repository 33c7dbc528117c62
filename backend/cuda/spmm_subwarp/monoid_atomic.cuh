// Device atomics for a monoid update *p = add(*p, v): the native atomic where one exists (add,
// integer min/max, any as exchange), else a compare-and-swap loop on the enclosing 32/64-bit word
// (float min/max with GraphBLAS's NaN rule, times, logical monoids, bool in any monoid).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "semirings/semiring.hpp"

namespace ringblas::cuda::detail {

template <class T, class U> __device__ __forceinline__ U to_bits(T x) {
  U u = 0;
  memcpy(&u, &x, sizeof(T));
  return u;
}
template <class T, class U> __device__ __forceinline__ T from_bits(U u) {
  T x;
  memcpy(&x, &u, sizeof(T));
  return x;
}

/// *p = Add{}(*p, v) atomically, by CAS on the word that holds *p.
template <class Add, class T> __device__ void atomic_cas_update(T* p, T v) {
  if constexpr (sizeof(T) == 8) {
    auto* w = reinterpret_cast<unsigned long long*>(p);
    unsigned long long old = atomicAdd(w, 0ull), assumed;
    do {
      assumed = old;
      const T cur = from_bits<T>(assumed);
      const T next = Add{}(cur, v);
      const unsigned long long nb = to_bits<T, unsigned long long>(next);
      if (nb == assumed) return;
      old = atomicCAS(w, assumed, nb);
    } while (old != assumed);
  } else if constexpr (sizeof(T) == 4) {
    auto* w = reinterpret_cast<unsigned int*>(p);
    unsigned int old = atomicAdd(w, 0u), assumed;
    do {
      assumed = old;
      const unsigned int nb = to_bits<T, unsigned int>(Add{}(from_bits<T>(assumed), v));
      if (nb == assumed) return;
      old = atomicCAS(w, assumed, nb);
    } while (old != assumed);
  } else {
    static_assert(sizeof(T) == 1, "monoid atomics support 1, 4 and 8-byte values");
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    auto* w = reinterpret_cast<unsigned int*>(addr & ~std::uintptr_t(3));
    const unsigned shift = static_cast<unsigned>(addr & 3) * 8;
    unsigned int old = atomicAdd(w, 0u), assumed;
    do {
      assumed = old;
      const T cur = from_bits<T, unsigned char>(static_cast<unsigned char>((assumed >> shift) & 0xffu));
      const unsigned int nb8 = to_bits<T, unsigned char>(Add{}(cur, v));
      const unsigned int nb = (assumed & ~(0xffu << shift)) | (nb8 << shift);
      if (nb == assumed) return;
      old = atomicCAS(w, assumed, nb);
    } while (old != assumed);
  }
}

/// The any monoid keeps some product: the last writer wins (no read needed).
template <class T> __device__ void atomic_store_any(T* p, T v) {
  if constexpr (sizeof(T) == 8) {
    atomicExch(reinterpret_cast<unsigned long long*>(p), to_bits<T, unsigned long long>(v));
  } else if constexpr (sizeof(T) == 4) {
    atomicExch(reinterpret_cast<unsigned int*>(p), to_bits<T, unsigned int>(v));
  } else {
    struct second {
      __device__ T operator()(T, T y) const { return y; }
    };
    atomic_cas_update<second>(p, v);
  }
}

/// *p = S::add(*p, v) atomically for semiring S.
template <class S> __device__ __forceinline__ void atomic_combine(typename S::value_type* p,
                                                                 typename S::value_type v) {
  using T = typename S::value_type;
  using Add = typename S::add_monoid;
  constexpr auto kind = S::atomic;
  if constexpr (S::is_any) {
    atomic_store_any(p, v);
  } else if constexpr (kind == sr::AtomicKind::add &&
                       (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                        std::is_same_v<T, std::int32_t>)) {
    atomicAdd(p, v);
  } else if constexpr (kind == sr::AtomicKind::add && std::is_same_v<T, std::int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else if constexpr (kind == sr::AtomicKind::min && std::is_same_v<T, std::int32_t>) {
    atomicMin(p, v);
  } else if constexpr (kind == sr::AtomicKind::max && std::is_same_v<T, std::int32_t>) {
    atomicMax(p, v);
  } else if constexpr (kind == sr::AtomicKind::min && std::is_same_v<T, std::int64_t>) {
    atomicMin(reinterpret_cast<long long*>(p), static_cast<long long>(v));
  } else if constexpr (kind == sr::AtomicKind::max && std::is_same_v<T, std::int64_t>) {
    atomicMax(reinterpret_cast<long long*>(p), static_cast<long long>(v));
  } else {
    atomic_cas_update<Add>(p, v);
  }
}

}  // namespace ringblas::cuda::detail
