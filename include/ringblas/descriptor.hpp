// Descriptor (GraphBLAS GrB_Descriptor), accumulator, scalars and index lists for operations.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ringblas/codes.hpp"
#include "ringblas/types.hpp"

namespace ringblas {

/// Kernel variants; the same name is used by the backend folder, the trace, the tests and the
/// benchmarks. `automatic` lets dispatch choose by cost. `elementwise` (ewise_add, ewise_mult,
/// apply, select, kronecker), `reduce`, `transpose`, `extract` and `assign` name the cuda kernels
/// of those operations; `row_filter` is the element-wise family's two-pass row filter (select by
/// value; apply masked by A itself into an empty C), forced only for now (`ringblas kernels`
/// lists every operation's variants).
enum class Variant : std::uint8_t {
  automatic, suitesparse, spgemm_hash, spmm_subwarp, spmm_subwarp_coo, spmm_batched,
  spmm_batched_coo, spmv_pull, spmv_push, sparse_layer, maxk, elementwise, reduce, transpose,
  extract, assign, spmm_rowsplit, spgemm_dot, host_dense, cublas, dense_nn, spgemm_dot_hash,
  sort, spgemm_prune, row_filter
};
std::string_view variant_name(Variant v);
Variant parse_variant(std::string_view name);

struct Descriptor {
  bool replace = false;          ///< GrB_REPLACE: clear C outside the mask
  bool mask_structure = false;   ///< GrB_STRUCTURE: any mask entry counts, whatever its value
  bool mask_complement = false;  ///< GrB_COMP
  bool transpose_a = false;      ///< GrB_INP0 = GrB_TRAN
  bool transpose_b = false;      ///< GrB_INP1 = GrB_TRAN
  Variant variant = Variant::automatic;  ///< force one kernel variant (NotImplemented if it can't)
};

/// Accumulator z = accum(C, T) applied where C and T both have entries; nullopt = no accumulator.
using Accum = std::optional<BinaryOpCode>;
inline constexpr std::nullopt_t no_accum = std::nullopt;

class DenseVector;

/// Epilogue of a dense-output product, applied to every element of C after the ⊕-reduction:
/// C(i,j) = clamp(f(C(i,j) + bias(j))): bias adds the bias vector's element j (bias and
/// bias_relu; size = C's columns), relu takes max(x, 0) (relu and bias_relu), and a clamp, when
/// set, takes min(x, clamp) last. Arithmetic is the semiring's type; bool results reject every
/// kind but identity (NotImplemented). No default constructor, so that `{}` keeps meaning a
/// Descriptor in the mxm overloads: use Epilogue::none(), relu(), bias_add(b), bias_relu(b).
enum class EpilogueKind : std::uint8_t { identity, bias, relu, bias_relu };
struct Epilogue {
  explicit Epilogue(EpilogueKind k, const DenseVector* b = nullptr,
                    std::optional<double> c = std::nullopt)
      : kind(k), bias(b), clamp(c) {}
  static Epilogue none() { return Epilogue(EpilogueKind::identity); }
  static Epilogue relu() { return Epilogue(EpilogueKind::relu); }
  static Epilogue bias_add(const DenseVector& b) { return Epilogue(EpilogueKind::bias, &b); }
  static Epilogue bias_relu(const DenseVector& b) { return Epilogue(EpilogueKind::bias_relu, &b); }
  bool has_bias() const { return kind == EpilogueKind::bias || kind == EpilogueKind::bias_relu; }
  bool has_relu() const { return kind == EpilogueKind::relu || kind == EpilogueKind::bias_relu; }
  bool is_identity() const { return kind == EpilogueKind::identity && !clamp; }

  EpilogueKind kind;
  const DenseVector* bias;      ///< required by bias and bias_relu; host or device
  std::optional<double> clamp;  ///< upper clamp applied last (Graph Challenge DNN: 32)
};

/// A typed scalar (thunks, bound operands, reduction results).
class Scalar {
 public:
  Scalar() : v_(0.0) {}
  template <class T> Scalar(T v) : v_(v) {}  // NOLINT: implicit by design
  Type type() const;
  /// The value converted to T (GraphBLAS typecast).
  template <class T> T as() const {
    return std::visit([](auto x) { return static_cast<T>(x); }, v_);
  }

 private:
  std::variant<bool, std::int32_t, std::int64_t, float, double> v_;
};

/// Row or column index list for extract/assign; Indices::all() selects every index (GrB_ALL).
struct Indices {
  std::vector<Index> list;
  bool all_ = false;
  static Indices all() { return Indices{{}, true}; }
  Index count(Index n) const { return all_ ? n : static_cast<Index>(list.size()); }
  Index operator()(Index k) const { return all_ ? k : list[static_cast<std::size_t>(k)]; }
};

}  // namespace ringblas
