// spgemm_hash instantiations for the plus_min rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU plus_min
#include "backend/cuda/spgemm_hash/instantiate.cuh"
