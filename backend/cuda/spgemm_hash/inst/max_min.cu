// spgemm_hash instantiations for the max_min rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU max_min
#include "backend/cuda/spgemm_hash/instantiate.cuh"
