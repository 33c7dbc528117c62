// spgemm_hash instantiations for the any_pair rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU any_pair
#include "backend/cuda/spgemm_hash/instantiate.cuh"
