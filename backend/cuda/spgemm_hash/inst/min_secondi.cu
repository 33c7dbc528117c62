// spgemm_hash instantiations for the min_secondi rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU min_secondi
#include "backend/cuda/spgemm_hash/instantiate.cuh"
