// spgemm_hash::can_implement and the registry of compiled pipelines (plain C++, so that the
// dispatch asks it without nvcc): the semiring as built, C's column count, the device's shared
// memory.
#include <cstdint>
#include <string>

#include "backend/cuda/common/device_props.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/spgemm_hash/policy.hpp"
#include "backend/cuda/spgemm_hash/registry_lookup.hpp"
#include "backend/cuda/spgemm_hash/spgemm_hash.hpp"
#include "ringblas/codes.hpp"
#include "ringblas_generated/cuda_manifest/spgemm_hash.hpp"

namespace ringblas::cuda::spgemm_hash {

namespace {
template <class... S>
registry make_registry(manifest::row_list<S...>) {
  registry out;
  (out.rows.push_back(registry_row{std::string(monoid_name(S::add_monoid::code)) + "_" +
                                       std::string(binary_op_name(S::mul_op::code)),
                                   S::add_monoid::code, S::mul_op::code,
                                   type_of_v<typename S::value_type>, &run_typed<S, std::int32_t>,
                                   &run_typed<S, std::int64_t>}),
   ...);
  return out;
}
}  // namespace

const registry& the_registry() {
  static const registry r = make_registry(manifest::spgemm_hash{});
  return r;
}

const registry_row* find_row(const Semiring& s) {
  if (s.is_user()) return nullptr;
  for (const auto& row : the_registry().rows)
    if (row.add == s.add && row.mul == s.mul && row.type == s.type) return &row;
  return nullptr;
}

namespace {
std::size_t needed_shared_bytes() {
  return std::size_t(policy::numeric_table(policy::num_block_bins - 1)) *
         (sizeof(double) + sizeof(int));
}
}  // namespace

std::optional<std::string> can_implement(const Semiring& s, const Matrix& A, const Matrix& B,
                                         const Matrix& C, Accum accum, const Descriptor& desc) {
  (void)A;
  (void)C;
  (void)accum;  // positional accumulators are rejected by validation
                // (backend/core/dispatch/validate.hpp)
  if (s.is_user())
    return "user-defined semiring " + s.name() + " has no compiled spgemm_hash kernel";
  if (!find_row(s)) return manifest::not_compiled(s, "spgemm_hash");
  const Index lim = Index(1) << 31;
  const Index ncols = desc.transpose_b ? B.nrows() : B.ncols();
  if (ncols >= lim - 1) return "more than 2^31 columns in C";
  if (!device_present()) return "no CUDA device";
  if (device_props(0).smem_per_block_optin < needed_shared_bytes())
    return "the device offers less than " + std::to_string(needed_shared_bytes()) +
           " bytes of shared memory per block";
  return std::nullopt;
}

}  // namespace ringblas::cuda::spgemm_hash
