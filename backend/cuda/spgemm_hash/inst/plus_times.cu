// spgemm_hash instantiations for the plus_times rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU plus_times
#include "backend/cuda/spgemm_hash/instantiate.cuh"
