// Body of an instantiation unit: compiles the spgemm_hash pipeline for the manifest rows whose
// catalog name is RINGBLAS_SPGEMM_HASH_TU and defines register_spgemm_hash_<name>(registry&).
#pragma once
#include <cstdint>
#include <type_traits>

#include "backend/cuda/spgemm_hash/numeric_impl.cuh"

namespace ringblas::cuda::spgemm_hash {
namespace inst {

constexpr bool same_name(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

template <class S> void add_row(registry& r, const char* name, std::true_type) {
  using T = typename S::value_type;
  r.rows.push_back(registry_row{name, S::add_monoid::code, S::mul_op::code, type_of_v<T>,
                                &run_typed<S, std::int32_t>, &run_typed<S, std::int64_t>});
}
template <class S> void add_row(registry&, const char*, std::false_type) {}

}  // namespace inst

#define RINGBLAS_SH_STR2(x) #x
#define RINGBLAS_SH_STR(x) RINGBLAS_SH_STR2(x)
#define RINGBLAS_SH_CAT2(a, b) a##b
#define RINGBLAS_SH_CAT(a, b) RINGBLAS_SH_CAT2(a, b)

void RINGBLAS_SH_CAT(register_spgemm_hash_, RINGBLAS_SPGEMM_HASH_TU)(registry& r) {
#define RINGBLAS_CUDA_ROW(NAME, ADD, MUL, T)                                                 \
  inst::add_row<sr::semiring<sr::ADD##_monoid<T>, sr::MUL##_op<T>>>(                       \
      r, #NAME,                                                                            \
      std::bool_constant<inst::same_name(#NAME, RINGBLAS_SH_STR(RINGBLAS_SPGEMM_HASH_TU))>{});
#include "backend/cuda/manifest.def"
#undef RINGBLAS_CUDA_ROW
  (void)r;
}

}  // namespace ringblas::cuda::spgemm_hash
