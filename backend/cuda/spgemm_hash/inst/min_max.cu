// spgemm_hash instantiations for the min_max rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU min_max
#include "backend/cuda/spgemm_hash/instantiate.cuh"
