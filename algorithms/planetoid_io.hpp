// Node-classification data sets in the Planetoid layout (Yang, Cohen & Salakhutdinov, ICML 2016,
// as assembled from Kipf's tkipf/gcn files in ../shared/data/gcn/planetoid/<name>/):
//   <name>_adj.mtx[.gz]            n x n adjacency, Matrix Market (pattern or valued)
//   <name>_features.mtx[.gz]       n x f features, Matrix Market (optional)
//   <name>_labels.txt              n lines, one class id per node (0..C-1, or -1: unlabeled)
//   <name>_split_{train,val,test}.txt   0-based node ids, one per line
// Blank lines and lines starting with '#' or '%' are skipped in the text files.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ringblas/matrix.hpp"

namespace ringblas::planetoid {

struct Dataset {
  std::string name;                  ///< <name> of the files
  Matrix adjacency;                  ///< n x n, as the file says (host)
  bool has_features = false;         ///< false: no features file (the caller chooses what to use)
  Matrix features;                   ///< n x f, as the file says (host); empty without a file
  std::vector<std::int32_t> labels;  ///< size n; -1 = unlabeled
  std::int32_t classes = 0;          ///< 1 + the largest label
  std::vector<std::int32_t> train, val, test;  ///< node ids
};

/// True when `dir` holds a Planetoid data set (a *_adj.mtx or *_adj.mtx.gz file).
bool is_planetoid_dir(const std::string& dir);

/// Reads the data set in `dir`. Throws IoError naming a missing file (or more than one
/// *_adj.mtx), ParseError "file:line: reason" for a malformed line (not an integer, extra
/// fields), InvalidValue for a labels file whose line count differs from n, a non-square
/// adjacency or features whose row count differs from n, InvalidIndex "file:line" for a label
/// below -1, a split id outside 0..n-1, a split node without a label or one listed twice.
Dataset read(const std::string& dir);

}  // namespace ringblas::planetoid
