// How k_rows_vec splits a row's values for 16-byte loads and shares them among a group's lanes
// (host and device, so that a cpu test checks that every value is read once:
// tests/cpu/test_reduce_row_split.cpp).
#pragma once

#if defined(__CUDACC__)
#define RINGBLAS_ROW_SPLIT_HD __host__ __device__
#else
#define RINGBLAS_ROW_SPLIT_HD
#endif

namespace ringblas::cuda::reduction {

/// The aligned middle [body_begin, body_end) of a row's values [b, e): both multiples of vw (the
/// values per 16 bytes), so that with a 16-byte-aligned value array the middle is read as whole
/// 16-byte vectors. The head [b, body_begin) and the tail [body_end, e) hold fewer than vw values
/// each and are read one by one. A row inside one vector has no middle (body_begin = body_end = e:
/// all of it is the head).
template <class I>
struct row_split {
  I body_begin, body_end;
};

template <class I>
RINGBLAS_ROW_SPLIT_HD constexpr row_split<I> split_row(I b, I e, int vw) {
  const I lo = b + (I(vw) - b % I(vw)) % I(vw);  // b rounded up, without overflowing near the max
  const I hi = e - e % I(vw);                    // e rounded down
  if (lo > hi) return {e, e};
  return {lo, hi};
}

/// The head (or tail) values one lane of W reads at most: both hold fewer than VW values.
template <int W, int VW>
inline constexpr int edge_loads = (VW - 1 + W - 1) / W;

/// Lane `lane`'s share of row [b, e) among W lanes, in the order k_rows_vec loads it: first
/// scalar(k, p, in) for its head and tail slots k < 2·edge_loads (value p, read only when `in`;
/// a fixed count, so that the loads are straight-line code issued together), then vec(q, both)
/// for its middle vectors: vector q (values [q·VW, q·VW + VW)) and, when `both`, vector q + W as
/// well (two 16-byte loads in flight per lane).
template <int W, int VW, class I, class Scalar, class Vec>
RINGBLAS_ROW_SPLIT_HD void visit_lane_share(I b, I e, int lane, Scalar scalar, Vec vec) {
  constexpr int K = edge_loads<W, VW>;
  const row_split<I> s = split_row(b, e, VW);
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const I h = b + I(lane + k * W), t = s.body_end + I(lane + k * W);
    scalar(k, h, h < s.body_begin);
    scalar(K + k, t, t < e);
  }
  const I qe = s.body_end / I(VW);
  for (I q = s.body_begin / I(VW) + I(lane); q < qe; q += 2 * W) vec(q, q + W < qe);
}

}  // namespace ringblas::cuda::reduction
