// Instantiates the reduce family for double (every monoid).
#include "backend/cuda/reduce/typed_impl.cuh"

template struct ringblas::cuda::reduction::typed<double>;
