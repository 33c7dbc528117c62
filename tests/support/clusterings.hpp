// Clusterings for the mcl tests: reading mcl's output (one cluster per line, tab-separated
// labels) and the split/join distance between two partitions (van Dongen 2000, as `clm dist`).
#pragma once
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ringblas/io.hpp"
#include "ringblas/types.hpp"

namespace ringblas::test {

using Clustering = std::vector<std::vector<std::string>>;

/// One cluster per line, fields separated by tabs, in file order.
inline Clustering read_clustering(const std::string& path) {
  std::istringstream in(io::read_file_text(path));
  Clustering out;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::string field;
    std::istringstream fields(line);
    while (std::getline(fields, field, '\t')) c.push_back(field);
    out.push_back(std::move(c));
  }
  return out;
}

/// Index clusters written with labels (labels[i] names node i; empty: the index itself).
inline Clustering with_labels(const std::vector<std::vector<Index>>& clusters,
                              const std::vector<std::string>& labels) {
  Clustering out;
  for (const auto& c : clusters) {
    std::vector<std::string> l;
    for (Index i : c)
      l.push_back(labels.empty() ? std::to_string(i) : labels[static_cast<std::size_t>(i)]);
    out.push_back(std::move(l));
  }
  return out;
}

/// Split/join distance as `clm dist` reports it: (n - Σ_a max_b |a ∩ b|, n - Σ_b max_a |a ∩ b|);
/// their sum is the split/join distance, 0 exactly when the partitions are equal.
inline std::pair<long, long> split_join(const Clustering& a, const Clustering& b) {
  std::map<std::string, std::size_t> in_b;
  for (std::size_t k = 0; k < b.size(); ++k)
    for (const auto& x : b[k]) in_b[x] = k;
  std::map<std::pair<std::size_t, std::size_t>, long> meet;
  long n = 0;
  for (std::size_t k = 0; k < a.size(); ++k)
    for (const auto& x : a[k]) {
      ++n;
      const auto it = in_b.find(x);
      if (it != in_b.end()) ++meet[{k, it->second}];
    }
  std::vector<long> best_a(a.size(), 0), best_b(b.size(), 0);
  for (const auto& [key, m] : meet) {
    best_a[key.first] = std::max(best_a[key.first], m);
    best_b[key.second] = std::max(best_b[key.second], m);
  }
  long sa = 0, sb = 0;
  for (long v : best_a) sa += v;
  for (long v : best_b) sb += v;
  return {n - sa, n - sb};
}

}  // namespace ringblas::test
