// Builds without CUDA: device memory and every cuda entry point throw NotCompiled, and every
// kernel family's can_implement answers "built without CUDA" (the dispatch tables reference them).
#include <cstring>

#include "backend/core/containers/device_fill.hpp"
#include "backend/cuda/block_diagonal/block_diagonal.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/dense_nn/skinny_gemm.hpp"
#include "backend/cuda/index_ops/index_vectors.hpp"
#include "backend/cuda/maxk/maxk.hpp"
#include "backend/cuda/sparse_layer/sparse_layer.hpp"
#include "backend/cuda/spgemm_dot/spgemm_dot.hpp"
#include "backend/cuda/spgemm_hash/spgemm_hash.hpp"
#include "backend/cuda/spgemm_prune/spgemm_prune.hpp"
#include "backend/cuda/spmm_batched/spmm_batched.hpp"
#include "backend/cuda/spmm_subwarp/spmm_subwarp.hpp"
#include "backend/cuda/spmv/spmv.hpp"
#include "ringblas/error.hpp"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace ringblas {
namespace {
constexpr const char* kNotCompiled =
    "this ringblas was built without CUDA (nvcc was not found at configure time)";
[[noreturn]] void not_compiled(const char* what) {
  throw NotCompiled(std::string(what) + ": " + kNotCompiled);
}
}  // namespace

namespace detail {
void* device_allocate(std::size_t, const Context*) { not_compiled("device allocation"); }
void device_free(void*, void*) noexcept {}
void device_fill(void*, const void*, std::size_t, std::size_t, const Context*) {
  not_compiled("device fill");
}
void device_iota(std::int64_t*, std::size_t, const Context*) { not_compiled("device iota"); }
void copy_bytes(void* dst, Location dst_loc, const void* src, Location src_loc, std::size_t bytes,
                const Context*) {
  if (dst_loc != Location::host || src_loc != Location::host) not_compiled("device copy");
  std::memcpy(dst, src, bytes);
}
}  // namespace detail

namespace cuda {
bool device_present() { return false; }
void synchronize(const Context&) {}
#define RINGBLAS_OP(R, name, params) \
  R name params { not_compiled("cuda " #name); }
#include "backend/core/dispatch/operations.def"
#undef RINGBLAS_OP

#define RINGBLAS_CUDA_SUPPORT(name, params) \
  std::optional<std::string> can_implement_##name params { return kNotCompiled; }
#include "backend/cuda/kernel_support.def"
#undef RINGBLAS_CUDA_SUPPORT

namespace spgemm_hash {
std::optional<std::string> can_implement(const Semiring&, const Matrix&, const Matrix&,
                                         const Matrix&, Accum, const Descriptor&) {
  return kNotCompiled;
}
}  // namespace spgemm_hash
namespace index_ops {
std::optional<std::string> can_implement_sort_permutation(const Vector&) {
  return kNotCompiled;
}
void sort_permutation(Vector&, const Vector&, bool, Context&) {
  not_compiled("sort_permutation");
}
void extract_vectors(Matrix&, const Matrix*, Accum, const Matrix&, const Vector*, const Vector*,
                     const Descriptor&, Context&) {
  not_compiled("extract (index vectors)");
}
}  // namespace index_ops
namespace spgemm_dot {
std::optional<std::string> can_implement(const Semiring&, const Matrix*, const Matrix&,
                                         const Matrix&, const Descriptor&) {
  return kNotCompiled;
}
void run(Matrix&, const Matrix*, Accum, const Semiring&, const Matrix&, const Matrix&,
         const Descriptor&, Context&) {
  not_compiled("mxm (spgemm_dot)");
}
void run_hash(Matrix&, const Matrix*, Accum, const Semiring&, const Matrix&, const Matrix&,
              const Descriptor&, Context&) {
  not_compiled("mxm (spgemm_dot_hash)");
}
std::optional<EntryWork> measured_entry_work(const Matrix*, const Matrix&, const Matrix&,
                                             const Descriptor&, Context&) {
  return std::nullopt;
}
}  // namespace spgemm_dot
namespace spmm_subwarp {
std::optional<std::string> can_implement(const Semiring&, const Matrix&, const DenseMatrix&,
                                         const DenseMatrix&, const Epilogue*, const Descriptor&) {
  return kNotCompiled;
}
double relative_cost(Variant, const Matrix&, bool, Index) { return 0.0; }
}  // namespace spmm_subwarp
namespace spmm_batched {
std::optional<std::string> can_implement(const Semiring&, const Epilogue*, const Descriptor&,
                                         const std::vector<Index>&, bool) {
  return kNotCompiled;
}
}  // namespace spmm_batched
namespace spmv {
std::optional<std::string> can_implement(const Semiring&, const Matrix&) { return kNotCompiled; }
}  // namespace spmv
namespace sparse_layer {
std::string can_implement(const Semiring&, const Matrix&, const DenseMatrix&, const DenseMatrix&,
                          const Descriptor&) {
  return kNotCompiled;
}
std::optional<std::string> can_implement_chain(const LayerChainOptions&, Index) {
  return kNotCompiled;
}
DenseMatrix run_chain(const std::vector<Matrix>&, const std::vector<float>&, float,
                      const DenseMatrix&, std::vector<Index>&, const LayerChainOptions&,
                      LayerChainStats*, Context&) {
  not_compiled("mxm_layers");
}
SparseNetwork prepare_network(const std::vector<Matrix>&, const std::vector<float>&, float,
                              LayerChainStats*, const NetworkPrepareOptions&, Context&) {
  not_compiled("prepare_network");
}
std::size_t reserve_staging(Context&) { return 0; }
Matrix stage_features(const Matrix&, SparseUpload, Context&, std::size_t*, PackThreads) {
  not_compiled("stage_features");
}
std::vector<Index> run_network(const SparseNetwork&, const Matrix&, const LayerChainOptions&,
                               LayerChainStats*, DenseMatrix*, Context&) {
  not_compiled("mxm_layers");
}
}  // namespace sparse_layer
namespace dense_nn {
std::optional<std::string> can_implement_skinny_gemm(const DenseMatrix&, const DenseMatrix&,
                                                     const DenseMatrix&, double,
                                                     const Descriptor&) {
  return kNotCompiled;
}
void skinny_gemm(DenseMatrix&, double, const DenseMatrix&, const DenseMatrix&, double,
                 std::uint64_t, std::uint64_t, const Descriptor&, Context&) {
  not_compiled("gemm (skinny)");
}
}  // namespace dense_nn
namespace maxk {
std::optional<std::string> can_implement_topk(const DenseMatrix&) { return kNotCompiled; }
std::optional<std::string> can_implement_forward(const Semiring&, const Matrix&,
                                                 const DenseMatrix&, const Epilogue*,
                                                 const Descriptor&) {
  return kNotCompiled;
}
std::optional<std::string> can_implement_backward(const Semiring&, const Matrix&,
                                                  const DenseMatrix&, const Descriptor&) {
  return kNotCompiled;
}
std::optional<std::string> can_implement_densify(const DenseMatrix&) { return kNotCompiled; }
void topk(Cbsr&, const DenseMatrix&, int, Context&) { not_compiled("maxk"); }
void densify(DenseMatrix&, const Cbsr&, Context&) { not_compiled("densify"); }
void forward(DenseMatrix&, const Matrix&, const Cbsr&, const Epilogue*, const Descriptor&,
             Context&) {
  not_compiled("mxm (cbsr)");
}
void backward(Cbsr&, const Matrix&, const DenseMatrix&, const Descriptor&, Context&) {
  not_compiled("mxm (sampled cbsr)");
}
Shape forward_shape(int) { not_compiled("mxm (cbsr)"); }
Shape backward_shape(int) { not_compiled("mxm (sampled cbsr)"); }
void forward(DenseMatrix&, const Matrix&, const Cbsr&, const Epilogue*, const Descriptor&,
             Context&, const Shape&, const OutputDropout*) {
  not_compiled("mxm (cbsr)");
}
void backward(Cbsr&, const Matrix&, const DenseMatrix&, const Descriptor&, Context&,
              const Shape&) {
  not_compiled("mxm (sampled cbsr)");
}
}  // namespace maxk
Matrix block_diagonal(const std::vector<Matrix>&, const ringblas::detail::BlockLayout&, Context&) {
  not_compiled("MatrixBatch (device items)");
}
namespace spgemm_prune {
std::optional<std::string> can_implement(const Semiring&, const Matrix&, const Matrix&,
                                         const Descriptor&) {
  return kNotCompiled;
}
void run(Matrix&, const Semiring&, const Matrix&, const Matrix&, const RowPrune&, RowPruneStats*,
         const Descriptor&, Context&) {
  not_compiled("mxm_prune_rows (spgemm_prune)");
}
}  // namespace spgemm_prune
}  // namespace cuda
}  // namespace ringblas
