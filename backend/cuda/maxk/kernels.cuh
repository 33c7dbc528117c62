// The maxk family's __global__ kernels: thin wrappers that map one warp to one row and call the
// warp code of agent.cuh. Shared memory: per warp one row of RowLayout(h) (backward, densify) or
// forward_slots(k) of them (forward), none (topk).
#pragma once
#include "backend/cuda/dense_nn/dropout_mask.cuh"  // DropoutMask: nn::dropout's mask
#include "backend/cuda/maxk/agent.cuh"
#include "backend/cuda/sparse_layer/agent.cuh"  // ColumnEpilogue: bias, ReLU, clamp in fp32

namespace ringblas::cuda::maxk {

/// A warp's share of the rows: row `row`, edges [begin, end); `split` when the row has several
/// segments (their results are combined atomically), `first` for its first segment.
struct Segment {
  int row, begin, end;
  bool split, first;
};

/// Warp w's segment. Warp w < n takes row w: whole when extras == nullptr, else its first
/// `seg` edges (Shape::segment, by default Policy::segment_edges); warp n + x takes the row's
/// further segment extras listed x-th (segment_extras_kernel: extras[0] the count, extras[2 + 2x],
/// extras[3 + 2x] row and part). No search: the common warp finds its row with the two loads of rp
/// it needs anyway. False when w has no segment.
__device__ __forceinline__ bool find_segment(const int* extras, int seg, const int* rp, int n,
                                             int w, Segment& s) {
  if (w < n) {
    const int begin = rp[w], end = rp[w + 1];
    const bool split = extras && end - begin > seg;
    s = {w, begin, split ? begin + seg : end, split, true};
    return true;
  }
  if (!extras) return false;
  const int x = w - n;
  if (x >= extras[0]) return false;
  const int row = extras[2 + 2 * x], part = extras[3 + 2 * x];
  const int begin = rp[row] + part * seg;
  s = {row, begin, min(rp[row + 1], begin + seg), true, false};
  return true;
}

/// Lists the segments after the first of every row longer than `seg` edges in extras
/// (see find_segment; extras[0] zeroed before the launch, in any order: the segments' sums are
/// added atomically) and clears the h outputs of such rows in `zero` when it is set (their
/// segments add into them).
__global__ void __launch_bounds__(Policy::block)
    segment_extras_kernel(const int* rp, int n, int seg, int* extras, float* zero, int h) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const int deg = rp[r + 1] - rp[r];
  if (deg <= seg) return;
  const int parts = (deg + seg - 1) / seg;
  const int at = atomicAdd(extras, parts - 1);
  for (int p = 1; p < parts; ++p) {
    extras[2 + 2 * (at + p - 1)] = r;
    extras[3 + 2 * (at + p - 1)] = p;
  }
  if (zero)
    for (int q = 0; q < h; ++q) zero[(long long)r * h + q] = 0.0f;
}

/// X = maxk(Y, k): row r of Y (n x h, row-major, h <= 256) to k (value, column) pairs.
__global__ void __launch_bounds__(Policy::block)
    topk_kernel(const float* y, int n, int h, int k, float* vals, std::uint8_t* idx) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * Policy::warps + (threadIdx.x >> 5);
  if (row >= n) return;  // the whole warp leaves together
  warp_topk(y + (long long)row * h, h, k, lane, vals + (long long)row * k,
            idx + (long long)row * k);
}

/// D = X densified, one warp per row: the row's k entries are placed in the warp's shared-memory
/// row (RowLayout, zeroed first) and lane L writes the 8 columns 8L .. 8L+7 of D's row, zeros
/// included (16-byte stores when h % 8 == 0): one coalesced write of D, no separate clearing
/// pass and no scattered stores into it.
__global__ void __launch_bounds__(Policy::block)
    densify_kernel(const float* xv, const std::uint8_t* xi, int n, int k, int h, float* d) {
  extern __shared__ float4 smem4[];
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int row = blockIdx.x * Policy::warps + w;
  if (row >= n) return;  // the whole warp leaves together
  const RowLayout lay(h);
  float* buf = reinterpret_cast<float*>(smem4) + w * lay.size();
  if (lane < lay.g)
#pragma unroll
    for (int m = 0; m < 8; ++m) buf[m * lay.g + lane] = 0.0f;
  __syncwarp();
  for (int t = lane; t < k; t += 32)
    buf[lay.at(xi[(long long)row * k + t])] = xv[(long long)row * k + t];  // distinct columns
  __syncwarp();
  if (lane >= lay.g) return;
  float x[8];
#pragma unroll
  for (int m = 0; m < 8; ++m) x[m] = buf[m * lay.g + lane];
  store_row8(d + (long long)row * h + 8 * lane, x, h, 8 * lane);
}

/// The output dropout of the rows the forward split (more than `seg` edges):
/// their segments add into C atomically, so their mask is applied after the forward, in place (a
/// thread per row of A; the other rows were dropped as they were written).
__global__ void __launch_bounds__(Policy::block)
    drop_split_rows_kernel(const int* rp, int n, int seg, float* c, int h,
                           dense_nn::DropoutMask drop) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n || rp[r + 1] - rp[r] <= seg) return;
  const std::uint64_t base = std::uint64_t(r) * std::uint64_t(h);
  for (int q = 0; q < h; ++q) c[base + q] = drop(c[base + q], base + q);
}

/// C(row, :) = Σ_j A(row, j) X(j, :) for one segment of a row: A in CSR (int32), X in CBSR, C
/// dense n x h row-major. Shared memory: `slots` rows (RowLayout; forward_slots(k, V, cap)) of this
/// warp, summed at the end by lane L for its 8 columns 8L .. 8L+7 (16-byte stores when h % 8 ==
/// 0). A split row's segments add their partial rows (the first with the bias) into C, zeroed by
/// segment_extras_kernel; only a bias epilogue may split (the launcher passes extras == nullptr
/// for ReLU or clamp). `drop` drops each written value (mask index row·h + column); a split row's
/// are dropped by drop_split_rows_kernel.
template <int V, bool Wide, int U>
__device__ __forceinline__ void forward_segment(const Segment& sg, const int* col, const float* av,
                                                const float* xv, const std::uint8_t* xi, int k,
                                                int slots, int h, float* c,
                                                const sparse_layer::ColumnEpilogue& epi,
                                                const dense_nn::DropoutMask& drop, float* buf,
                                                int lane) {
  const RowLayout lay(h);
  // A row of fewer edges than slots uses one slot per edge: short rows (most rows of a
  // power-law graph) clear and sum fewer shared-memory rows.
  slots = max(1, min(slots, sg.end - sg.begin));
  float4* buf4 = reinterpret_cast<float4*>(buf);  // size() is a multiple of 8 floats
  __syncwarp();                                   // the previous segment's sums have read buf
  for (int q = lane; q < slots * lay.size() / 4; q += 32) buf4[q] = make_float4(0, 0, 0, 0);
  __syncwarp();
  if (k > 0 && sg.begin < sg.end)
    warp_forward_row<V, Wide, U>(col, av, sg.begin, sg.end, xv, xi, k, slots, lay, buf, lane);
  __syncwarp();
  if (lane >= lay.g) return;
  float x[8];
#pragma unroll
  for (int m = 0; m < 8; ++m) {
    x[m] = buf[m * lay.g + lane];
    for (int s = 1; s < slots; ++s) x[m] += buf[s * lay.size() + m * lay.g + lane];
  }
  float* out = c + (long long)sg.row * h + 8 * lane;
  const int c0 = 8 * lane;
  if (sg.split) {
#pragma unroll
    for (int m = 0; m < 8; ++m)
      if (c0 + m < h) atomicAdd(out + m, x[m] + (sg.first && epi.bias ? epi.bias[c0 + m] : 0.0f));
  } else {
    const std::uint64_t at = std::uint64_t(sg.row) * std::uint64_t(h) + std::uint64_t(c0);
#pragma unroll
    for (int m = 0; m < 8; ++m)
      if (c0 + m < h) x[m] = drop(epi(x[m], sg.row, c0 + m), at + m);  // the bias has h entries
    store_row8(out, x, h, c0);
  }
}

/// The forward over every segment (forward_segment), a warp at a time, grid-stride: the grid is
/// one wave of resident blocks and each warp takes the segments w, w + W, w + 2W, ... (W warps
/// in the grid). One block per 8 rows left a block resident until its longest row was done: on a
/// power-law graph the rows of a block differ by orders of magnitude, so most of an SM's warps
/// sat finished (a simulation of the 1M-node R-MAT graph: 3x the warp time the work needs). V =
/// forward_vector(k), Wide = k / V > 32, U steps of gathers in flight (forward_unroll; unused when
/// Wide); k == 0 runs with V = 1 and writes the epilogue of 0.
template <int V, bool Wide, int U>
__global__ void __launch_bounds__(Policy::block, V == 4 && U <= 2 ? Policy::forward_blocks_per_sm_v4
                                                                  : Policy::forward_blocks_per_sm)
    forward_kernel(const int* rp, const int* col, const float* av, int n, const int* extras,
                   int seg, const float* xv, const std::uint8_t* xi, int k, int slots, int h,
                   float* c, sparse_layer::ColumnEpilogue epi, dense_nn::DropoutMask drop) {
  extern __shared__ float4 smem4[];
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  float* buf = reinterpret_cast<float*>(smem4) + w * slots * RowLayout(h).size();
  const int stride = gridDim.x * Policy::warps;
  Segment sg;
  for (int s = blockIdx.x * Policy::warps + w; find_segment(extras, seg, rp, n, s, sg); s += stride)
    forward_segment<V, Wide, U>(sg, col, av, xv, xi, k, slots, h, c, epi, drop, buf, lane);
}

/// C(j, t) += A(row, j) B(row, idx_j[t]) for every edge of row `row` of A (CSR, int32); B dense
/// n x h row-major, staged in shared memory (RowLayout) by lane L for its columns 8L .. 8L+7;
/// C's values zeroed before the launch. V in {1, 2, 4} divides k; Wide = k / V > 32. Grid-stride
/// over the segments as forward_kernel.
template <int V, bool Wide>
__global__ void __launch_bounds__(Policy::block, Policy::blocks_per_sm)
    backward_kernel(const int* rp, const int* col, const float* av, int n, const int* extras,
                    int seg, const float* b, int h, const std::uint8_t* ci, int k, float* cv) {
  extern __shared__ float4 smem4[];
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const RowLayout lay(h);
  float* buf = reinterpret_cast<float*>(smem4) + w * lay.size();
  const int stride = gridDim.x * Policy::warps;
  Segment sg;
  for (int s = blockIdx.x * Policy::warps + w; find_segment(extras, seg, rp, n, s, sg);
       s += stride) {
    if (sg.begin == sg.end) continue;
    __syncwarp();  // the previous segment's edges have read buf
    if (lane < lay.g) {
      float x[8];
      load_row8(b + (long long)sg.row * h + 8 * lane, x, h, 8 * lane);
#pragma unroll
      for (int m = 0; m < 8; ++m) buf[m * lay.g + lane] = x[m];
    }
    __syncwarp();
    warp_backward_row<V, Wide>(col, av, sg.begin, sg.end, ci, k, lay, buf, cv, lane);
  }
}

}  // namespace ringblas::cuda::maxk
