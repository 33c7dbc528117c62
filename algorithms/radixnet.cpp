// RadiX-Net generator of the Graph Challenge sparse DNN layers (method in radixnet.hpp).
#include "algorithms/radixnet.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "ringblas/error.hpp"

namespace ringblas::radixnet {
namespace {

constexpr Index kReplication = 16;  // ones(16, 16) Kronecker factor: 2 x 16 = 32 links per neuron

/// MATLAB's rand(): a double in (0, 1) from two consecutive 32-bit MT19937 outputs (genrand_res53).
double matlab_rand(std::mt19937& g) {
  const std::uint32_t a = static_cast<std::uint32_t>(g()) >> 5;
  const std::uint32_t b = static_cast<std::uint32_t>(g()) >> 6;
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

}  // namespace

Generator::Generator(Index neurons, std::uint32_t seed) : neurons_(neurons), rng_(seed) {
  const Index m = neurons / kReplication;
  if (neurons <= 0 || neurons % kReplication != 0 || m < 2 || (m & (m - 1)) != 0)
    throw InvalidValue("radixnet::Generator: neurons must be 16 * 2^k with k >= 1, got " +
                       std::to_string(neurons));
  block_length_ = 0;
  while ((Index{1} << block_length_) < m) ++block_length_;
  auto base = std::make_shared<std::vector<std::int32_t>>(static_cast<std::size_t>(neurons));
  for (Index r = 0; r < neurons; ++r) (*base)[std::size_t(r)] = std::int32_t(r % m);
  base_row_ = std::move(base);
}

Matrix Generator::next() { return build(next_recipe()); }

Generator::Recipe Generator::next_recipe() {
  const Index n = neurons_, m = n / kReplication;
  if (step_ == block_length_) {
    // A new block: rows take the base row rank(r) mod M, rank from sorting fresh uniforms.
    std::vector<double> u(static_cast<std::size_t>(n));
    for (double& x : u) x = matlab_rand(rng_);
    std::vector<std::int32_t> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::int32_t a, std::int32_t b) { return u[std::size_t(a)] < u[std::size_t(b)]; });
    auto base = std::make_shared<std::vector<std::int32_t>>(static_cast<std::size_t>(n));
    for (Index k = 0; k < n; ++k) (*base)[std::size_t(order[std::size_t(k)])] = std::int32_t(k % m);
    base_row_ = std::move(base);
    step_ = 0;
  }
  Recipe r;
  r.base_row = base_row_;
  r.stride = Index{1} << step_;
  ++step_;
  return r;
}

Matrix Generator::build(const Recipe& recipe) const {
  const Index n = neurons_, m = n / kReplication, stride = recipe.stride;
  const std::vector<std::int32_t>& base_row = *recipe.base_row;
  const Index per_row = 2 * kReplication;
  std::vector<std::int32_t> row_ptr(static_cast<std::size_t>(n + 1)), cols;
  cols.reserve(static_cast<std::size_t>(n * per_row));
  std::vector<std::int32_t> row(static_cast<std::size_t>(per_row));
  for (Index r = 0; r < n; ++r) {
    const Index x = base_row[std::size_t(r)];
    const Index c0 = x, c1 = ((x - stride) % m + m) % m;  // (x - c) mod M in {0, stride}
    for (Index k = 0; k < kReplication; ++k) {
      row[std::size_t(2 * k)] = std::int32_t(c0 + k * m);
      row[std::size_t(2 * k + 1)] = std::int32_t(c1 + k * m);
    }
    std::sort(row.begin(), row.end());
    cols.insert(cols.end(), row.begin(), row.end());
    row_ptr[std::size_t(r + 1)] = std::int32_t(cols.size());
  }
  std::vector<float> values(cols.size(), 1.0f / 16.0f);
  return Matrix::from_csr(n, n, row_ptr, cols, values);
}

std::vector<Matrix> generate(Index neurons, Index layers, std::uint32_t seed) {
  if (layers < 0) throw InvalidValue("radixnet::generate: layers must be >= 0");
  Generator g(neurons, seed);
  std::vector<Matrix> out;
  out.reserve(static_cast<std::size_t>(layers));
  for (Index k = 0; k < layers; ++k) out.push_back(g.next());
  return out;
}

}  // namespace ringblas::radixnet
