// Instantiates the reduce family for std::int32_t (every monoid).
#include "backend/cuda/reduce/typed_impl.cuh"

template struct ringblas::cuda::reduction::typed<std::int32_t>;
