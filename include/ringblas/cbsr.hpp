// CBSR (compressed balanced sparse row) features and the MaxK-GNN operations on them: the MaxK
// nonlinearity, the forward product A ⊕.⊗ X with X in CBSR, and the sampled backward product.
//
// MaxK-GNN (Peng et al., ASPLOS 2024) keeps only the k largest entries of every row of a hidden
// feature matrix; CBSR stores such a matrix as exactly k (value, column) pairs per row, with 8-bit
// column indices. Invariants of Cbsr: within each row the k column indices are strictly increasing
// (sorted, distinct) and below ncols; ncols <= 256 (8-bit indices); 0 <= k <= ncols. Values are
// fp32. Row i's pairs are values[i*k + t], indices[i*k + t], t = 0..k-1.
#pragma once
#include <cstdint>
#include <vector>

#include "ringblas/buffer.hpp"
#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/matrix.hpp"
#include "ringblas/ops.hpp"
#include "ringblas/semiring.hpp"

namespace ringblas {

/// Largest number of columns a CBSR matrix can have (its column indices are 8-bit).
inline constexpr Index kCbsrMaxColumns = 256;

class Cbsr {
 public:
  /// 0x0 with k = 0, on the host.
  Cbsr() = default;
  /// nrows x ncols with k entries per row at columns 0..k-1, values 0, at `where`. Throws
  /// NotImplemented for ncols > 256 and InvalidValue for k outside [0, ncols].
  Cbsr(Index nrows, Index ncols, int k, Location where = Location::host,
       const Context* ctx = nullptr);
  /// From host arrays (nrows*k each); throws InvalidValue/InvalidIndex naming the first broken
  /// invariant.
  static Cbsr from_host(Index nrows, Index ncols, int k, const std::vector<float>& values,
                        const std::vector<std::uint8_t>& indices);
  /// Adopts buffers (host or device, both at one location) without validating their contents.
  static Cbsr from_buffers(Index nrows, Index ncols, int k, Buffer values, Buffer indices);

  Index nrows() const { return nrows_; }
  Index ncols() const { return ncols_; }
  int k() const { return k_; }
  Index nnz() const { return nrows_ * k_; }
  Type type() const { return Type::fp32; }
  Location location() const { return values_.location(); }
  Buffer& values() { return values_; }
  Buffer& indices() { return indices_; }
  const Buffer& values() const { return values_; }
  const Buffer& indices() const { return indices_; }

  /// Explicit deep copy to `where` (counted in ctx.transfers when it crosses host<->device).
  Cbsr to(Location where, const Context& ctx) const;
  /// Host only: copies of the arrays.
  std::vector<float> values_vector() const;
  std::vector<std::uint8_t> indices_vector() const;
  /// Host only: the same matrix as CSR (fp32, k entries per row) and as a dense row-major matrix.
  Matrix to_sparse() const;
  DenseMatrix to_dense() const;
  /// Host only: throws InvalidValue/InvalidIndex naming the first violated invariant.
  void check_invariants() const;

 private:
  Index nrows_ = 0, ncols_ = 0;
  int k_ = 0;
  Buffer values_, indices_;
};

/// MaxK nonlinearity (MaxK-GNN): X = maxk(Y, k), for every row i the k largest Y(i, j) by value,
/// ties taken at the smaller column, stored in X (overwritten; nrows x ncols of Y, k per row;
/// X keeps its location). Values are ordered as IEEE-754 totalOrder orders them (-0 < +0; a NaN
/// with the sign bit clear above +inf, one with it set below -inf), identically on every executor.
/// Y: dense fp32 (NotImplemented otherwise), ncols <= 256 (NotImplemented naming the 8-bit CBSR
/// limit). Throws InvalidValue for k outside [1, ncols]. desc.variant may force maxk.
void maxk(Cbsr& X, const DenseMatrix& Y, int k, const Descriptor& desc = {},
          Context& ctx = default_context());

/// D = X as a dense matrix: X's entries at their columns, 0 elsewhere. D (nrows x ncols of X,
/// fp32; DimensionMismatch otherwise) is overwritten and keeps its location and layout. The
/// gradient of maxk with respect to its input is the sampled gradient densified this way. Throws
/// NotImplemented for another D type.
void densify(DenseMatrix& D, const Cbsr& X, const Descriptor& desc = {},
             Context& ctx = default_context());

/// MaxK-GNN forward aggregation: C = op(A) ⊕.⊗ X with X in CBSR and C dense (overwritten; keeps
/// its location), op(A) = Aᵀ with desc.transpose_a. Semiring plus_times over fp32 (A's values
/// cast to fp32); C fp32. Throws DimensionMismatch, NotImplemented for another semiring, another
/// C type, desc.transpose_b or mask flags.
void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const Cbsr& X,
         const Descriptor& desc = {}, Context& ctx = default_context());
/// The same with a fused epilogue: C = epilogue(op(A) ⊕.⊗ X) (see Epilogue; the MaxK-GCN layer
/// adds its bias here). Throws InvalidValue when the bias is missing or its size differs from
/// C's columns.
void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const Cbsr& X, const Epilogue& ep,
         const Descriptor& desc = {}, Context& ctx = default_context());

/// Inverted dropout applied to a product's output as it is written, with nn::dropout's mask and
/// scale (include/ringblas/nn.hpp: element index i·ncols + j under (seed, stream)); p == 0: none.
struct OutputDropout {
  double p = 0;
  std::uint64_t seed = 0, stream = 0;
};
/// The MaxK-GCN hidden layer's forward in one pass: C = dropout(epilogue(op(A) ⊕.⊗ X); p, seed,
/// stream), equal to the mxm above followed by nn::dropout(C, p, seed, stream) without a second
/// pass over C (the next layer's transform then reads C as it is; its backward draws the same mask
/// again: nn::dense_layer_backward with x_dropped). Throws InvalidValue for p outside [0, 1), and
/// as the mxm above.
void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const Cbsr& X, const Epilogue& ep,
         const OutputDropout& drop, const Descriptor& desc = {}, Context& ctx = default_context());

/// MaxK-GNN backward (sampled product, SSpMM): C(i, j) = (op(A) ⊕.⊗ B)(i, j) for the k positions
/// (i, j) of C's own pattern, which is kept; only C's values are overwritten. The gradient of the
/// MaxK features H = maxk(·) through Y = A ⊕.⊗ H is mxm(dH, s, A, dY, transpose_a) with dH a copy
/// of H. Semiring plus_times over fp32; B dense fp32. Throws DimensionMismatch, NotImplemented
/// for another semiring or type, desc.transpose_b or mask flags.
void mxm(Cbsr& C, const Semiring& s, const Matrix& A, const DenseMatrix& B,
         const Descriptor& desc = {}, Context& ctx = default_context());

}  // namespace ringblas
