// spgemm_hash instantiations for the min_second rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU min_second
#include "backend/cuda/spgemm_hash/instantiate.cuh"
