// spmm_batched::can_implement (plain C++, so that the dispatch asks it without a launch).
#include <algorithm>
#include <string>

#include "backend/cuda/spmm_batched/spmm_batched.hpp"
#include "backend/cuda/spmm_subwarp/semiring_types.hpp"
#include "backend/cuda/spmm_subwarp/spmm_policy.hpp"
#include "backend/cuda/spmm_subwarp/spmm_subwarp.hpp"

namespace ringblas::cuda::spmm_batched {

std::optional<std::string> can_implement(const Semiring& s, const Epilogue* ep,
                                         const Descriptor& desc, const std::vector<Index>& c_rows,
                                         bool coo) {
  if (!manifest::compiled<manifest::spmm_batched>(s))
    return manifest::not_compiled(s, "spmm_batched");
  if (auto why = spmm_subwarp::operand_support(s, ep, desc)) return why;
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
