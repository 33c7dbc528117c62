// spgemm_hash's table of compiled semiring x type pipelines: one row per spgemm_hash row of
// backend/cuda/manifest.def as built (can_implement.cpp fills it from the generated row list; the
// generated units cuda_inst/spgemm_hash_<semiring>.cu instantiate run_typed), searched by the
// launcher.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "backend/cuda/common/device_matrix.hpp"
#include "ringblas/codes.hpp"
#include "ringblas/types.hpp"

namespace ringblas::cuda::spgemm_hash {

/// What one run found, for the trace.
struct run_info {
  bool need_wide = false;
  std::int64_t products = 0, nnz = 0;
  int symbolic_groups = 0, numeric_groups = 0;
  std::string note;
};

/// T = A ⊕.⊗ B under the mask (A, B, mask on the device with one index type; values of the
/// semiring's type where the multiply reads them). Returns T with that index type, or sets
/// info.need_wide when 32-bit indices cannot hold the products.
using run_fn = Matrix (*)(const Matrix& A, const Matrix& B, const DeviceMask& mask,
                          std::size_t budget_bytes, const Context& ctx, run_info& info);

/// The pipeline of semiring functor S with index type I (numeric_impl.cuh defines it; the
/// manifest's units instantiate it through RINGBLAS_INSTANTIATE_SPGEMM_HASH).
template <class S, class I>
Matrix run_typed(const Matrix& A, const Matrix& B, const DeviceMask& mask,
                 std::size_t budget_bytes, const Context& ctx, run_info& info);

struct registry_row {
  std::string name;
  MonoidCode add;
  BinaryOpCode mul;
  Type type;
  run_fn run32, run64;
};

struct registry {
  std::vector<registry_row> rows;
};

}  // namespace ringblas::cuda::spgemm_hash
