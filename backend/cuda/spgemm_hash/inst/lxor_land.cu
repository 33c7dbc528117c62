// spgemm_hash instantiations for the lxor_land rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU lxor_land
#include "backend/cuda/spgemm_hash/instantiate.cuh"
