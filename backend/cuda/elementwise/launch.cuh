// Host-side helpers shared by the element-wise launchers: grid sizes from the policy, the rows
// of entry tiles, the shared scan of row counts (common/scan_total.cuh), and the device
// arguments of a value map and of a value predicate.
#pragma once
#include <cstddef>

#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/common/scan_total.cuh"
#include "backend/cuda/elementwise/agent.cuh"
#include "backend/cuda/elementwise/elementwise.hpp"
#include "backend/cuda/elementwise/policy.hpp"

namespace ringblas::cuda::elementwise {

inline unsigned blocks_for(std::size_t n) { return grid_for(n, Policy::block); }

/// The rows of the tiles of `tile` entries of a CSR with `total` > 0 entries (agent.cuh
/// k_tile_rows): ceil(total / tile) + 1 values, computed on the device.
template <class I>
device_array<I> tile_rows(const I* rp, I nrows, std::size_t total, std::size_t tile,
                          const Context& ctx) {
  const std::size_t ntiles = (total + tile - 1) / tile;
  device_array<I> out(ntiles + 1, ctx);
  k_tile_rows<I><<<blocks_for(ntiles + 1), Policy::block, 0, stream_of(ctx)>>>(
      ntiles, tile, total, nrows, rp, out.data());
  RINGBLAS_CHECK_LAUNCH("k_tile_rows", stream_of(ctx), ctx.debug_sync);
  return out;
}

/// The device arguments of the value map f at V (a bound scalar cast to V with GraphBLAS's rules).
template <class V>
MapArgs<V> map_args(const MapOp& f) {
  MapArgs<V> a{int(f.kind), f.unary, f.binary, V{}, f.index_op, f.thunk};
  if (f.kind == MapOp::Kind::bind_first || f.kind == MapOp::Kind::bind_second)
    a.bound = visit_type(f.bound.type(),
                         [&](auto from) { return sr::cast<V>(f.bound.as<decltype(from)>()); });
  return a;
}

/// The device arguments of a value predicate: it compares in V, the thunk cast to V with
/// GraphBLAS's rules.
template <class V>
SelectArgs<V> select_args(SelectOpCode op, const Scalar& thunk) {
  SelectArgs<V> a{op, 0, V{}};
  a.thunk =
      visit_type(thunk.type(), [&](auto from) { return sr::cast<V>(thunk.as<decltype(from)>()); });
  return a;
}

}  // namespace ringblas::cuda::elementwise
