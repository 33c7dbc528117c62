// spgemm_hash instantiations for the any_firsti rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU any_firsti
#include "backend/cuda/spgemm_hash/instantiate.cuh"
