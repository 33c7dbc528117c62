// cuda gemm (include/ringblas/nn.hpp, variant cublas): C = alpha·op(A)·op(B) + beta·C on row-major
// fp32 data through cublasSgemm, which is column-major: a row-major M is the column-major Mᵀ, so
// the call computes Cᵀ = op(B)ᵀ·op(A)ᵀ with the operands swapped. FP32 math (no TF32: the cpu
// path and PyTorch's default compute in full fp32). One cuBLAS handle per host thread and device,
// created on first use and bound to ctx.stream on every call.
// cuBLAS is loaded on first use (dlopen), not linked: loading it initialises cuBLASLt, which costs
// every program that links ringblas about 210 MiB of resident memory and 70 ms at start, whether
// it multiplies dense matrices or not.
#include <cublas_v2.h>
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <string>

#include "backend/cuda/common/check.cuh"
#include "backend/cuda/common/device_array.cuh"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/dense_nn/operand.hpp"

namespace ringblas::cuda {
namespace {

#define RINGBLAS_STR2(x) #x
#define RINGBLAS_STR(x) RINGBLAS_STR2(x)

/// The cuBLAS entry points used here, resolved from the library on first use.
struct CublasApi {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  decltype(&cublasSscal_v2) sscal = nullptr;
  decltype(&cublasGetStatusName) status_name = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
};

const CublasApi& cublas() {
  static CublasApi api;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    // The toolkit's own library first (its path at build time), then the loader's search path.
    const char* names[] = {
#if defined(RINGBLAS_CUBLAS_LIBRARY)
      RINGBLAS_CUBLAS_LIBRARY,
#endif
      "libcublas.so." RINGBLAS_STR(CUBLAS_VER_MAJOR),
      "libcublas.so"
    };
    void* h = nullptr;
    for (const char* n : names)
      if ((h = dlopen(n, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (!h) {
      const char* why = dlerror();
      error = std::string("cuBLAS (libcublas.so." RINGBLAS_STR(
                  CUBLAS_VER_MAJOR) ") could not be loaded: ") +
              (why ? why : "not found");
      return;
    }
    auto get = [&](auto& fn, const char* sym) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, sym));
      if (!fn && error.empty()) error = std::string("cuBLAS has no ") + sym;
    };
    get(api.create, "cublasCreate_v2");
    get(api.set_stream, "cublasSetStream_v2");
    get(api.sgemm, "cublasSgemm_v2");
    get(api.sscal, "cublasSscal_v2");
    get(api.status_name, "cublasGetStatusName");
    get(api.status_string, "cublasGetStatusString");
  });
  if (!error.empty()) throw CudaError("cuda gemm: " + error);
  return api;
}

void check_cublas(cublasStatus_t st, const char* call, int line) {
  if (st == CUBLAS_STATUS_SUCCESS) return;
  const std::string msg = std::string(__FILE__) + ":" + std::to_string(line) + ": " + call + ": " +
                          cublas().status_name(st) + " (" + cublas().status_string(st) + ")";
  if (st == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemory(msg, 0);
  throw CudaError(msg);
}
#define RINGBLAS_CUBLAS_TRY(call) check_cublas((call), #call, __LINE__)

/// The calling thread's handle for the current device. Handles are never destroyed: destroying
/// them from static destructors races the CUDA runtime's own teardown at exit.
cublasHandle_t handle_for(const Context& ctx) {
  thread_local std::map<int, cublasHandle_t> handles;
  int device = 0;
  RINGBLAS_CUDA_TRY(cudaGetDevice(&device));
  auto it = handles.find(device);
  if (it == handles.end()) {
    cublasHandle_t h = nullptr;
    RINGBLAS_CUBLAS_TRY(cublas().create(&h));
    it = handles.emplace(device, h).first;
  }
  RINGBLAS_CUBLAS_TRY(cublas().set_stream(it->second, stream_of(ctx)));
  return it->second;
}

}  // namespace

void gemm(DenseMatrix& C, double alpha, const DenseMatrix& A, const DenseMatrix& B, double beta,
          const Descriptor& desc, Context& ctx) {
  dense_nn::make_resident(C, ctx);
  const int m = int(C.nrows()), n = int(C.ncols());
  const int k = int(desc.transpose_a ? A.nrows() : A.ncols());
  if (m == 0 || n == 0) return;
  float* c = C.values().as<float>();
  cublasHandle_t h = handle_for(ctx);
  if (k == 0) {  // C = beta·C; cuBLAS wants lda >= 1 even then
    if (beta == 0.0)
      RINGBLAS_CUDA_TRY(cudaMemsetAsync(c, 0, C.values().size(), stream_of(ctx)));
    else {
      const float b = float(beta);
      RINGBLAS_CUBLAS_TRY(cublas().sscal(h, m * n, &b, c, 1));
    }
    return;
  }
  Buffer hold_a, hold_b;
  const float* a = static_cast<const float*>(dense_nn::device_values(A, hold_a, ctx));
  const float* b = static_cast<const float*>(dense_nn::device_values(B, hold_b, ctx));
  const float al = float(alpha), be = float(beta);
  const cublasOperation_t op_a = desc.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = desc.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  RINGBLAS_CUBLAS_TRY(
      cublas().sgemm(h, op_b, op_a, n, m, k, &al, b, int(B.ncols()), a, int(A.ncols()), &be, c, n));
  if (ctx.debug_sync) RINGBLAS_CUDA_TRY(cudaStreamSynchronize(stream_of(ctx)));
}

void dropout_gemm(DenseMatrix& C, double alpha, const DenseMatrix& A, const DenseMatrix& B,
                  double p, std::uint64_t seed, std::uint64_t stream, const Descriptor& desc,
                  Context& ctx) {
  if (p == 0.0) return gemm(C, alpha, A, B, 0.0, desc, ctx);
  DenseMatrix dropped = DenseMatrix::from_buffer(A.nrows(), A.ncols(), A.type(), Layout::row_major,
                                                 Buffer(A.values().size(), Location::device, &ctx));
  dropout(dropped, &A, p, seed, stream, ctx);
  gemm(C, alpha, dropped, B, 0.0, desc, ctx);
}

}  // namespace ringblas::cuda
