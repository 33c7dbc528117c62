// RINGBLAS_HD marks functions usable in host and device code; plain C++ sees nothing.
#pragma once
#if defined(__CUDACC__)
#define RINGBLAS_HD __host__ __device__ __forceinline__
#else
#define RINGBLAS_HD inline
#endif
