// The fixture of the GPU tests of the dense nn operations (tests/gpu/test_nn_ops.cpp,
// test_nn_fused.cpp): a cuda and a cpu context, device copies, outputs poisoned before a kernel
// writes them.
#pragma once
#include <cstring>
#include <vector>

#include "support/gpu_fixture.hpp"

namespace ringblas::test {

class NnGpuTest : public GpuTest {
 protected:
  Context gpu{Backend::cuda};
  Context cpu{Backend::cpu};
  DenseMatrix dev(const DenseMatrix& m) { return m.to(Location::device, gpu); }
  DenseVector dev(const DenseVector& v) { return v.to(Location::device, gpu); }
  /// A device matrix / vector of the shape whose values are poison (NaN-like 0xFF bytes).
  DenseMatrix poisoned(Index r, Index c) {
    std::vector<float> v(static_cast<std::size_t>(r * c));
    std::memset(v.data(), 0xFF, v.size() * sizeof(float));
    return DenseMatrix::from_values(r, c, v).to(Location::device, gpu);
  }
  DenseVector poisoned(Index n) {
    std::vector<float> v(static_cast<std::size_t>(n));
    std::memset(v.data(), 0xFF, v.size() * sizeof(float));
    return DenseVector::from_values(v).to(Location::device, gpu);
  }
};

}  // namespace ringblas::test
