// spgemm_hash instantiations for the land_lor rows of backend/cuda/manifest.def.
#define RINGBLAS_SPGEMM_HASH_TU land_lor
#include "backend/cuda/spgemm_hash/instantiate.cuh"
