// Turns CUDA and cuSPARSE failures into ringblas exceptions naming the call and its place.
#include "backend/cuda/common/check.cuh"

namespace ringblas::cuda::detail {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  std::string msg = std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                    cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the sticky-free allocation error so later calls work
    throw OutOfMemory(msg, 0);
  }
  throw CudaError(msg);
}

void throw_cusparse_error(cusparseStatus_t st, const char* call, const char* file, int line) {
  std::string msg = std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                    cusparseGetErrorName(st) + " (" + cusparseGetErrorString(st) + ")";
  if (st == CUSPARSE_STATUS_ALLOC_FAILED) throw OutOfMemory(msg, 0);
  throw CudaError(msg);
}

void check_launch(const char* kernel, const char* file, int line, cudaStream_t stream, bool sync) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess && sync) err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess) throw_cuda_error(err, kernel, file, line);
}

}  // namespace ringblas::cuda::detail
