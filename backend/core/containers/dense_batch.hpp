// A batch of dense matrices as one dispatch output (location, copies, comparison), for mxm_batched.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "backend/core/dispatch/compare.hpp"
#include "ringblas/context.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::detail {

struct DenseBatch {
  std::vector<DenseMatrix> items;
  /// Device when any item lives on the device (a batch is moved as a whole).
  Location location() const {
    for (const auto& c : items)
      if (c.location() == Location::device) return Location::device;
    return Location::host;
  }
  DenseBatch to(Location where, const Context& ctx) const {
    DenseBatch out;
    out.items.reserve(items.size());
    for (const auto& c : items) out.items.push_back(c.location() == where ? c : c.to(where, ctx));
    return out;
  }
};

/// The first differing item and element, e.g. "item 3: (1,2): 0.5 vs 0.25".
inline std::optional<std::string> compare(const DenseBatch& a, const DenseBatch& b,
                                          const Tolerance& tol) {
  if (a.items.size() != b.items.size())
    return "batch sizes " + std::to_string(a.items.size()) + " vs " + std::to_string(b.items.size());
  for (std::size_t k = 0; k < a.items.size(); ++k)
    if (auto d = compare(a.items[k], b.items[k], tol)) return "item " + std::to_string(k) + ": " + *d;
  return std::nullopt;
}

}  // namespace ringblas::detail
