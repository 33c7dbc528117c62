// Tuning constants of the maxk kernel family (one place; bench_maxk measures them).
#pragma once

namespace ringblas::cuda::maxk {

struct Policy {
  /// Threads per block of every maxk kernel: 8 warps, one row (segment) per warp. Each warp of
  /// the backward kernel owns one shared-memory row of h floats (1 KB at h = 256), of the
  /// forward forward_slots(k) of them (at most forward_slots: 32 KB a block at h = 256).
  static constexpr int block = 256;
  static constexpr int warps = block / 32;
  /// Most edges the forward takes per step: each has its own shared-memory row, so a warp holds
  /// up to 4 rows of h floats (4 KB at h = 256). k = 16 (2 floats per lane, 8 lanes per edge)
  /// uses 4, k = 32 and k = 64 use 2 (forward_vector, forward_slots in agent.cuh).
  static constexpr int forward_slots = 4;
  /// Steps of X's gathers issued before their accumulations, so that up to this many CBSR loads
  /// per lane are in flight at once (memory-level parallelism on the random rows of X).
  static constexpr int unroll = 4;
  /// With vector loads (V = 2 or 4 entries per lane) the forward issues this many floats per lane
  /// before adding: unroll_floats / V steps (registers: 72 at V = 4 with 4 steps).
  static constexpr int unroll_floats = 8;
  /// Longest run of edges one warp takes: longer rows (power-law hubs) are split into segments
  /// of this many edges, each its own warp, whose partial rows are added atomically
  /// (MaxK-GNN's edge groups), so that one hub row does not leave the GPU waiting on one warp.
  /// (the default of Shape::segment; bench_maxk --grids times others.)
  static constexpr int segment_edges = 1024;
  /// Widest atomic the backward adds with (entries per lane, the largest of 4, 2, 1 dividing k):
  /// float4 atomics (red.global.add.v4.f32).
  static constexpr int backward_vector = 4;
  /// Blocks per SM the backward kernel is compiled for (__launch_bounds__): 5 caps it at 48
  /// registers, 40 warps per SM (ptxas: 56 unbounded, spills at 40).
  static constexpr int blocks_per_sm = 5;
  /// The same for the forward with 1 or 2 entries per lane: 5 blocks, 48 registers, 40 warps
  /// per SM (ptxas: 62 at V = 2 unbounded, no spill at 48, 32 bytes spilled at 40). Its shared
  /// memory allows 6 blocks at k = 16 (32 KB a block).
  static constexpr int forward_blocks_per_sm = 5;
  /// With 4 entries per lane and at most 2 steps in flight (k = 64): 6 blocks, 40 registers,
  /// 48 warps per SM (ptxas: 48 unbounded, no spill at 40); 16 KB of shared memory a block.
  static constexpr int forward_blocks_per_sm_v4 = 6;
  /// Values per lane of the top-k kernel's row (256 columns / 32 lanes).
  static constexpr int topk_per_lane = 8;
};

}  // namespace ringblas::cuda::maxk
