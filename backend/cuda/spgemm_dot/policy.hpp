// Launch policy of the spgemm_dot kernel: 256-thread blocks, a sub-warp of 2^log_sw lanes per
// mask entry, sized to the shorter of the two rows it intersects on average (the probe list).
#pragma once

namespace ringblas::cuda::spgemm_dot {

struct Policy {
  static constexpr int block = 256;
  static constexpr int max_log_sw = 5;  // a full warp
};

/// log2 of the sub-warp: the smallest power of two >= the average probe length, at most a warp.
inline int log_subwarp(double avg_probe) {
  int l = 0;
  while ((1 << l) < avg_probe && l < Policy::max_log_sw) ++l;
  return l;
}

}  // namespace ringblas::cuda::spgemm_dot
