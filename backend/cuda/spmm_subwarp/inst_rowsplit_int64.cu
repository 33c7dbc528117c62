// Instantiates the spmm_rowsplit launcher for the int64 semirings of the spmm manifest (one unit per type).
#include "backend/cuda/spmm_subwarp/semiring_types.hpp"
#include "backend/cuda/spmm_subwarp/spmm_rowsplit_impl.cuh"

#define RINGBLAS_PICK_boolean(M, O)
#define RINGBLAS_PICK_int32(M, O)
#define RINGBLAS_PICK_int64(M, O) RINGBLAS_INSTANTIATE_SPMM_ROWSPLIT(RINGBLAS_SEMIRING_T(M, O, int64))
#define RINGBLAS_PICK_fp32(M, O)
#define RINGBLAS_PICK_fp64(M, O)
#define RINGBLAS_SPMM_SEMIRING(M, O, TY) RINGBLAS_PICK_##TY(M, O)
#include "backend/cuda/spmm_subwarp/spmm_manifest.def"
