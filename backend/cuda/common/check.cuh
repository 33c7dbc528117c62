// Error checks for CUDA runtime, cuSPARSE and cuBLAS calls and kernel launches, with file:line.
#pragma once
#include <cuda_runtime.h>
#include <cusparse.h>

#include <string>

#include "ringblas/error.hpp"

namespace ringblas::cuda::detail {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_cusparse_error(cusparseStatus_t st, const char* call, const char* file,
                                       int line);
/// Checks the last launch; with ctx.debug_sync also synchronizes the stream and checks again.
void check_launch(const char* kernel, const char* file, int line, cudaStream_t stream, bool sync);

}  // namespace ringblas::cuda::detail

#define RINGBLAS_CUDA_TRY(call)                                                            \
  do {                                                                                     \
    cudaError_t rb_err_ = (call);                                                          \
    if (rb_err_ != cudaSuccess)                                                            \
      ::ringblas::cuda::detail::throw_cuda_error(rb_err_, #call, __FILE__, __LINE__);      \
  } while (0)

#define RINGBLAS_CUSPARSE_TRY(call)                                                        \
  do {                                                                                     \
    cusparseStatus_t rb_st_ = (call);                                                      \
    if (rb_st_ != CUSPARSE_STATUS_SUCCESS)                                                 \
      ::ringblas::cuda::detail::throw_cusparse_error(rb_st_, #call, __FILE__, __LINE__);   \
  } while (0)

/// After every <<<...>>> launch: RINGBLAS_CHECK_LAUNCH("kernel_name", stream, ctx.debug_sync);
#define RINGBLAS_CHECK_LAUNCH(name, stream, sync) \
  ::ringblas::cuda::detail::check_launch(name, __FILE__, __LINE__, stream, sync)
