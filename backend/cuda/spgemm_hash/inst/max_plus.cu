// spgemm_hash instantiations for the max_plus rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU max_plus
#include "backend/cuda/spgemm_hash/instantiate.cuh"
