// spgemm_hash instantiations for the any_secondi rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU any_secondi
#include "backend/cuda/spgemm_hash/instantiate.cuh"
