// cusparseSpMM fallback of spmm_subwarp (see cusparse_fallback.hpp).
#include <cusparse.h>

#include <mutex>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/spmm_subwarp/cusparse_fallback.hpp"
#include "ringblas/buffer.hpp"

namespace ringblas::cuda::detail {
namespace {

/// One cuSPARSE handle per thread, created on first use and deliberately never destroyed
/// (destroying it during process teardown can run after the CUDA context is gone).
cusparseHandle_t handle() {
  thread_local cusparseHandle_t h = [] {
    cusparseHandle_t x = nullptr;
    RINGBLAS_CUSPARSE_TRY(cusparseCreate(&x));
    return x;
  }();
  return h;
}

struct Descriptors {
  cusparseSpMatDescr_t a = nullptr;
  cusparseDnMatDescr_t b = nullptr, c = nullptr;
  ~Descriptors() {
    if (a) cusparseDestroySpMat(a);
    if (b) cusparseDestroyDnMat(b);
    if (c) cusparseDestroyDnMat(c);
  }
};

bool row_major(const SpmmProblem& p) {
  return p.b_cs == 1 && p.c_cs == 1 && p.b_rs >= p.n && p.c_rs >= p.n;
}
bool col_major(const SpmmProblem& p) {
  return p.b_rs == 1 && p.c_rs == 1 && p.b_cs >= p.k && p.c_cs >= p.m;
}

}  // namespace

bool cusparse_spmm_supports(const SpmmProblem& p, Type t) {
  if (t != Type::fp32 && t != Type::fp64) return false;
  if (p.nnz == 0 || !p.a_values || !p.b || p.m == 0 || p.n == 0) return false;
  return p.n >= 2 && (row_major(p) || col_major(p));
}

void cusparse_spmm(const SpmmProblem& p, Type t, Context& ctx) {
  const cudaDataType dt = t == Type::fp32 ? CUDA_R_32F : CUDA_R_64F;
  const bool row = row_major(p);
  const cusparseOrder_t order = row ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
  cusparseHandle_t h = handle();
  RINGBLAS_CUSPARSE_TRY(cusparseSetStream(h, static_cast<cudaStream_t>(ctx.stream)));
  Descriptors d;
  RINGBLAS_CUSPARSE_TRY(cusparseCreateCsr(&d.a, p.m, p.k, p.nnz, const_cast<std::int32_t*>(p.row_ptr),
                                          const_cast<std::int32_t*>(p.col_idx), const_cast<void*>(p.a_values),
                                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt));
  RINGBLAS_CUSPARSE_TRY(cusparseCreateDnMat(&d.b, p.k, p.n, row ? p.b_rs : p.b_cs, const_cast<void*>(p.b), dt, order));
  RINGBLAS_CUSPARSE_TRY(cusparseCreateDnMat(&d.c, p.m, p.n, row ? p.c_rs : p.c_cs, p.c, dt, order));
  const double one64 = 1.0, zero64 = 0.0;
  const float one32 = 1.0f, zero32 = 0.0f;
  const void* alpha = t == Type::fp32 ? static_cast<const void*>(&one32) : &one64;
  const void* beta = t == Type::fp32 ? static_cast<const void*>(&zero32) : &zero64;
  std::size_t bytes = 0;
  RINGBLAS_CUSPARSE_TRY(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                alpha, d.a, d.b, beta, d.c, dt, CUSPARSE_SPMM_ALG_DEFAULT, &bytes));
  Buffer work;
  if (bytes) work = Buffer(bytes, Location::device, &ctx);
  RINGBLAS_CUSPARSE_TRY(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, d.a,
                                     d.b, beta, d.c, dt, CUSPARSE_SPMM_ALG_DEFAULT, work.data()));
  RINGBLAS_CHECK_LAUNCH("cusparseSpMM", static_cast<cudaStream_t>(ctx.stream), ctx.debug_sync);
}

}  // namespace ringblas::cuda::detail
