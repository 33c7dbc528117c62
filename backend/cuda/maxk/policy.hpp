// Tuning constants of the maxk kernel family (one place; bench_maxk measures them).
#pragma once

namespace ringblas::cuda::maxk {

struct Policy {
  /// Threads per block of every maxk kernel: 8 warps, one row per warp. Each warp of the backward
  /// kernel owns ncols floats of shared memory, of the forward forward_slots(k) times that (at
  /// most 4 KB at 256 columns: 32 KB a block).
  static constexpr int block = 256;
  static constexpr int warps = block / 32;
  /// Edges of a row loaded (coalesced, one per lane) before the lanes walk them: 32.
  static constexpr int edge_chunk = 32;
  /// Most edges the forward takes per step for small k (forward_slots): each has its own
  /// shared-memory row, so a warp holds up to 4 rows of h floats (4 KB at h = 256).
  static constexpr int forward_slots = 4;
  /// Gathers issued before their accumulations, so that up to this many CBSR loads per lane are
  /// in flight at once (memory-level parallelism on the random rows of X).
  static constexpr int unroll = 4;
  /// Longest run of edges one warp takes: longer rows (power-law hubs) are split into segments
  /// of this many edges, each its own warp, whose partial rows are added atomically
  /// (MaxK-GNN's edge groups), so that one hub row does not leave the GPU waiting on one warp.
  static constexpr int segment_edges = 1024;
  /// Blocks per SM the forward and backward kernels are compiled for (__launch_bounds__): 4
  /// caps them at 64 registers (forward<4> takes 80 unbounded: 3 blocks, 24 warps per SM);
  /// chosen from ptxas register counts, not yet measured (bench_maxk).
  static constexpr int blocks_per_sm = 4;
  /// Values per lane of the top-k kernel's row (256 columns / 32 lanes).
  static constexpr int topk_per_lane = 8;
};

}  // namespace ringblas::cuda::maxk
