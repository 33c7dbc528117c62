// Deterministic R-MAT graph generator (Chakrabarti, Zhan, Faloutsos, SDM 2004) with the
// Graph500 parameters a = 0.57, b = c = 0.19, d = 0.05: 2^scale vertices, edge_factor * 2^scale
// generated edges, vertex ids scrambled by a seeded permutation (as Graph500's generator does),
// then symmetrised with self-loops and repeated edges removed. Weights are uniform in (0, 1]
// (Graph500 SSSP). The same (scale, edge_factor, seed) always gives the same graph.
#pragma once
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "ringblas/matrix.hpp"

namespace ringblas::test {

struct RmatGraph {
  Matrix adjacency;          ///< n x n fp64, symmetric, no self-loops
  std::int64_t input_edges;  ///< edges generated (Graph500's M = edge_factor * n)
};

inline RmatGraph rmat(int scale, int edge_factor = 16, std::uint64_t seed = 20261123) {
  const Index n = Index{1} << scale;
  const Index m = Index(edge_factor) * n;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Index> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), Index{0});
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<Index> rows, cols;
  std::vector<double> w;
  rows.reserve(std::size_t(2 * m));
  cols.reserve(std::size_t(2 * m));
  w.reserve(std::size_t(2 * m));
  const double a = 0.57, b = 0.19, c = 0.19;
  for (Index e = 0; e < m; ++e) {
    Index i = 0, j = 0;
    for (int bit = scale - 1; bit >= 0; --bit) {
      const double r = u(rng);
      if (r < a) continue;
      if (r < a + b)
        j |= Index{1} << bit;
      else if (r < a + b + c)
        i |= Index{1} << bit;
      else {
        i |= Index{1} << bit;
        j |= Index{1} << bit;
      }
    }
    const double weight = 1.0 - u(rng);  // (0, 1]
    i = perm[std::size_t(i)];
    j = perm[std::size_t(j)];
    if (i == j) continue;
    rows.push_back(i);
    cols.push_back(j);
    w.push_back(weight);
    rows.push_back(j);
    cols.push_back(i);
    w.push_back(weight);
  }
  return {Matrix::from_triplets<double>(n, n, rows, cols, w, Dup::min), m};
}

}  // namespace ringblas::test
