// spgemm_hash instantiations for the plus_first rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU plus_first
#include "backend/cuda/spgemm_hash/instantiate.cuh"
