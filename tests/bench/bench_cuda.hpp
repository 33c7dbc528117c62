// Status checks shared by the .cu benchmark programs: a failed CUDA runtime, cuSPARSE or cuBLAS
// call throws std::runtime_error naming the call.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <stdexcept>
#include <string>

#define BENCH_CUDA(call)                                                            \
  do {                                                                              \
    cudaError_t e_ = (call);                                                        \
    if (e_ != cudaSuccess)                                                          \
      throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorString(e_)); \
  } while (0)
#define BENCH_CUSPARSE(call)                                                            \
  do {                                                                                  \
    cusparseStatus_t s_ = (call);                                                       \
    if (s_ != CUSPARSE_STATUS_SUCCESS)                                                  \
      throw std::runtime_error(std::string(#call) + ": " + cusparseGetErrorString(s_)); \
  } while (0)
#define BENCH_CUBLAS(call)                                                                     \
  do {                                                                                         \
    cublasStatus_t s_ = (call);                                                                \
    if (s_ != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(#call) + " failed"); \
  } while (0)
