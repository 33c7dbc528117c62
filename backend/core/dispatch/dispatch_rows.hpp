// Helpers shared by the files that define the dispatch tables' rows
// (dispatch_tables_products.cpp, dispatch_tables_elementwise.cpp). Internal to backend/core.
#pragma once
#include <optional>

#include "backend/core/dispatch/dispatch_tables.hpp"

namespace ringblas::detail::rows {

constexpr Executor kCpu = Executor::cpu;
constexpr Executor kCuda = Executor::cuda;

/// desc with `v` forced: a row runs its own variant, whatever the caller's desc says.
inline Descriptor with_variant(const Descriptor& d, Variant v) {
  Descriptor out = d;
  out.variant = v;
  return out;
}

/// desc as the entry points of the operations added in issue 9 take it: their table row has
/// decided, and they run their one kernel for `automatic` (some reject every named variant).
inline Descriptor chosen(const Descriptor& d) { return with_variant(d, Variant::automatic); }

/// can_implement of rows that run every problem that validation lets through.
template <class P, class Out>
Reason always(const P&, const Out&) {
  return std::nullopt;
}

}  // namespace ringblas::detail::rows
