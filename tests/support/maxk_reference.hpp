// Naive dense references for the MaxK-GNN operations (include/ringblas/cbsr.hpp), written apart
// from both executors: selection by repeated scans, products as dense double loops.
#pragma once
#include <cstdint>
#include <vector>

#include "ringblas/cbsr.hpp"

namespace ringblas::test {

/// Row-wise top-k of a row-major n x h matrix by repeated maximum scans (ties: smaller column;
/// plain float comparison, so inputs must hold no NaN). Columns of each row ascending.
struct TopkRef {
  std::vector<float> values;
  std::vector<std::uint8_t> indices;
};
TopkRef reference_topk(const std::vector<float>& y, Index n, Index h, int k);

/// op(A) X as a dense row-major double matrix (X densified; A any type, host).
std::vector<double> reference_forward(const Matrix& A, const Cbsr& X, bool transpose_a);

/// (op(A) B)(i, idx_i[t]) for the pattern of `pattern`, in double; B row-major fp32 host.
std::vector<double> reference_sampled(const Matrix& A, const DenseMatrix& B, const Cbsr& pattern,
                                      bool transpose_a);

/// Random row-major n x h fp32 values: distinct when `ties` is false (a random permutation of
/// spaced values, so nothing is within 1e-3 of another), small integers with many ties otherwise.
std::vector<float> random_features(Index n, Index h, bool ties, std::uint64_t seed);

/// A random n x n fp32 adjacency with about `degree` entries per row and every third row empty
/// (degree-0 nodes); values in (0, 1].
Matrix random_adjacency(Index n, Index ncols, int degree, std::uint64_t seed);

/// The k the MaxK tests try for h columns: 1, 2, 8 and 32 where below h, and h itself.
inline std::vector<int> ks_for(Index h) {
  std::vector<int> out;
  for (int k : {1, 2, 8, 32})
    if (k < h) out.push_back(k);
  out.push_back(int(h));
  return out;
}

}  // namespace ringblas::test
