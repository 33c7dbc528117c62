// spgemm_hash instantiations for the plus_pair rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU plus_pair
#include "backend/cuda/spgemm_hash/instantiate.cuh"
