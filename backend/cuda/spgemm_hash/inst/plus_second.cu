// spgemm_hash instantiations for the plus_second rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU plus_second
#include "backend/cuda/spgemm_hash/instantiate.cuh"
