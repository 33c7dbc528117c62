// spgemm_hash instantiations for the lor_land rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU lor_land
#include "backend/cuda/spgemm_hash/instantiate.cuh"
