// spgemm_hash instantiations for the min_first rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU min_first
#include "backend/cuda/spgemm_hash/instantiate.cuh"
