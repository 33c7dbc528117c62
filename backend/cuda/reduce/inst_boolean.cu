// Instantiates the reduce family for bool (every monoid).
#include "backend/cuda/reduce/typed_impl.cuh"

template struct ringblas::cuda::reduction::typed<bool>;
