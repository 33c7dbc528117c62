// GPU test of backend/cuda/common/monoid_atomics.cuh: for every monoid x value type (and bool
// stored both as one byte and as int), 8192 threads in 32 blocks combine values into a few
// adjacent slots; each slot must equal the host fold of the values it received (any: one of them).
// Adjacent slots catch a byte CAS that clobbers its neighbours.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/cuda/common/monoid_atomics.cuh"
#include "semirings/visit.hpp"
#include "support/gpu_fixture.hpp"

namespace ringblas::test {
namespace {

constexpr int threads = 256, blocks = 32, slots = 5;

/// The value thread t offers: small integers (exact sums), powers of two and ±1 for times (exact
/// products), some negatives and zeros so min/max/logical monoids see both sides.
template <class T>
__host__ __device__ T offered(int t, MonoidCode code) {
  const unsigned h = unsigned(t) * 2654435761u;
  if constexpr (std::is_same_v<T, bool>) return (h >> 7) % 3 == 0;
  if (code == MonoidCode::times) {
    const int r = int((h >> 9) % 16);
    if (r == 0) return T(2);
    if (r == 1) return std::is_integral_v<T> ? T(3) : T(0.5);
    return (r % 2) ? T(-1) : T(1);
  }
  return T(int((h >> 5) % 41) - 20);
}

template <class Monoid, class T, class A>
__global__ void k_hammer(A* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  ringblas::cuda::detail::atomic_combine<Monoid>(&out[t % slots], offered<T>(t, Monoid::code));
}

template <class Monoid, class T, class A>
std::string check_one() {
  const MonoidCode code = Monoid::code;
  A init[slots], got[slots];  // arrays, not std::vector (vector<bool> has no data())
  for (A& x : init) x = A(Monoid::identity());
  A* d = nullptr;
  // Padded to 8 bytes as the library's device allocations are (common/memory.cu): a one-byte
  // value is updated by a CAS on its enclosing 4-byte word.
  if (cudaMalloc(&d, (sizeof(A) * slots + 7) / 8 * 8) != cudaSuccess) return "cudaMalloc failed";
  cudaMemcpy(d, init, sizeof(A) * slots, cudaMemcpyHostToDevice);
  k_hammer<Monoid, T, A><<<blocks, threads>>>(d);
  const cudaError_t err = cudaMemcpy(got, d, sizeof(A) * slots, cudaMemcpyDeviceToHost);
  cudaFree(d);
  if (err != cudaSuccess) return std::string("CUDA error ") + cudaGetErrorString(err);
  for (int s = 0; s < slots; ++s) {
    T want = Monoid::identity();
    bool offered_got = false;
    for (int t = s; t < threads * blocks; t += slots) {
      const T v = offered<T>(t, code);
      want = Monoid{}(want, v);
      if (T(got[s]) == v) offered_got = true;
    }
    const bool ok = code == MonoidCode::any ? offered_got : T(got[s]) == want;
    if (!ok)
      return "slot " + std::to_string(s) + ": got " + std::to_string(double(T(got[s]))) +
             ", host fold " + std::to_string(double(want));
  }
  return "";
}

class MonoidAtomics : public GpuTest {};

TEST_F(MonoidAtomics, EveryMonoidAndTypeMatchesTheHostFold) {
  // Failures are collected as text: gtest's assertion macros do not compile inside nvcc's
  // generic lambdas.
  std::vector<std::string> failures;
  auto note = [&](const std::string& r, MonoidCode code, const char* what) {
    if (!r.empty()) failures.push_back(std::string(monoid_name(code)) + " " + what + ": " + r);
  };
  int checked = 0;
  for (MonoidCode code : {MonoidCode::plus, MonoidCode::times, MonoidCode::min, MonoidCode::max,
                          MonoidCode::lor, MonoidCode::land, MonoidCode::lxor, MonoidCode::any})
    for (Type t : {Type::boolean, Type::int32, Type::int64, Type::fp32, Type::fp64})
      visit_type(t, [&](auto z) {
        using T = decltype(z);
        sr::visit_monoid<T>(code, [&](auto m) {
          using M = decltype(m);
          note(check_one<M, T, T>(), code, type_name(t).data());
          ++checked;
          if constexpr (std::is_same_v<T, bool>) {
            note(check_one<M, T, int>(), code, "bool as int");
            ++checked;
          }
        });
      });
  EXPECT_EQ(checked, 8 * 5 + 8);
  for (const std::string& f : failures) ADD_FAILURE() << f;
}

}  // namespace
}  // namespace ringblas::test
