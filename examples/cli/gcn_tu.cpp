// `ringblas gcn DIR` for a DIR in TU layout (graph classification: batched GCN over many small
// graphs through mxm_batched, issue 12). The training itself is not in this build yet.
#include <filesystem>

#include "gcn_command.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cli {

bool is_tu_dir(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string f = e.path().filename().string();
    for (const std::string suffix : {"_A.txt", "_A.txt.gz"})
      if (f.size() > suffix.size() &&
          f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0)
        return true;
  }
  return false;
}

int gcn_graph_classification(const std::string& dir, const gcn::Options&, Context&) {
  throw NotImplemented("gcn: " + dir +
                       " is in TU layout (*_A.txt): graph classification (batched GCN over "
                       "mxm_batched, mean readout, masked sigmoid cross-entropy, ROC-AUC; issue "
                       "12) is not in this build yet");
}

}  // namespace ringblas::cli
