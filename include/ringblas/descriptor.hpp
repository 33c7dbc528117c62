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
/// benchmarks. `automatic` lets dispatch choose by cost.
enum class Variant : std::uint8_t {
  automatic, suitesparse, spgemm_hash, spmm_subwarp, spmm_subwarp_coo, spmm_batched,
  spmm_batched_coo, spmv_pull, spmv_push, sparse_layer, maxk
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
