// spgemm_hash instantiations for the min_plus rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU min_plus
#include "backend/cuda/spgemm_hash/instantiate.cuh"
