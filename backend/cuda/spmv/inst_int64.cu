// Instantiates the spmv launchers for the int64 semirings of the spmv manifest (one unit per type).
#include "backend/cuda/spmm_subwarp/semiring_types.hpp"
#include "backend/cuda/spmv/spmv_impl.cuh"

#define RINGBLAS_PICK_boolean(M, O)
#define RINGBLAS_PICK_int32(M, O)
#define RINGBLAS_PICK_int64(M, O) RINGBLAS_INSTANTIATE_SPMV(RINGBLAS_SEMIRING_T(M, O, int64))
#define RINGBLAS_PICK_fp32(M, O)
#define RINGBLAS_PICK_fp64(M, O)
#define RINGBLAS_SPMV_SEMIRING(M, O, TY) RINGBLAS_PICK_##TY(M, O)
#include "backend/cuda/spmv/spmv_manifest.def"
