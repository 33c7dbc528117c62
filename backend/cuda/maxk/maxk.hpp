// Entry points of the maxk kernel family (MaxK-GNN, Peng et al., ASPLOS 2024): the MaxK
// nonlinearity (topk.cu), the forward product A ⊕.⊗ X with X in CBSR (forward.cu) and the
// sampled outer-product backward (backward.cu). Plain C++: the dispatch includes it without nvcc.
#pragma once
#include <optional>
#include <string>

#include "backend/cuda/maxk/policy.hpp"
#include "ringblas/cbsr.hpp"

namespace ringblas::cuda::maxk {

/// nullopt when the family can run the problem, else why not (arguments already validated by
/// the public operation: shapes, k, the 256-column limit).
std::optional<std::string> can_implement_topk(const DenseMatrix& y);
std::optional<std::string> can_implement_forward(const Semiring& s, const Matrix& a,
                                                 const DenseMatrix& c, const Epilogue* ep,
                                                 const Descriptor& d);
std::optional<std::string> can_implement_backward(const Semiring& s, const Matrix& a,
                                                  const DenseMatrix& b, const Descriptor& d);

std::optional<std::string> can_implement_densify(const DenseMatrix& d);

/// X = maxk(Y, k); X keeps its location (reused when its shape and k already match).
void topk(Cbsr& x, const DenseMatrix& y, int k, Context& ctx);
/// D = X densified (zeros elsewhere); D keeps its location.
void densify(DenseMatrix& d, const Cbsr& x, Context& ctx);
/// How the forward and backward kernels cover CBSR rows: `vector` entries per lane (1, 2 or 4;
/// divides k) and, in the forward, at most `slots` edges per step, each with its own
/// shared-memory row (1 to 8; the backward takes 32 / (k / vector) edges per step), and `unroll`
/// steps of gathers in flight before their adds (compiled: 4 or 8 for vector 1, 2 or 4 for
/// vector 2, 1, 2 or 4 for vector 4; the backward always takes Policy::unroll).
/// one_wave: the kernels' grid is one wave of resident blocks whose warps stride over the row
/// segments (forward_shape's); false: one warp per segment (backward_shape's: measured faster
/// for the backward on a uniform graph; bench_maxk --grids compares the two). segment: the most
/// edges of a row one warp takes (longer rows are split, their parts added atomically; at least
/// 32).
struct Shape {
  int vector = 1, slots = 1, unroll = 4;
  bool one_wave = true;
  int segment = Policy::segment_edges;
};
/// The shapes forward() and backward() use for k (agent.cuh: forward_vector, forward_slots).
Shape forward_shape(int k);
Shape backward_shape(int k);

/// C = epilogue(op(A) ⊕.⊗ X) (plus_times, fp32; ep nullptr: none); C keeps its location.
void forward(DenseMatrix& c, const Matrix& a, const Cbsr& x, const Epilogue* ep,
             const Descriptor& d, Context& ctx);
/// C's values = (op(A) ⊕.⊗ B) at C's pattern (plus_times, fp32); C keeps its location.
void backward(Cbsr& c, const Matrix& a, const DenseMatrix& b, const Descriptor& d, Context& ctx);
/// The same with a given shape (bench_maxk --shapes compares them); InvalidValue for a vector
/// outside {1, 2, 4} or not dividing k, slots outside [1, 8] or an unroll not compiled.
/// `drop` (nullptr or p == 0: none) drops C as it is written (OutputDropout, cbsr.hpp).
void forward(DenseMatrix& c, const Matrix& a, const Cbsr& x, const Epilogue* ep,
             const Descriptor& d, Context& ctx, const Shape& shape,
             const OutputDropout* drop = nullptr);
void backward(Cbsr& c, const Matrix& a, const DenseMatrix& b, const Descriptor& d, Context& ctx,
              const Shape& shape);

}  // namespace ringblas::cuda::maxk
