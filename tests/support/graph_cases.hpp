// Graphs shared by the algorithm tests (cpu and gpu): tiny hand-made cases, the shared data
// files, and adjacency lists for the independent plain C++ implementations in the tests.
#pragma once
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "ringblas/ringblas.hpp"

namespace ringblas::test {

/// One weighted directed edge i -> j.
struct Edge {
  Index from, to;
  double weight = 1.0;
};

/// n x n fp64 graph from directed edges (both directions when `undirected`).
inline Matrix graph_of(Index n, const std::vector<Edge>& edges, bool undirected) {
  std::vector<Index> r, c;
  std::vector<double> w;
  for (const Edge& e : edges) {
    r.push_back(e.from);
    c.push_back(e.to);
    w.push_back(e.weight);
    if (undirected && e.from != e.to) {
      r.push_back(e.to);
      c.push_back(e.from);
      w.push_back(e.weight);
    }
  }
  return Matrix::from_triplets<double>(n, n, r, c, w, Dup::min);
}

/// Out-neighbours and weights of each vertex, read from a host CSR matrix.
struct Adjacency {
  std::vector<std::vector<std::pair<Index, double>>> out;
  Index n() const { return Index(out.size()); }
};
inline Adjacency adjacency_of(const Matrix& a) {
  const Matrix h = a.cast(Type::fp64);
  const std::vector<Index> rp = h.row_ptr_vector(), ci = h.col_idx_vector();
  const std::vector<double> v = h.values_vector<double>();
  Adjacency adj;
  adj.out.resize(static_cast<std::size_t>(h.nrows()));
  for (Index i = 0; i < h.nrows(); ++i)
    for (Index p = rp[i]; p < rp[i + 1]; ++p) adj.out[i].push_back({ci[p], v[p]});
  return adj;
}

inline std::string data_path(const std::string& rel) {
  return std::string(RINGBLAS_DATA_DIR) + "/" + rel;
}
inline bool data_present(const std::string& rel) { return std::filesystem::exists(data_path(rel)); }

/// A shared graph file (Matrix Market or SNAP, see io::read_graph) as fp64, undirected ones
/// expanded to both triangles.
inline Matrix load_shared_graph(const std::string& rel) {
  return io::read_graph(data_path(rel)).cast(Type::fp64);
}

/// Dense host copy of a vector: `missing` where v has no entry.
template <class T>
std::vector<T> dense_of(const Vector& v, T missing, Context& ctx) {
  const Vector h = v.location() == Location::host ? v : v.to(Location::host, ctx);
  std::vector<T> out(static_cast<std::size_t>(h.size()), missing);
  const std::vector<Index> idx = h.indices_vector();
  const std::vector<T> val = h.template values_vector<T>();
  for (std::size_t k = 0; k < idx.size(); ++k) out[static_cast<std::size_t>(idx[k])] = val[k];
  return out;
}

/// The graphs every algorithm test runs on: name and path under RINGBLAS_DATA_DIR.
inline const std::vector<std::string>& shared_graph_files() {
  static const std::vector<std::string> files = {
      "suitesparse/karate.mtx",   "suitesparse/jazz.mtx",          "suitesparse/Erdos971.mtx",
      "suitesparse/dwt_1005.mtx", "snap/facebook_combined.txt.gz", "snap/CA-HepTh.txt.gz"};
  return files;
}

}  // namespace ringblas::test
