// `ringblas gcn`: the two data layouts it trains on. Planetoid (node classification) is
// cmd_gcn.cpp; TU (graph classification over many small graphs) is gcn_tu.cpp.
#pragma once
#include <string>

#include "algorithms/gcn.hpp"
#include "ringblas/context.hpp"

namespace ringblas::cli {

/// True when DIR holds a TU data set (a *_A.txt or *_A.txt.gz file).
bool is_tu_dir(const std::string& dir);

/// Graph classification on the TU data set in `dir` with the command line's model options;
/// prints its progress and the mean test ROC-AUC; returns the exit code.
int gcn_graph_classification(const std::string& dir, const gcn::Options& options, Context& ctx);

}  // namespace ringblas::cli
