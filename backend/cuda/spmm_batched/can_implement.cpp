// spmm_batched::can_implement (plain C++, so that the dispatch asks it without a launch).
#include <algorithm>
#include <string>

#include "backend/cuda/spmm_batched/spmm_batched.hpp"
#include "backend/cuda/spmm_subwarp/semiring_types.hpp"
#include "backend/cuda/spmm_subwarp/spmm_policy.hpp"

namespace ringblas::cuda::spmm_batched {

std::optional<std::string> can_implement(const Semiring& s, const Epilogue* ep,
                                         const Descriptor& desc, const std::vector<Index>& c_rows,
                                         bool coo) {
  if (!detail::with_spmm_semiring(s, [](auto) {}))
    return "semiring " + s.name() +
           " is not compiled for the cuda SpMM kernels "
           "(backend/cuda/spmm_subwarp/spmm_manifest.def)";
  if (s.type == Type::boolean && ep && !ep->is_identity())
    return "bias/ReLU/clamp epilogues need a numeric type";
  if (desc.transpose_b) return "B must not be transposed";
  if (desc.replace || desc.mask_complement || desc.mask_structure)
    return "a dense output takes no mask flags";
  if (coo) {
    // The same rule as the launcher (spmm_batched_entry.cu): one column of the tallest C in
    // shared memory.
    const Index max_m = c_rows.empty() ? 0 : *std::max_element(c_rows.begin(), c_rows.end());
    const long long per_col =
        static_cast<long long>(max_m) * static_cast<long long>(type_size(s.type));
    if (per_col > static_cast<long long>(detail::SpmmPolicy::coo_shared_bytes))
      return "a " + std::to_string(max_m) +
             "-row column of C does not fit the COO kernel's shared-memory tile";
  }
  return std::nullopt;
}

}  // namespace ringblas::cuda::spmm_batched
