// spgemm_hash instantiations for the max_second rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU max_second
#include "backend/cuda/spgemm_hash/instantiate.cuh"
