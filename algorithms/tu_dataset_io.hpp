// Reader of graph-classification sets in the TU layout (TUDataset, Morris et al. 2020).
//
// A folder holds, for a data set DS (each file plain or gzip, detected by its bytes):
//   DS_A.txt               m lines "i, j": an edge between 1-based global node ids (both
//                          directions listed for an undirected graph);
//   DS_graph_indicator.txt n lines: line i is the 1-based graph id of node i;
//   DS_node_labels.txt     n lines (optional): an integer label per node;
//   DS_graph_labels.txt    N lines: an integer class per graph (single-label sets: MUTAG...), or
//   DS_graph_labels.csv    a header "csv_row,task1,...,taskT" and N rows of 0/1 per task, a blank
//                          field meaning "missing" (the multi-task Tox21 copy in shared/data).
// Nodes of one graph must be consecutive and graphs numbered 1..N in order (TU files are written
// so); every edge must join two nodes of one graph. Anything else is a ParseError naming
// file:line. Edge and node attribute files are not read.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ringblas/matrix.hpp"

namespace ringblas::tu {

/// A TU data set: N graphs over n nodes, their block-diagonal adjacency and labels.
struct Dataset {
  std::string name;              ///< DS, from the file names
  Index num_nodes = 0;           ///< n
  Index num_graphs = 0;          ///< N
  std::vector<Index> graph_ptr;  ///< N+1: graph g owns nodes graph_ptr[g] .. graph_ptr[g+1]-1
  Matrix adjacency;              ///< n x n fp32 pattern (value 1), block diagonal, no duplicates
  bool symmetric = true;         ///< every edge (i, j) has its reverse (j, i)
  std::vector<std::int64_t> node_labels;  ///< n raw labels (empty: no node label file)
  /// Graph targets as N x T row-major 0/1 values, NaN where missing. A single-label file with two
  /// classes gives T = 1 (target 1 for the larger class value); with C > 2 classes, T = C
  /// one-vs-rest tasks (target 1 for the graph's class), as task_names says.
  std::vector<float> targets;
  Index num_tasks = 0;                  ///< T
  std::vector<std::string> task_names;  ///< T names (csv header, or "class=v")
};

/// The prefix DS of the TU set in `dir` (the file DS_A.txt or DS_A.txt.gz), or "" when there is
/// none. IoError when `dir` holds more than one.
std::string find_prefix(const std::string& dir);

/// Reads the TU set in `dir` (see the header comment). IoError for a missing mandatory file,
/// ParseError "file:line: reason" for malformed lines, ids out of range, an edge between two
/// graphs, a repeated edge, non-consecutive graph ids, a graph without nodes, a line count that
/// differs from the node or graph count, labels that are not 0/1 (csv).
Dataset read_dataset(const std::string& dir);

/// One-hot node features from the node labels: an n x L fp32 row-major matrix, L the number of
/// distinct labels, column c standing for the c-th smallest label. `values` (optional) receives
/// the label of each column. InvalidValue when the set has no node labels.
DenseMatrix one_hot_node_labels(const Dataset& ds, std::vector<std::int64_t>* values = nullptr);

/// The diagonal blocks of a host block-diagonal matrix, one per graph (graph g: rows and columns
/// graph_ptr[g] .. graph_ptr[g+1]-1 renumbered from 0), fp64 when `a` is fp64 and fp32 otherwise,
/// with 32-bit indices (the batched SpMM kernels' native form). InvalidValue when an entry lies
/// outside its block.
std::vector<Matrix> graph_blocks(const Matrix& a, const std::vector<Index>& graph_ptr);

}  // namespace ringblas::tu
