// RadiX-Net generator of the Graph Challenge sparse DNN layers (N neurons, 32 links per neuron).
//
// Method (reverse-engineered from the 120 official 1024-neuron layers, which it reproduces
// exactly; tests/cpu/test_sparse_dnn_radixnet.cpp checks every one of them):
// - M = N / 16 (a power of two). A block of log2(M) layers is a radix-2 mixed-radix network on M
//   neurons (Robinett & Kepner, "RadiX-Net", IPDPS-W 2019) Kronecker-expanded by ones(16, 16):
//   in layer i of a block (i = 1..log2 M, stride s = 2^(i-1)) base row x connects to every
//   column c with (x - c) mod M in {0, s}; that is 2 x 16 = 32 entries per row and per column,
//   each 1/16.
// - Block 0 uses the base rows as they are. Every later block permutes the rows of all its
//   layers by one random permutation: W(r, :) = B(rank(r), :) where rank(r) is the position of
//   u(r) in sort(u) and u = rand(1, N) drawn from MATLAB's default generator (MT19937 seeded with
//   5489, doubles from two 32-bit words: (a>>5 * 2^26 + b>>6) / 2^53); one draw of N per block.
//   This is MATLAB's `[~, p] = sort(rand(1, N)); W(p, :) = B` with `rng default`.
// Larger networks (4096, 16384, 65536 neurons) are built the same way; the official ones are not
// available here, so only their shape (32 per row and column, weight 1/16) is known to match.
#pragma once
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "ringblas/matrix.hpp"

namespace ringblas::radixnet {

/// MATLAB's default seed (`rng default`), which produced the official layers.
inline constexpr std::uint32_t matlab_default_seed = 5489;

/// Generates the layers of one network in order; the random state advances once per block.
class Generator {
 public:
  /// neurons = 16 * 2^k (k >= 1); throws InvalidValue otherwise.
  explicit Generator(Index neurons, std::uint32_t seed = matlab_default_seed);
  /// What fixes one layer: the base row of every row (shared by the layers of a block) and the
  /// stride. Cheap to get; building the layer from it is the costly part, and independent.
  struct Recipe {
    std::shared_ptr<const std::vector<std::int32_t>> base_row;
    Index stride = 1;
  };
  /// Advances to the next layer and returns its recipe (the random state moves here only).
  Recipe next_recipe();
  /// The layer of a recipe: neurons x neurons, fp32 values 1/16, 32-bit indices, on the host.
  Matrix build(const Recipe& r) const;
  /// build(next_recipe()).
  Matrix next();
  Index neurons() const { return neurons_; }
  /// Layers per block: log2(neurons / 16).
  int block_length() const { return block_length_; }

 private:
  Index neurons_;
  int block_length_;
  int step_ = 0;  ///< position in the current block
  std::mt19937 rng_;
  std::shared_ptr<const std::vector<std::int32_t>> base_row_;  ///< of the current block (mod M)
};

/// Layers 1..layers of the network of `neurons` neurons.
std::vector<Matrix> generate(Index neurons, Index layers,
                             std::uint32_t seed = matlab_default_seed);

}  // namespace ringblas::radixnet
