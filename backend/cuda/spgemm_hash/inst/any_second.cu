// spgemm_hash instantiations for the any_second rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU any_second
#include "backend/cuda/spgemm_hash/instantiate.cuh"
