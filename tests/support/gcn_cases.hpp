// Small node-classification problems for the GCN tests (cpu and gpu suites): a random
// undirected graph with a self-loop, features, labels and row subsets, made from a seed.
#pragma once
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "algorithms/gcn.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::test {

struct GcnCase {
  Matrix adjacency;  ///< n x n, symmetric, fp64 (one self-loop, some isolated nodes)
  Matrix features;   ///< n x f, fp64, about 40% of entries, one empty row
  std::vector<std::int32_t> labels, train, val, test;
  Index classes = 0;
};

inline GcnCase make_gcn_case(Index n, Index f, Index classes, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::set<std::pair<Index, Index>> edges;
  for (Index i = 0; i + 2 < n; ++i)  // the last two nodes stay isolated
    for (int k = 0; k < 2; ++k) {
      const Index j = Index(u(g) * double(n - 2));
      if (j != i) edges.insert({std::min(i, j), std::max(i, j)});
    }
  std::vector<Index> r, c;
  std::vector<double> v;
  for (const auto& [i, j] : edges) {
    r.push_back(i), c.push_back(j), v.push_back(1.0);
    r.push_back(j), c.push_back(i), v.push_back(1.0);
  }
  r.push_back(1), c.push_back(1), v.push_back(1.0);  // an existing self-loop keeps its weight
  GcnCase gc;
  gc.adjacency = Matrix::from_triplets(n, n, r, c, v);
  std::vector<Index> fr, fc;
  std::vector<double> fv;
  for (Index i = 1; i < n; ++i)  // row 0 has no features
    for (Index j = 0; j < f; ++j)
      if (u(g) < 0.4) fr.push_back(i), fc.push_back(j), fv.push_back(0.5 + u(g));
  gc.features = Matrix::from_triplets(n, f, fr, fc, fv);
  gc.classes = classes;
  for (Index i = 0; i < n; ++i) {
    gc.labels.push_back(std::int32_t(g() % std::uint64_t(classes)));
    (i % 3 == 0 ? gc.train : i % 3 == 1 ? gc.val : gc.test).push_back(std::int32_t(i));
  }
  return gc;
}

}  // namespace ringblas::test
