// spgemm_hash instantiations for the min_times rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU min_times
#include "backend/cuda/spgemm_hash/instantiate.cuh"
