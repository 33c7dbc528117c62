// spgemm_hash instantiations for the max_times rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU max_times
#include "backend/cuda/spgemm_hash/instantiate.cuh"
